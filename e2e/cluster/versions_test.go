package cluster

import (
	"os"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestVersionsAreTheModules requires Versions to name the versions the
// programs' go.mod builds.
func TestVersionsAreTheModules(t *testing.T) {
	data, err := os.ReadFile("../programs/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, r := range f.Require {
		have[r.Mod.Path] = r.Mod.Version
	}
	for module, want := range map[string]string{
		"k8s.io/kubernetes":                  Versions.Kubernetes,
		"go.etcd.io/etcd/server/v3":          Versions.Etcd,
		"github.com/argoproj/argo-cd/v3":     Versions.ArgoCD,
		"github.com/kubernetes-sigs/kro":     Versions.Kro,
		"sigs.k8s.io/kwok":                   Versions.Kwok,
		"helm.sh/helm/v4":                    Versions.Helm,
		"sigs.k8s.io/kustomize/kustomize/v5": Versions.Kustomize,
	} {
		if have[module] != want {
			t.Errorf("programs/go.mod requires %s %s, Versions says %s", module, have[module], want)
		}
	}
	tools := map[string]bool{}
	for _, tl := range f.Tool {
		tools[tl.Path] = true
	}
	for _, p := range programs {
		if !tools[p.Package] {
			t.Errorf("programs/go.mod has no tool line for %s", p.Package)
		}
	}
}
