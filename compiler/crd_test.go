package compiler_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
)

// embedded is the validator of the CRDs platc embeds, built from their
// YAML (the compiler's own is built from crds.json), once.
var embedded = sync.OnceValues(func() (*validate.Validator, error) {
	return validate.FromCRDs(schemas.CRDs())
})

// crdValidator returns a validator of the embedded CRDs, and of the CRDs
// kro generates for the instances of stacks (from compiled), which must not
// define a kind the embedded CRDs define.
func crdValidator(t *testing.T, compiled ...*compiler.Result) *validate.Validator {
	t.Helper()
	v, err := embedded()
	if err != nil {
		t.Fatal(err)
	}
	instances := map[string][]map[string]any{}
	for _, res := range compiled {
		if res.Stacks == nil {
			continue
		}
		for name, st := range res.Stacks.Stacks {
			instances["instances of "+name] = []map[string]any{st.CRD()}
		}
	}
	if len(instances) == 0 {
		return v
	}
	inst, err := validate.FromObjects(instances)
	if err != nil {
		t.Fatal(err)
	}
	kinds := v.Kinds()
	for _, k := range inst.Kinds() {
		if slices.Contains(kinds, k) {
			t.Fatalf("the CRD kro generates for the instances of a stack defines %s, which an embedded CRD defines", k)
		}
	}
	return v.With(inst)
}

// TestOutputMatchesCRDs checks every object platc renders, for the sample
// platform and every golden case that renders, against the embedded CRD of
// its kind, strictly: a field the CRD does not declare is an error. Stack
// instances are checked against the CRD kro generates from their
// ResourceGraphDefinition. Upstream's own CRDs judge the same objects in
// the conformance modules (conformance/argocd TestRenderedMatchesCRDs,
// conformance/kro TestRendered).
func TestOutputMatchesCRDs(t *testing.T) {
	objects := 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		v := crdValidator(t, res)
		for _, o := range res.Outputs {
			if !strings.HasSuffix(o.Path, ".yaml") || strings.Contains(o.Path, "/direct-apply/") || strings.Contains(o.Path, "/argocd-values") {
				continue // a plan, and Helm values: not Kubernetes objects
			}
			for i, doc := range bytes.Split(o.Data, []byte("\n---\n")) {
				var obj map[string]any
				if err := yaml.Unmarshal(doc, &obj); err != nil {
					t.Fatalf("%s: %s: document %d: %v", repo, o.Path, i+1, err)
				}
				if obj == nil {
					continue // a file with no objects
				}
				objects++
				problems, err := v.Validate(obj)
				if err != nil {
					t.Errorf("%s: %s: document %d: %v", repo, o.Path, i+1, err)
				}
				for _, p := range problems {
					t.Errorf("%s: %s: %s %v: %s", repo, o.Path, obj["kind"], obj["metadata"].(map[string]any)["name"], p)
				}
				if bothValues(obj) {
					t.Errorf("%s: %s: a helm source sets both values and valuesObject; Argo CD drops values", repo, o.Path)
				}
			}
		}
	}
	if objects < 50 {
		t.Errorf("validated %d objects; the sample and the golden cases render more", objects)
	}
}

// bothValues reports whether any helm block below v sets both values and
// valuesObject.
func bothValues(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if h, ok := v["helm"].(map[string]any); ok && h["values"] != nil && h["valuesObject"] != nil {
			return true
		}
		for _, x := range v {
			if bothValues(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if bothValues(x) {
				return true
			}
		}
	}
	return false
}
