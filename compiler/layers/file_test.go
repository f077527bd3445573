package layers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestReadFile(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"empty file", "", map[string]any{}},
		{"comments only", "# nothing yet\n", map[string]any{}},
		{"null document", "~\n", map[string]any{}},
		{"scalars", "s: x\ni: 3\nf: 1.5\nb: true\nn: null\nq: \"yes\"\n",
			map[string]any{"s": "x", "i": int64(3), "f": 1.5, "b": true, "n": nil, "q": "yes"}},
		{"nested", "a:\n  b:\n    - 1\n    - c: d\n", map[string]any{"a": map[string]any{"b": []any{int64(1), map[string]any{"c": "d"}}}}},
		{"alias", "base: &b {x: 1}\nother: *b\n", map[string]any{"base": map[string]any{"x": int64(1)}, "other": map[string]any{"x": int64(1)}}},
		{"merge key", "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n",
			map[string]any{"base": map[string]any{"x": int64(1), "y": int64(2)}, "other": map[string]any{"x": int64(1), "y": int64(3)}}},
		{"merge list", "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n",
			map[string]any{"a": map[string]any{"x": int64(1)}, "b": map[string]any{"y": int64(2)}, "c": map[string]any{"x": int64(1), "y": int64(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _, err := ReadFile("v.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, n.Plain()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFilePositions(t *testing.T) {
	n, _, err := ReadFile("v.yaml", []byte("a:\n  b: 1\n  c:\n    - x\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := n.Get("a")
	got := []string{n.Keys[0].Pos.String(), a.Keys[0].Pos.String(), a.Keys[1].Pos.String(), a.Get("c").Items[0].Pos.String()}
	want := []string{"v.yaml:1:1", "v.yaml:2:3", "v.yaml:3:3", "v.yaml:4:7"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

// TestReadFileDuplicateKeys reads a key set twice as Helm's reader
// (sigs.k8s.io/yaml) does, its last value, and returns each, placed at
// the second key, to be warned of.
func TestReadFileDuplicateKeys(t *testing.T) {
	n, dups, err := ReadFile("v.yaml", []byte("a: 1\nb: 2\na: 3\nc:\n  x: 1\n  x: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"a": int64(3), "b": int64(2), "c": map[string]any{"x": int64(2)}}, n.Plain()); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	var got []string
	for _, d := range dups {
		got = append(got, d.Error())
	}
	want := []string{
		"v.yaml:3:1: key a is set twice (first at line 1): Helm takes this value and ignores the first; remove one of them",
		"v.yaml:6:3: key c.x is set twice (first at line 5): Helm takes this value and ignores the first; remove one of them",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	if got := n.Keys[len(n.Keys)-2].Pos.String(); got != "v.yaml:3:1" {
		t.Errorf("a is placed at %s, not at its last key", got)
	}
}

func TestReadFileErrors(t *testing.T) {
	laughs := "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	for c := 'b'; c <= 'h'; c++ {
		prev := string(c - 1)
		laughs += string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
	}
	tests := []struct {
		name, src, want string
	}{
		{"list at the top", "- a\n- b\n", "v.yaml:1:1: the file is not a mapping of values: write key: value lines at the top"},
		{"scalar at the top", "hello\n", "v.yaml:1:1: the file is not a mapping of values: write key: value lines at the top"},
		{"second document", "a: 1\n---\nb: 2\n", "v.yaml:2:1: a second YAML document: Helm reads the first one only, so keep one"},
		{"syntax", "a: 1\n  b: 2\n", "v.yaml:2:3: this key is indented under the value of line 1: align it with the keys above it, or quote that value (YAML: mapping values are not allowed in this context)"},
		{"unknown anchor", "a: *nope\n", "v.yaml: an alias (*name) whose anchor (&name) is not defined before it: define the anchor first, or write the value out (YAML: unknown anchor 'nope' referenced)"},
		{"key not a string", "? [a, b]\n: 1\n", "v.yaml:1:3: a key that is not a string: Helm values are keyed by names"},
		{"billion laughs", laughs, "v.yaml:5:29: more than 100000 values once aliases are expanded: a billion-laughs file? write the values out"},
		{"too deep", "a: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n", "v.yaml:1:68: values nested more than 64 deep"},
		{"too large", "a: " + strings.Repeat("x", MaxFileSize) + "\n", "v.yaml: file is 1048580 bytes, more than the 1048576 a values file may have: a values file holds a chart's overrides, not data"},
		{"merge of a scalar", "a:\n  <<: 1\n", "v.yaml:2:7: a merge key (<<) takes a mapping or a list of mappings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadFile("v.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// FuzzReadFile feeds the reader anything: it must never panic, and what it
// accepts must be a mapping that YAML itself reads the same way.
func FuzzReadFile(f *testing.F) {
	for _, s := range []string{"", "a: 1\n", "a: &a {x: 1}\nb: *a\n", "- x\n", "a:\n  <<: [*a]\n", "a: [1, {b: c}]\n", "k: |\n  text\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, _, err := ReadFile("v.yaml", data)
		if err != nil {
			if _, ok := err.(*FileError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if n.Kind != Map {
			t.Fatalf("accepted a %v at the top", n.Kind)
		}
		var want any
		if err := yaml.Unmarshal(data, &want); err != nil {
			return // yaml.v3 refuses what we expand (merge keys in some forms)
		}
		if want == nil {
			want = map[string]any{}
		}
		if hasNonStringKey(want) {
			return // keys like 1.0 are text to us and numbers to YAML
		}
		if !cmp.Equal(normalizeInts(want), n.Plain()) {
			t.Errorf("read differently from YAML:\n ours %#v\nyaml %#v", n.Plain(), want)
		}
	})
}

// normalizeInts turns the ints yaml.v3 decodes into int64, as ReadFile has.
func normalizeInts(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case map[string]any:
		for k, x := range v {
			v[k] = normalizeInts(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalizeInts(x)
		}
	}
	return v
}

func hasNonStringKey(v any) bool {
	switch v := v.(type) {
	case map[any]any:
		return true
	case map[string]any:
		for _, x := range v {
			if hasNonStringKey(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasNonStringKey(x) {
				return true
			}
		}
	}
	return false
}

// Get returns the value of key in a mapping, or nil.
func (n *Node) Get(key string) *Node {
	for i, k := range n.Keys {
		if k.Name == key {
			return n.Values[i]
		}
	}
	return nil
}
