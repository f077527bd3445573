package conformance

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/platc/platc/schemas"
)

var updateBuiltin = flag.Bool("kro.update-builtin", false, "rewrite platc's schemas/builtin from Kubernetes' published OpenAPI")

// TestBuiltinSchemas checks platc's built-in kinds against Kubernetes'
// published OpenAPI v3 (schemas.KubernetesVersion): each document of
// schemas/builtin is upstream's, cut to the components the kinds reach
// (-kro.update-builtin writes them), and each kind's resource and scope
// are those upstream's paths give.
func TestBuiltinSchemas(t *testing.T) {
	docs, err := UpstreamBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	want, err := CutBuiltin(docs, schemas.BuiltinKinds)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repoRoot, "schemas", "builtin")
	if *updateBuiltin {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		for name, data := range want {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[e.Name()]; !ok {
			t.Errorf("schemas/builtin/%s: no built-in kind is served by it: remove it (go test ./conformance/kro -run TestBuiltinSchemas -kro.update-builtin)", e.Name())
		} else if !bytes.Equal(data, w) {
			t.Errorf("schemas/builtin/%s is not Kubernetes %s's document cut to its kinds: run go test -run TestBuiltinSchemas -kro.update-builtin in conformance/kro", e.Name(), schemas.KubernetesVersion)
		}
	}
	if w := slices.Sorted(maps.Keys(want)); !slices.Equal(have, w) {
		t.Errorf("schemas/builtin holds %v, want %v", have, w)
	}
	mappings, err := BuiltinMappings(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range schemas.BuiltinKinds {
		m, ok := mappings[schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}]
		switch {
		case !ok:
			t.Errorf("%s %s: Kubernetes %s serves no such kind", k.APIVersion(), k.Kind, schemas.KubernetesVersion)
		case m.Plural != k.Plural || m.Namespaced != k.Namespaced:
			t.Errorf("%s %s: platc has resource %s (namespaced %v), Kubernetes %s/%v", k.APIVersion(), k.Kind, k.Plural, k.Namespaced, m.Plural, m.Namespaced)
		}
	}
}
