package compiler_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/validate"
)

// upstreamCRDs is the read-only folder of the CRDs Argo CD and kro ship,
// beside the repository. A user's clone has none.
const upstreamCRDs = "../../shared/crds"

// upstream is the validator of the upstream CRDs, read and compiled once;
// the error of reading upstreamCRDs, which a user's clone lacks, says
// os.IsNotExist.
var upstream = sync.OnceValues(func() (*validate.Validator, error) {
	entries, err := os.ReadDir(upstreamCRDs)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			data, err := os.ReadFile(filepath.Join(upstreamCRDs, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("reading the upstream CRDs: %w", err)
			}
			files[e.Name()] = data
		}
	}
	return validate.FromCRDs(files)
})

// upstreamValidator returns a validator of the upstream CRDs, and of the
// CRDs kro generates for the instances of stacks (from compiled), which
// must not define a kind the upstream CRDs define.
func upstreamValidator(t *testing.T, compiled ...*compiler.Result) *validate.Validator {
	t.Helper()
	v, err := upstream()
	if os.IsNotExist(err) {
		t.Skipf("%s not found: the upstream CRDs are test data outside the repository", upstreamCRDs)
	}
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
	upstreamKinds := v.Kinds()
	for _, k := range inst.Kinds() {
		if slices.Contains(upstreamKinds, k) {
			t.Fatalf("the CRD kro generates for the instances of a stack defines %s, which the upstream CRDs define", k)
		}
	}
	return v.With(inst)
}

// TestOutputMatchesUpstreamCRDs checks every object platc renders, for the
// sample platform and every golden case that renders, against the upstream
// CRD of its kind, strictly: a field the CRD does not declare is an error.
// Stack instances are checked against the CRD kro generates from their
// ResourceGraphDefinition.
func TestOutputMatchesUpstreamCRDs(t *testing.T) {
	objects := 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		v := upstreamValidator(t, res)
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
