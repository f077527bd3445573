package cluster

// Versions are the upstream releases the control plane is built from:
// the module versions of this module's go.mod (TestVersionsAreTheModules
// compares them).
var Versions = struct {
	Kubernetes, Etcd, ArgoCD, Kro, Kwok, Helm, Kustomize string
}{
	Kubernetes: "v1.36.1",
	Etcd:       "v3.6.8",
	ArgoCD:     "v3.5.1",
	Kro:        "v0.9.3",
	Kwok:       "v0.8.0",
	Helm:       "v4.2.1",
	Kustomize:  "v5.8.1",
}
