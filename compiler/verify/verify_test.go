package verify_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/verify"
	"github.com/platc/platc/testkit/cachetest"
)

// TestVerifySchemasBesideOthers renders the sample, breaks its output in
// ways the schema check finds (an Application's unknown field, a
// project's metadata field that belongs to the cluster, of two kinds a run
// meets first there) and one the environments' checks find (an
// Application in a namespace its project does not permit), and requires
// every problem, exactly: the schema check runs beside the other checks,
// compiles each kind's schema when it first meets it, and, with a cache,
// reads the verdicts of the runs before.
func TestVerifySchemasBesideOthers(t *testing.T) {
	fsys := os.DirFS("../..")
	log := &diag.Log{}
	spec := model.Decode(load.Load(fsys, compiler.DefaultSpecDir, log))
	info := check.Check(spec, fsys, log)
	stacks := rgd.Compile(spec, info, nil, nil, log)
	clientFiles := layers.Read(spec, stacks, fsys, layers.Options{}, log)
	files := render.Render(spec, info, stacks, nil)
	if log.HasErrors() {
		t.Fatalf("the sample does not compile:\n%s", log)
	}
	// The first two Applications of modules and the first project, and
	// where they are.
	var app, otherApp, project *object.Map
	var appFile, otherFile, otherEnv, projectFile string
	for _, f := range files {
		for _, obj := range f.Objects {
			module := obj.Get("kind") == "Application" && !strings.HasPrefix(f.Path, render.RootAppsDir+"/")
			switch {
			case module && app == nil:
				app, appFile = obj, f.Path
			case module && otherApp == nil:
				otherApp, otherFile, otherEnv = obj, f.Path, f.Env
			case obj.Get("kind") == "AppProject" && project == nil:
				project, projectFile = obj, f.Path
			}
		}
	}
	if app == nil || otherApp == nil || project == nil {
		t.Fatal("the sample renders no two Applications of modules and an AppProject")
	}
	name := func(obj *object.Map) string { return object.Lookup(obj, "metadata", "name").(string) }
	app.Get("spec").(*object.Map).Set("bogus", true)
	project.Get("metadata").(*object.Map).Set("uid", "u")
	otherApp.Get("spec").(*object.Map).Get("destination").(*object.Map).Set("namespace", "elsewhere")
	out := spec.Platform.OutDir + "/"
	otherProject := object.Lookup(otherApp, "spec", "project").(string)
	// The problem is the project's, placed at its destinations.
	dests := "environments." + otherEnv + ".projects." + otherProject + ".destinations"
	want := []string{
		out + projectFile + ": AppProject " + name(project) + `: /metadata/uid: unknown field "uid": the appproject schema refuses it [object-schema]`,
		out + appFile + ": Application " + name(app) + `: /spec/bogus: unknown field "bogus": the application schema refuses it [object-schema]`,
		spec.PosOf(dests).String() + ": " + dests + ": project " + otherProject + " does not permit destination https://kubernetes.default.svc, " +
			`namespace "elsewhere", which affects Application "` + name(otherApp) + `" (` + out + otherFile + "): add it to " + dests + " [project-destination]",
	}

	// Without a cache, and three times with one: empty, then with the
	// verdicts of the first run, which then hold all the shapes.
	cache := &cachetest.Memory{}
	for run, c := range []*cachetest.Memory{nil, cache, cache, cache} {
		in := verify.Input{Spec: spec, Stacks: stacks, Layers: clientFiles, Files: files, Repo: fsys, Charts: &charts.Renderer{Repo: fsys}, SpecDir: compiler.DefaultSpecDir}
		if c != nil {
			in.Cache = c
		}
		log = &diag.Log{}
		verify.Verify(in, log)
		var got []string
		for _, p := range log.Problems() {
			got = append(got, p.String())
		}
		slices.Sort(got) // the log's order is that of positions; want's is not
		slices.Sort(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("run %d: problems:\n%s\nwant:\n%s", run, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if cache.Puts() != 1 {
		t.Errorf("the cache was written %d times, want once (after the first run that had it)", cache.Puts())
	}
}

// TestSharedObjectsWhenHashesCollide compiles the golden case of objects
// two Applications sync with every object's hash the same: sharedObjects
// tells them apart by their keys, and reports exactly what it reports
// with the hashes apart (the case's stderr).
func TestSharedObjectsWhenHashesCollide(t *testing.T) {
	want, err := os.ReadFile("../../golden/error-shared-objects/stderr")
	if err != nil {
		t.Fatal(err)
	}
	compile := func() string {
		return compiler.Compile(os.DirFS("../../golden/error-shared-objects"), compiler.Options{}).Log.String()
	}
	if got := compile(); got != string(want) {
		t.Fatalf("the case's problems:\n%s\nwant its stderr:\n%s", got, want)
	}
	restore := verify.CollideObjectHashes()
	defer restore()
	if got := compile(); got != string(want) {
		t.Errorf("with every hash the same:\n%s\nwant:\n%s", got, want)
	}
}
