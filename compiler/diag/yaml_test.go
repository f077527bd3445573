package diag

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLSyntax gives each cause its place and its plain words, with
// the parser's after.
func TestYAMLSyntax(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"tab", "a:\n\tb: 1\n", "2:1: a tab character: YAML indents with spaces only; replace the tab with spaces (YAML: found character that cannot start any token)"},
		{"tab after a key", "a: 1\nb:\t\n  - x\n", ""},
		{"tab before a key", "apiVersion: v2\nname: api\n\tversion: 1.0.0\n", "3:1: a tab character: YAML indents with spaces only; replace the tab with spaces (YAML: found a tab character that violates indentation)"},
		{"unterminated quote", "a: 1\nb: \"open\nc: 2\n", "2:4: a quote that is never closed: close it on the same line (YAML: found unexpected end of stream)"},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `3:1: key "a" is set twice (first at line 1): remove one of them (YAML: mapping key "a" already defined at line 1)`},
		{"colon in a value", "image: repo: tag\n", "1:12: a ': ' inside a value: quote the value (YAML: mapping values are not allowed in this context)"},
		{"key under a value", "replicas: 2\n  image: x\n", "2:3: this key is indented under the value of line 1: align it with the keys above it, or quote that value (YAML: mapping values are not allowed in this context)"},
		{"indentation", "a:\n  b: 1\n c: 2\n", "3:2: this line is not indented as the keys (or list entries) around it: align it with its siblings (YAML: did not find expected key)"},
		{"key without colon", "a: 1\nb\nc: 2\n", "2:1: a key without ':': write it as key: value (YAML: could not find expected ':')"},
		{"flow list unclosed", "kind: [\n", "1:7: a [list] or {map} written on one line that is not closed: close it, or separate its items with ',' (YAML: did not find expected node content)"},
		{"flow list", "a: [1, 2\n", "1:4: a [list] or {map} written on one line that is not closed: close it, or separate its items with ',' (YAML: did not find expected ',' or ']')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			err := yaml.Unmarshal([]byte(tt.in), &v)
			if tt.want == "" {
				if err != nil {
					t.Errorf("%q is YAML, and the parser says %v", tt.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%q parsed", tt.in)
			}
			line, col, msg := YAMLSyntax(err, []byte(tt.in))
			if got := fmt.Sprintf("%d:%d: %s", line, col, msg); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestYAMLCheck explains another parser's error by go.yaml.in/yaml's,
// in every document, and says a decoding error is no syntax error.
func TestYAMLCheck(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a: 1\n---\nb: 'open\n", "3:4: a quote that is never closed: close it on the same line (YAML: found unexpected end of stream)"},
		// Helm and sigs.k8s.io/yaml read a key set twice: it is no
		// syntax error, even before one in a later document.
		{"a: 1\na: 2\n", ""},
		{"a: 1\na: 2\n---\nb: 'open\n", "4:4: a quote that is never closed: close it on the same line (YAML: found unexpected end of stream)"},
		{"a: 1\n", ""},
	}
	for _, tt := range tests {
		got := ""
		if line, col, msg, ok := YAMLCheck([]byte(tt.in)); ok {
			got = fmt.Sprintf("%d:%d: %s", line, col, msg)
		}
		if got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.in, got, tt.want)
		}
	}
	var v struct{ A int }
	err := yaml.Unmarshal([]byte("a: x\n"), &v)
	if _, _, _, ok := YAMLFileError(err, nil); ok {
		t.Errorf("%v is taken for a syntax error", err)
	}
}

// TestDuplicateKeys finds every key set twice, nested, in a list and
// behind an alias, in the file's order, and drops the earlier pair of
// each so that the last value wins, as sigs.k8s.io/yaml reads it.
func TestDuplicateKeys(t *testing.T) {
	in := "a: 1\nb:\n  c: x\n  c: y\nlist:\n- name: p\n  name: q\nbase: &base\n  k: 1\n  k: 2\nother: *base\n\"odd.key\": 1\nodd.key: 2\na: 3\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(in), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range DuplicateKeys(&doc, true) {
		got = append(got, fmt.Sprintf("%d:%d %s (first %d)", d.Line, d.Col, d.Key, d.First))
	}
	want := []string{"4:3 b.c (first 3)", "7:3 list[0].name (first 6)", "10:3 base.k (first 9)", "13:1 \"odd.key\" (first 12)", "14:1 a (first 1)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	var v map[string]any
	if err := doc.Decode(&v); err != nil {
		t.Fatalf("the keys are still set twice once dropped: %v", err)
	}
	if want := "map[a:3 b:map[c:y] base:map[k:2] list:[map[name:q]] odd.key:2 other:map[k:2]]"; fmt.Sprint(v) != want {
		t.Errorf("the last value does not win:\ngot  %v\nwant %s", v, want)
	}
	if got := DuplicateMsg(DupKey{Key: "b.c", Line: 4, Col: 3, First: 3}, "Helm"); got != "key b.c is set twice (first at line 3): Helm takes this value and ignores the first; remove one of them" {
		t.Errorf("DuplicateMsg: %s", got)
	}
}
