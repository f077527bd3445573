package verify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/object"
)

// The cases of k8s.io/apimachinery v0.36.1,
// pkg/api/validate/content/kube_test.go (TestIsLabelKey, TestIsLabelValue).

func TestQualifiedName(t *testing.T) {
	good := []string{
		"simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
		"now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
		"now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
		"Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
		strings.Repeat("a", 63), strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63),
		"argocd.argoproj.io/sync-wave", "platc.dev/description",
	}
	for _, k := range good {
		if msg := qualifiedNameProblem(k); msg != "" {
			t.Errorf("%q: %s, want no problem", k, msg)
		}
	}
	bad := []string{
		"nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
		"Example.com/abc", "example_com/abc", "example.com/", "/simple",
		strings.Repeat("a", 64), strings.Repeat("a", 254) + "/abc",
	}
	for _, k := range bad {
		if qualifiedNameProblem(k) == "" {
			t.Errorf("%q: no problem, want one", k)
		}
	}
}

func TestLabelValue(t *testing.T) {
	good := []string{"simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", strings.Repeat("a", 63), ""}
	for _, v := range good {
		if msg := labelValueProblem(v); msg != "" {
			t.Errorf("%q: %s, want no problem", v, msg)
		}
	}
	bad := []string{"nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", `\backslashes\are\bad`, "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", strings.Repeat("a", 64)}
	for _, v := range bad {
		if labelValueProblem(v) == "" {
			t.Errorf("%q: no problem, want one", v)
		}
	}
}

// TestMetadataProblems checks labels and annotations together, and the
// size of annotations at the limit.
func TestMetadataProblems(t *testing.T) {
	obj := func(labels, annotations map[string]any) *object.Map {
		meta := object.NewMap().Set("name", "x")
		if labels != nil {
			meta.Set("labels", labels)
		}
		if annotations != nil {
			meta.Set("annotations", annotations)
		}
		return object.NewMap().Set("kind", "ConfigMap").Set("metadata", meta)
	}
	atLimit := strings.Repeat("a", MaxAnnotationsSize-len("k"))
	tests := []struct {
		name string
		obj  *object.Map
		want []string
	}{
		{"none", obj(nil, nil), nil},
		{"valid", obj(map[string]any{"app.kubernetes.io/instance": "web"}, map[string]any{"Example.com/Note": "any text"}), nil},
		{"annotations at the limit", obj(nil, map[string]any{"k": atLimit}), nil},
		{"annotations past the limit", obj(nil, map[string]any{"k": atLimit + "b"}), []string{
			"the annotations hold 262145 bytes, more than the 262144 (256 KiB) Kubernetes allows an object: shorten them",
		}},
		{"a bad label", obj(map[string]any{"a/b/c": "x", "team": "Blue Team"}, nil), []string{
			`label key "a/b/c" has more than one '/': write an optional DNS prefix, '/', and a name, such as example.com/my-name`,
			`the value of label team, "Blue Team", is not a Kubernetes label value: write at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
		}},
		{"a bad annotation key", obj(nil, map[string]any{"note:": "x"}), []string{
			`annotation key "note:" is not a Kubernetes qualified name: write at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional DNS prefix and '/'`,
		}},
	}
	for _, tt := range tests {
		got := metadataProblems(tt.obj)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: problems:\n%s\nwant:\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestJSONBound checks that jsonBound is never below the size of the
// JSON, whatever the characters, and the size exactly that of
// encoding/json.
func TestJSONBound(t *testing.T) {
	values := []any{
		"", "plain", "<&>", "\x00\x01\x1f", "tab\there", `"quotes"`, "émoji 🎉", strings.Repeat("<", 100),
		int64(-1), 3.25, true, nil,
		[]any{"a", int64(1), []any{}, map[string]any{}},
		[]string{"x", "<y>"},
		map[string]any{"k<": "v>", "nested": map[string]any{"": []any{nil}}},
		object.NewMap().Set("a", "b").Set("<c>", object.NewMap().Set("d", []any{"e"})),
	}
	for _, v := range values {
		b, err := json.Marshal(object.Plain(v))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonSize(v); got != len(b) {
			t.Errorf("jsonSize(%#v) = %d, want %d", v, got, len(b))
		}
		if bound := jsonBound(v); bound < len(b) {
			t.Errorf("jsonBound(%#v) = %d, below the %d bytes of its JSON", v, bound, len(b))
		}
	}
}

func TestDocuments(t *testing.T) {
	body := "a: 1\n---\nb: |\n  ---\n  x\n---\nc: 3\n"
	got := documents([]byte(body))
	want := []string{"a: 1\n", "b: |\n  ---\n  x\n", "c: 3\n"}
	if len(got) != len(want) {
		t.Fatalf("documents = %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("document %d = %q, want %q", i, got[i], want[i])
		}
	}
}
