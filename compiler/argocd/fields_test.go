package argocd

import (
	"reflect"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/itchyny/gojq"
)

func TestParseJSONPointer(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string // nil: refused
	}{
		{"/spec/caBundle", []string{"spec", "caBundle"}},
		{"/webhooks/0/clientConfig/caBundle", []string{"webhooks", "0", "clientConfig", "caBundle"}},
		{"/metadata/annotations/example.com~1x", []string{"metadata", "annotations", "example.com/x"}},
		{"/a~0b", []string{"a~b"}},
		{"/", []string{""}},
		{"", nil},
		{"spec/caBundle", nil},
		{"/a~2b", nil},
		{"/a~", nil},
		{"/webhooks/01", nil},
		{"/webhooks/-1", nil},
		{"/webhooks/+1", nil},
	} {
		got, err := ParseJSONPointer(tt.in)
		if (err != nil) != (tt.want == nil) || (err == nil && !slices.Equal(got, tt.want)) {
			t.Errorf("ParseJSONPointer(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestHelmSetValue(t *testing.T) {
	for in, want := range map[string]string{"a,b": `a\,b`, `a\,b`: `a\,b`, "{a,b}": "{a,b}", "plain": "plain", "": ""} {
		if got := HelmSetValue(in); got != want {
			t.Errorf("HelmSetValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseImage(t *testing.T) {
	for in, want := range map[string]Image{
		"nginx=registry.example.com/nginx:1.27.0": {Name: "nginx", NewName: "registry.example.com/nginx", NewTag: "1.27.0"},
		"nginx:1.27":            {Name: "nginx", NewTag: "1.27"},
		"registry:5000/app:v1":  {Name: "registry:5000/app", NewTag: "v1"},
		"app@sha256:abc":        {Name: "app", Digest: "sha256:abc"},
		"app=other@sha256:abc":  {Name: "app", NewName: "other", Digest: "sha256:abc"},
		"app=registry:5000/app": {Name: "app", NewName: "registry:5000/app"},
	} {
		if diff := cmp.Diff(want, ParseImage(in)); diff != "" {
			t.Errorf("ParseImage(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestDirectoryFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"m/a.yaml":        {Data: []byte("kind: A")},
		"m/b.json":        {Data: []byte("{}")},
		"m/README.md":     {Data: []byte("no")},
		"m/skip.yaml":     {Data: []byte("# +argocd:skip-file-rendering")},
		"m/sub/c.yml":     {Data: []byte("kind: C")},
		"m/sub/test.yaml": {Data: []byte("kind: T")},
	}
	for _, tt := range []struct {
		recurse          bool
		include, exclude string
		want             []string
	}{
		{false, "", "", []string{"m/a.yaml", "m/b.json"}},
		{true, "", "", []string{"m/a.yaml", "m/b.json", "m/sub/c.yml", "m/sub/test.yaml"}},
		{true, "", "sub/test.yaml", []string{"m/a.yaml", "m/b.json", "m/sub/c.yml"}},
		{true, "*.yaml", "", []string{"m/a.yaml", "m/sub/test.yaml"}},
		{true, "{a.yaml,sub/*}", "", []string{"m/a.yaml", "m/sub/c.yml", "m/sub/test.yaml"}},
	} {
		if diff := cmp.Diff(tt.want, DirectoryFiles(fsys, "m", tt.recurse, tt.include, tt.exclude)); diff != "" {
			t.Errorf("recurse %v include %q exclude %q (-want +got):\n%s", tt.recurse, tt.include, tt.exclude, diff)
		}
	}
}

// TestChildHookFinalizers: the expression removes, as Argo CD's diff
// normalizer does (del of the path expression, with gojq), the
// finalizers the controller adds for PreDelete and PostDelete hooks, and
// no other; a child without finalizers is left as it is.
func TestChildHookFinalizers(t *testing.T) {
	if err := JQProblem(ChildHookFinalizers); err != nil {
		t.Fatalf("Argo CD refuses the expression: %v", err)
	}
	q, err := gojq.Parse("del(" + ChildHookFinalizers + ")")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ live, want []any }{
		{
			[]any{ResourcesFinalizer, "pre-delete-finalizer.argocd.argoproj.io", "pre-delete-finalizer.argocd.argoproj.io/cleanup", "post-delete-finalizer.argocd.argoproj.io", "post-delete-finalizer.argocd.argoproj.io/cleanup", "example.com/keep"},
			[]any{ResourcesFinalizer, "example.com/keep"},
		},
		{[]any{ResourcesFinalizer}, []any{ResourcesFinalizer}},
		{nil, nil},
	} {
		app := map[string]any{"metadata": map[string]any{"name": "kyverno"}}
		if tc.live != nil {
			app["metadata"].(map[string]any)["finalizers"] = tc.live
		}
		v, ok := q.Run(app).Next()
		if !ok {
			t.Fatal("no result")
		}
		if err, isErr := v.(error); isErr {
			t.Fatalf("%v: %v", tc.live, err)
		}
		got, _ := v.(map[string]any)["metadata"].(map[string]any)["finalizers"].([]any)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("finalizers %v: normalized to %v, want %v", tc.live, got, tc.want)
		}
	}
}
