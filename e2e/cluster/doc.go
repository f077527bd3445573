// Package cluster builds and runs a Kubernetes control plane on the
// loopback interface from Go modules alone, for delivering what platc
// renders to the real controllers: etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler, kwok (one fake node whose
// pods become ready, so that workloads' health is real), Argo CD's
// application controller and repo server (with Debian's redis-server), and
// kro's controller.
//
// Build compiles every program in one go build from this module's build
// list and keeps them in a folder keyed by what decides their bytes; Start
// starts a control plane in a data folder of its own. Every process runs
// in a process group of its own, dies with the process that started it
// (Pdeathsig) and is stopped by Stop, so that a test that fails, is
// interrupted or is killed leaves none behind.
//
// It knows nothing of platc: what is delivered, and how it is judged, is
// package deliver's.
package cluster
