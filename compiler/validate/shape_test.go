package validate

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/schemas"
)

// mutants returns n variants of doc, each with a few random edits: a
// string changed (to text that breaks patterns, enums and lengths, or to
// one of the document's own strings), a value of another type, a key
// removed or added, a list element added or removed. Many of them share
// a shape, so a Memo reuses results; all must get the problems the
// validator gives them.
func mutants(doc map[string]any, n int, seed uint64) []map[string]any {
	r := rand.New(rand.NewPCG(seed, 1))
	pool := []any{"", "x", "Global", "Cluster", "v1", "kro.run/v1alpha1", "NOT-A-NAME", "a-very-long-string-" + fmt.Sprint(make([]int, 40)), int64(3), 2.5, true, nil, []any{}, map[string]any{}}
	collectStrings(doc, func(s string) { pool = append(pool, s) })
	var out []map[string]any
	for range n {
		m := deepCopy(doc).(map[string]any)
		for range 1 + r.IntN(3) {
			mutate(r, m, pool)
		}
		out = append(out, m)
	}
	return out
}

func collectStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			collectStrings(v[k], fn)
		}
	case []any:
		for _, x := range v {
			collectStrings(x, fn)
		}
	case string:
		fn(v)
	}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

// slot is a place in a document: a key of a map or an index of a list.
type slot struct {
	m   map[string]any
	key string
	l   []any
	i   int
}

// slots lists every place in v, depth first, so that a mutation picks any
// field of the document with the same chance.
func slots(v any, out []slot) []slot {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, slot{m: v, key: k})
			out = slots(v[k], out)
		}
	case []any:
		for i, x := range v {
			out = append(out, slot{l: v, i: i})
			out = slots(x, out)
		}
	}
	return out
}

// mutate makes one random edit somewhere in the map m.
func mutate(r *rand.Rand, m map[string]any, pool []any) {
	all := slots(m, nil)
	s := all[r.IntN(len(all))]
	value := pool[r.IntN(len(pool))]
	switch {
	case s.m != nil && r.IntN(6) == 0:
		delete(s.m, s.key)
	case s.m != nil && r.IntN(6) == 0:
		if inner, ok := s.m[s.key].(map[string]any); ok {
			inner[fmt.Sprint("extra", r.IntN(3))] = value
			return
		}
		s.m[s.key] = value
	case s.m != nil:
		s.m[s.key] = value
	default:
		s.l[s.i] = value
	}
}

// ordered turns every map of v into an *object.Map with sorted keys, the
// form rendered objects have.
func ordered(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := object.NewMap()
		for _, k := range slices.Sorted(maps.Keys(v)) {
			m.Set(k, ordered(v[k]))
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = ordered(x)
		}
		return l
	}
	return v
}

// memoDocs are the documents the Memo tests mutate: those of the other
// tests, and an RGD that sets its enum-valued scope.
func memoDocs(t *testing.T) map[string]string {
	return map[string]string{
		"application": multiSourceApp,
		"appproject":  appProject,
		"rgd":         rgd,
		"rgd-scope":   edit(t, rgd, "    kind: WebApp\n", "    kind: WebApp\n    scope: Namespaced\n"),
	}
}

func testMemoAgrees(t *testing.T, v *Validator, docs map[string]string) {
	memo := v.Memo()
	objects := 0
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		base := decode(t, docs[name])
		for i, obj := range append([]map[string]any{base}, mutants(base, 400, uint64(len(name)))...) {
			objects++ // once: its two forms share a shape
			want, wantErr := v.Validate(obj)
			for _, form := range []any{obj, ordered(obj)} {
				got, gotErr := memo.Validate(form)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("%s, mutant %d (%T): Memo error %v, Validator error %v", name, i, form, gotErr, wantErr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s, mutant %d (%T): Memo and Validator disagree (-validator +memo):\n%s\nobject: %v", name, i, form, diff, obj)
				}
			}
		}
	}
	// The test means something only if shapes repeat: at least a quarter
	// of the objects must reuse the shape of an earlier one, that is, there
	// are at most 3/4 as many shapes as objects (measured: 1054 shapes with
	// the embedded CRDs, for 1604 objects).
	if len(memo.seen)*4 > objects*3 {
		t.Errorf("%d shapes for %d objects: the mutants hardly share shapes, the test exercises little reuse", len(memo.seen), objects)
	}
}

// TestMemoAgreesEmbedded checks Memo against the validator of the CRDs
// platc carries, on the documents of the other tests and their mutants.
func TestMemoAgreesEmbedded(t *testing.T) {
	v, err := FromCRDs(schemas.CRDs())
	if err != nil {
		t.Fatal(err)
	}
	testMemoAgrees(t, v, memoDocs(t))
}

func TestShapeOf(t *testing.T) {
	sch := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":   map[string]any{"type": "string"},
			"scope":  map[string]any{"type": "string", "enum": []any{"A", "B"}},
			"image":  map[string]any{"type": "string", "pattern": "^[a-z]+$"},
			"values": map[string]any{"type": "object"},
		},
		"additionalProperties": false,
	}
	sh := shapeOf(sch)
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"unconstrained strings leave out their text", map[string]any{"name": "web"}, "{4:names}"},
		{"enum keeps the value", map[string]any{"scope": "A"}, "{5:scopes1:A}"},
		{"pattern keeps the string", map[string]any{"image": "nginx"}, "{5:images5:nginx}"},
		{"a type-only node keeps the type", map[string]any{"values": map[string]any{"a": 1}}, "{6:values{}}"},
		{"an unknown field keeps its key", map[string]any{"nmae": "web"}, "{4:nmaes}"},
		{"numbers keep their value", map[string]any{"name": int64(3)}, "{4:namei3}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(sh.key(nil, tt.obj)); got != tt.want {
				t.Errorf("key = %s, want %s", got, tt.want)
			}
		})
	}
}
