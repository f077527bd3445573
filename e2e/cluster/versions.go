package cluster

import "github.com/platc/platc/compiler/upstream"

// Versions are the upstream releases the control plane is built from: the
// ones platc targets (compiler/upstream), which the programs' go.mod
// requires (TestVersionsAreTheModules compares them).
var Versions = struct {
	Kubernetes, Etcd, ArgoCD, Kro, Kwok, Helm, Kustomize string
}{
	Kubernetes: upstream.Kubernetes,
	Etcd:       upstream.Etcd,
	ArgoCD:     upstream.ArgoCD,
	Kro:        upstream.Kro,
	Kwok:       upstream.Kwok,
	Helm:       upstream.Helm,
	Kustomize:  upstream.Kustomize,
}
