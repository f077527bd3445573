package manifests

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/diag"
	memcache "github.com/platc/platc/internal/cache"
	"github.com/platc/platc/testkit/cachetest"
)

const cacheKustomization = `resources:
  - deploy.yaml
namePrefix: team-
`

const cacheDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
`

// TestCacheReusesWhatStillHolds builds a kustomization with a cache, again
// after each change to the repository, and checks each time that the
// outcome is Build's without a cache, and that kustomize ran only when
// something it read had changed.
func TestCacheReusesWhatStillHolds(t *testing.T) {
	fsys := fstest.MapFS{
		"app/kustomization.yaml": {Data: []byte(cacheKustomization)},
		"app/deploy.yaml":        {Data: []byte(cacheDeployment)},
		"other/cm.yaml":          {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
	}
	cache := &cachetest.Memory{}
	steps := []struct {
		name   string
		change func()
		runs   int64 // kustomize builds the step costs (a failing build runs twice: see kustomize)
	}{
		{"first build", func() {}, 1},
		{"nothing changed", func() {}, 0},
		// Build lists the folder to tell a kustomization from plain
		// manifests: a new file there is a new listing.
		{"a file in the folder", func() { fsys["app/README.md"] = &fstest.MapFile{Data: []byte("hi")} }, 1},
		{"a file's content kustomize does not read", func() { fsys["app/README.md"] = &fstest.MapFile{Data: []byte("hello")} }, 0},
		{"a folder elsewhere", func() { fsys["other/cm.yaml"].Data = []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n") }, 0},
		{"a resource", func() {
			fsys["app/deploy.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(cacheDeployment, "web", "api", 1))}
		}, 1},
		{"the same again", func() {}, 0},
		{"the kustomization", func() {
			fsys["app/kustomization.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(cacheKustomization, "team-", "crew-", 1))}
		}, 1},
		{"a missing resource", func() { delete(fsys, "app/deploy.yaml") }, 2},
		{"still missing", func() {}, 0},
		{"a second kustomization file, which kustomize refuses", func() { fsys["app/kustomization.yml"] = &fstest.MapFile{Data: []byte(cacheKustomization)} }, 2},
	}
	for _, step := range steps {
		step.change()
		before := kustomizeRuns.Load()
		objects, problems := Build(fsys, "app", cache)
		if runs := kustomizeRuns.Load() - before; runs != step.runs {
			t.Errorf("%s: kustomize ran %d times, want %d", step.name, runs, step.runs)
		}
		wantObjects, wantProblems := Build(fsys, "app", nil)
		if diff := cmp.Diff(wantObjects, objects); diff != "" {
			t.Errorf("%s: objects with the cache differ from a build (-build +cache):\n%s", step.name, diff)
		}
		if diff := cmp.Diff(wantProblems, problems); diff != "" {
			t.Errorf("%s: problems with the cache differ from a build (-build +cache):\n%s", step.name, diff)
		}
	}
}

// TestCacheIgnoresBadEntries checks that an entry that does not decode, or
// comes from another format, is rebuilt rather than used.
func TestCacheIgnoresBadEntries(t *testing.T) {
	fsys := fstest.MapFS{
		"app/kustomization.yaml": {Data: []byte(cacheKustomization)},
		"app/deploy.yaml":        {Data: []byte(cacheDeployment)},
	}
	want, _ := Build(fsys, "app", nil)
	for _, entry := range []string{
		"not json",
		`{"Format":"platc manifests cache 1","Objects":[{"Kind":"Stale"}]}`,
	} {
		cache := &cachetest.Memory{}
		cache.Put(memcache.Manifests.Key("app"), []byte(entry))
		before := kustomizeRuns.Load()
		got, _ := Build(fsys, "app", cache)
		if kustomizeRuns.Load() == before {
			t.Errorf("entry %q was used", entry)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("entry %q: (-build +cache):\n%s", entry, diff)
		}
	}
}

// TestCacheFollowsAPlainFolder builds a folder of plain manifests with a
// cache, again after each change, and checks each time that the outcome is
// Build's without a cache.
func TestCacheFollowsAPlainFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"app/a.yaml": {Data: []byte(cacheDeployment)},
	}
	cache := &cachetest.Memory{}
	for _, step := range []struct {
		name   string
		change func()
	}{
		{"first build", func() {}},
		{"a new file", func() {
			fsys["app/b.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")}
		}},
		{"a changed file", func() {
			fsys["app/a.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(cacheDeployment, "web", "api", 1))}
		}},
		{"a broken file", func() { fsys["app/b.yaml"] = &fstest.MapFile{Data: []byte("a: [")} }},
		{"a removed file", func() { delete(fsys, "app/b.yaml") }},
		{"a file skipped by its marker", func() {
			fsys["app/a.yaml"] = &fstest.MapFile{Data: []byte("# +argocd:skip-file-rendering\n" + cacheDeployment)}
		}},
		{"now a kustomization", func() {
			fsys["app/kustomization.yaml"] = &fstest.MapFile{Data: []byte("resources: [c.yaml]\n")}
			fsys["app/c.yaml"] = &fstest.MapFile{Data: []byte(cacheDeployment)}
		}},
		{"the folder gone", func() {
			for name := range fsys {
				delete(fsys, name)
			}
		}},
	} {
		step.change()
		objects, problems := Build(fsys, "app", cache)
		wantObjects, wantProblems := Build(fsys, "app", nil)
		if diff := cmp.Diff(wantObjects, objects); diff != "" {
			t.Errorf("%s: objects with the cache differ from a build (-build +cache):\n%s", step.name, diff)
		}
		if diff := cmp.Diff(wantProblems, problems); diff != "" {
			t.Errorf("%s: problems with the cache differ from a build (-build +cache):\n%s", step.name, diff)
		}
	}
	if cache.Len() != 1 {
		t.Errorf("the cache has %d entries, want the folder's one", cache.Len())
	}
}

// TestCacheEntriesBoundToTheirFolder builds two folders with different
// outcomes, then swaps their entries, and gives them another format, and
// requires each time the outcome of a build without a cache.
func TestCacheEntriesBoundToTheirFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"good/kustomization.yaml": {Data: []byte(cacheKustomization)},
		"good/deploy.yaml":        {Data: []byte(cacheDeployment)},
		"bad/cm.yaml":             {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")}, // no metadata.name
	}
	folders := []string{"good", "bad"}
	check := func(what string, cache *cachetest.Memory) {
		t.Helper()
		for _, dir := range folders {
			wantObjects, wantProblems := Build(fsys, dir, nil)
			objects, problems := Build(fsys, dir, cache)
			if diff := cmp.Diff(wantObjects, objects); diff != "" {
				t.Errorf("%s: %s: objects with the cache differ from a build (-build +cache):\n%s", what, dir, diff)
			}
			if diff := cmp.Diff(wantProblems, problems); diff != "" {
				t.Errorf("%s: %s: problems with the cache differ from a build (-build +cache):\n%s", what, dir, diff)
			}
		}
	}
	fill := func() *cachetest.Memory {
		cache := &cachetest.Memory{}
		for _, dir := range folders {
			Build(fsys, dir, cache)
		}
		return cache
	}

	cache := fill()
	cache.Swap(memcache.Manifests.Key("good"), memcache.Manifests.Key("bad"))
	check("entries swapped", cache)

	// What a store of another kind might answer: an entry of another
	// format, or one cut short. Each is a miss: built again, and its
	// entry written again. (Bytes changed in a store are the store's to
	// catch: compiler/cli's TestDirCacheBindsEntries.)
	for what, edit := range map[string]func([]byte) []byte{
		"an older format": func(b []byte) []byte {
			return bytes.Replace(b, []byte(memcache.Manifests.Layout()), []byte("platc manifests 0\n"), 1)
		},
		"the JSON of format 4": func([]byte) []byte {
			return []byte(`{"Format":"platc manifests cache 4","Dir":"good","Objects":[]}`)
		},
		"cut in half":     func(b []byte) []byte { return b[:len(b)/2] },
		"cut by one byte": func(b []byte) []byte { return b[:len(b)-1] },
		"a byte more":     func(b []byte) []byte { return append(slices.Clone(b), 0) },
	} {
		cache = fill()
		want := map[string][]byte{}
		for _, dir := range folders {
			want[dir], _ = cache.Get(memcache.Manifests.Key(dir))
			cache.Edit(memcache.Manifests.Key(dir), edit)
		}
		puts := cache.Puts()
		check(what, cache)
		for _, dir := range folders {
			if got, _ := cache.Get(memcache.Manifests.Key(dir)); !bytes.Equal(got, want[dir]) {
				t.Errorf("%s: %s: the entry is not written again", what, dir)
			}
		}
		if n := cache.Puts() - puts; n != len(folders) {
			t.Errorf("%s: %d entries written, want %d", what, n, len(folders))
		}
	}
}

// TestCacheEntryCodec checks that an entry reads back as it was written,
// nil lists told from empty ones and lines past the entry's last byte, and
// that no cut entry, nor one with a byte more or an id this platc does not
// know, reads as one.
func TestCacheEntryCodec(t *testing.T) {
	for _, e := range []*cacheEntry{
		{Dir: "apps/web", Reads: []read{{Op: opReadFile, Name: "apps/web/a.yaml", Saw: "e3b0"}},
			Objects:  []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", Namespace: "n", File: "apps/web/a.yaml", Line: 3}},
			Problems: []Problem{{ID: diag.Missing, File: "apps/web/b.yaml", Line: 100000, Msg: "m"}}},
		{},
		{Reads: []read{}, Objects: []Object{}, Problems: []Problem{}},
	} {
		data := encodeEntry(e)
		got, err := decodeEntry(data)
		if err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
		if diff := cmp.Diff(e, got, cmp.AllowUnexported(read{})); diff != "" {
			t.Errorf("read back (-wrote +read):\n%s", diff)
		}
		for i := range data {
			if _, err := decodeEntry(data[:i]); err == nil {
				t.Errorf("%+v: %d of %d bytes read as an entry", e, i, len(data))
			}
		}
		if _, err := decodeEntry(append(data, 0)); err == nil {
			t.Errorf("%+v: a byte more reads as an entry", e)
		}
	}
	data := encodeEntry(&cacheEntry{Problems: []Problem{{ID: diag.Missing}}})
	if _, err := decodeEntry(bytes.Replace(data, []byte(diag.Missing.String()), []byte(strings.ToUpper(diag.Missing.String())), 1)); err == nil {
		t.Error("an unknown id reads as an entry")
	}
}

// TestBuildReadFolders: the folders a build read are its own, its bases'
// and components' (a sibling whose name extends another's kept apart),
// the same from the cache as from a build, and unknown where the build
// has problems.
func TestBuildReadFolders(t *testing.T) {
	deployment := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")}
	}
	fsys := fstest.MapFS{
		"m/base/kustomization.yaml":           {Data: []byte("resources: [cm.yaml]\n")},
		"m/base/cm.yaml":                      deployment("base"),
		"m/base-extra/kustomization.yaml":     {Data: []byte("resources: [cm.yaml]\n")},
		"m/base-extra/cm.yaml":                deployment("extra"),
		"m/app/kustomization.yaml":            {Data: []byte("resources: [../base, ../base-extra, sub/cm.yaml]\n")},
		"m/app/sub/cm.yaml":                   deployment("sub"),
		"m/unread/cm.yaml":                    deployment("unread"),
		"m/broken/kustomization.yaml":         {Data: []byte("resources: [../nowhere]\n")},
		"m/plain/cm.yaml":                     deployment("plain"),
		"m/plain/not-a-manifest.txt":          {Data: []byte("x")},
		"m/plain/nested/kustomization.yaml":   {Data: []byte("resources: []\n")},
		"m/plain/nested/not-read-either.yaml": deployment("nested"),
	}
	cache := &cachetest.Memory{}
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{"m/app", []string{"m/app", "m/base", "m/base-extra"}},
		{"m/plain", []string{"m/plain"}},
		{"m/broken", nil},
	} {
		for _, from := range []string{"a build", "the cache"} {
			if got := BuildRead(fsys, c.dir, cache).Folders; !slices.Equal(got, c.want) {
				t.Errorf("%s, from %s: read %q, want %q", c.dir, from, got, c.want)
			}
		}
		if got := BuildRead(fsys, c.dir, nil).Folders; !slices.Equal(got, c.want) {
			t.Errorf("%s, without a cache: read %q, want %q", c.dir, got, c.want)
		}
	}
}
