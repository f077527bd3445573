package synth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
)

// TestPureCUEYieldsTheRenderedApplications evaluates the pure-CUE way
// (PureCUE) over a small generated platform and requires exactly the
// module Applications platc renders for it, compared as JSON: the
// equivalence make bench-compare relies on to compare the two, kept here
// so that a change of platc's output cannot leave the benchmark comparing
// different things.
func TestPureCUEYieldsTheRenderedApplications(t *testing.T) {
	s := Size{Environments: 3, Modules: 30, Clients: 3}
	fsys := Platform(s)
	dir := t.TempDir()
	for name, f := range fsys {
		if !strings.HasPrefix(name, "sources/") || !strings.HasSuffix(name, ".cue") {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pure.cue"), []byte(PureCUE()), 0o644); err != nil {
		t.Fatal(err)
	}
	insts := load.Instances([]string{"."}, &load.Config{Dir: dir})
	v := cuecontext.New().BuildInstance(insts[0])
	if err := v.Err(); err != nil {
		t.Fatalf("the pure-CUE way does not build: %v", err)
	}
	export, err := v.LookupPath(cue.ParsePath("applications")).MarshalJSON()
	if err != nil {
		t.Fatalf("the pure-CUE way does not export: %v", err)
	}
	var pure map[string]map[string]any
	if err := json.Unmarshal(export, &pure); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	for env, apps := range pure {
		for name, app := range apps {
			want[env+"/"+name] = app
		}
	}

	res := compiler.Compile(fsys, compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the platform does not compile:\n%s", res.Log)
	}
	got := map[string]any{}
	for _, o := range res.Outputs {
		env, rest, ok := strings.Cut(strings.TrimPrefix(o.Path, "out/deploy/clusters/"), "/")
		if !ok || !strings.HasSuffix(rest, "apps.yaml") {
			continue
		}
		for _, doc := range bytes.Split(o.Data, []byte("\n---\n")) {
			var app map[string]any
			if err := yaml.Unmarshal(doc, &app); err != nil {
				t.Fatal(err)
			}
			if app == nil || app["kind"] != "Application" {
				continue
			}
			if name := app["metadata"].(map[string]any)["name"].(string); strings.HasPrefix(name, "module-") {
				got[env+"/"+name] = app
			}
		}
	}
	if len(got) == 0 {
		t.Fatal("platc renders no module Application")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the pure-CUE way (-) and platc (+) differ:\n%s", diff)
	}
}
