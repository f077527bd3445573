package charts

import (
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"
)

// testdata/deps was written by Helm's command at v4.3.1 (v4.3.2, the
// Helm platc renders with, changed nothing of it: its changes are the
// registry client's transport and help texts) and is read here as a repository: web names lib (file://../lib) and
// podinfo (a chart repository on loopback, over https), with a version
// range, a condition, tags, an alias and import-values. Helm wrote
// web/Chart.lock (helm dependency update web), and
// helm-template.yaml (helm dependency build web, then helm template web
// web --namespace shop --kube-version 1.37.2 --include-crds);
// archives/podinfo-6.4.0.tgz is the archive it downloaded.
const (
	depsRepo    = "https://127.0.0.1:18443"
	depsArchive = "testdata/deps/archives/podinfo-6.4.0.tgz"
)

// depsFS is testdata/deps as a repository, with the files of edits
// replaced (a nil edit removes the file).
func depsFS(t *testing.T, edits map[string]*string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("testdata/deps"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile("testdata/deps/" + p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range edits {
		if s == nil {
			delete(m, p)
		} else {
			m[p] = &fstest.MapFile{Data: []byte(*s)}
		}
	}
	return m
}

// mapArchives is a chart cache in memory.
type mapArchives map[string][]byte

func (a mapArchives) Archive(digest string) ([]byte, bool) {
	data, ok := a[digest]
	return data, ok
}

// depsRenderer renders the charts of repo with podinfo locked and in the
// cache.
func depsRenderer(t *testing.T, repo fs.FS) *Renderer {
	t.Helper()
	archive, err := os.ReadFile(depsArchive)
	if err != nil {
		t.Fatal(err)
	}
	d := Digest(archive)
	return &Renderer{
		Repo:     repo,
		Lock:     &Lock{Charts: []Entry{{Name: "podinfo", RepoURL: depsRepo, Chart: "podinfo", Version: "6.4.0", Digest: d}}},
		Archives: mapArchives{d: archive},
	}
}

var depsRequest = Request{Release: "web", Namespace: "shop", KubeVersion: "1.37.2"}

// TestBuildRendersAsHelm: a chart folder whose charts/ lacks its
// dependencies renders, built from its Chart.lock (lib packed from its
// folder, podinfo from the lock's archive), as Helm renders it after
// helm dependency build: the same objects from the same templates, in
// the same order.
func TestBuildRendersAsHelm(t *testing.T) {
	r := depsRenderer(t, depsFS(t, nil))
	out, chart, err := r.RenderFolder("web", depsRequest)
	if err != nil || out == nil {
		t.Fatalf("RenderFolder: %v, %v, notes %q", out, err, folderNotes(r))
	}
	if out.Error != "" {
		t.Fatal(out.Error)
	}
	data, err := os.ReadFile("testdata/deps/helm-template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type object struct {
		Source string
		Object map[string]any
	}
	var want []object
	for _, doc := range strings.Split(string(data), "\n---\n") {
		doc = strings.TrimPrefix(doc, "---\n")
		source, _, _ := strings.Cut(strings.TrimPrefix(doc, "# Source: "), "\n")
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if len(obj) > 0 {
			want = append(want, object{source, obj})
		}
	}
	ms, err := out.Manifests()
	if err != nil {
		t.Fatal(err)
	}
	var got []object
	for _, m := range ms {
		got = append(got, object{m.Source, m.Object})
	}
	if len(want) < 5 {
		t.Fatalf("helm-template.yaml holds %d objects", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the built chart renders\n%v\nHelm rendered\n%v", got, want)
	}
	ch, err := chart()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ch.helm.Dependencies()); n != 2 {
		t.Errorf("the built chart has %d dependencies, want 2", n)
	}
	if folderNotes(r) != nil {
		t.Errorf("notes of a built chart: %q", folderNotes(r))
	}
}

// TestBuildAsHelmBuilds: what helm dependency build says of a folder,
// with the files of each case changed: Helm's errors (its words), what
// keeps platc from rendering it (a note), or nothing to build.
func TestBuildAsHelmBuilds(t *testing.T) {
	chartYAML, err := os.ReadFile("testdata/deps/web/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lockYAML, err := os.ReadFile("testdata/deps/web/Chart.lock")
	if err != nil {
		t.Fatal(err)
	}
	replace := func(s, old, new string) *string {
		if !strings.Contains(s, old) {
			t.Fatalf("%q is not in\n%s", old, s)
		}
		r := strings.ReplaceAll(s, old, new)
		return &r
	}
	// relock writes Chart.lock for Chart.yaml edited, as Helm would.
	relock := func(chartYAML, lock string) *string {
		ch, err := loader.LoadFiles([]*archive.BufferedFile{{Name: "Chart.yaml", Data: []byte(chartYAML)}, {Name: "Chart.lock", Data: []byte(lock)}})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := hashReq(ch.Metadata.Dependencies, ch.Lock.Dependencies)
		if err != nil {
			t.Fatal(err)
		}
		return replace(lock, "sha256:298658c9a2f419f1b55f1ffdea1036aace9f585cff5c8ea9a9e49e9a341f4377", sum)
	}
	ch, lock := string(chartYAML), string(lockYAML)
	httpChart := *replace(ch, depsRepo, "http://127.0.0.1:18443")
	oldLib := *replace(lock, "version: 0.1.0", "version: 0.2.0")
	libYAML := "apiVersion: v2\nname: lib\nversion: 0.1.0\n"
	libArchive := string(BuildArchive("lib", map[string][]byte{"Chart.yaml": []byte(libYAML)}))
	str := func(s string) *string { return &s }
	outChart := *replace(ch, "file://../lib", "file://../../lib")
	for _, c := range []struct {
		name  string
		edits map[string]*string
		// err is Helm's error; note what UnbuiltFolders says; neither
		// where the chart renders.
		err, note string
	}{
		{name: "as Helm locked it"},
		{name: "Chart.yaml changed after the lock", edits: map[string]*string{"web/Chart.yaml": replace(ch, `">=6.0.0"`, `">=6.1.0"`)},
			err: "error building helm chart dependencies: the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies with 'helm dependency update'"},
		{name: "a repository Argo CD does not add", edits: map[string]*string{"web/Chart.yaml": &httpChart, "web/Chart.lock": relock(httpChart, *replace(lock, depsRepo, "http://127.0.0.1:18443"))},
			err: "error building helm chart dependencies: no repository definition for http://127.0.0.1:18443. Please add the missing repos via 'helm repo add'"},
		{name: "a file:// folder at another version", edits: map[string]*string{"web/Chart.lock": relock(ch, oldLib)},
			err: "error building helm chart dependencies: can't get a valid version for dependency lib"},
		{name: "a file:// folder that is not there", edits: map[string]*string{"lib/Chart.yaml": nil, "lib/templates/cm.yaml": nil},
			err: "error building helm chart dependencies: directory lib not found"},
		{name: "a file:// folder outside the repository", edits: map[string]*string{"web/Chart.yaml": &outChart, "web/Chart.lock": relock(outChart, *replace(lock, "file://../lib", "file://../../lib"))},
			err: "error building helm chart dependencies: web/Chart.yaml: dependency lib names file://../../lib, the folder ../lib, which is outside the repository: Argo CD's repo server has the repository alone; move the chart into the repository and name its folder from web"},
		{name: "no Chart.lock", edits: map[string]*string{"web/Chart.lock": nil},
			note: "the chart in web is not rendered: it has no Chart.lock, so Argo CD resolves the versions of its dependencies when it renders it (helm dependency update, online); run helm dependency update in web and commit Chart.lock, then platc charts pull"},
		{name: "a repository alias", edits: map[string]*string{"web/Chart.yaml": replace(ch, depsRepo, `"@local"`)},
			note: "the chart in web is not rendered: Chart.yaml names the repository of dependency podinfo by its alias @local, which Argo CD resolves from its own repository settings, not known offline; write the repository's URL there to have it checked"},
		// Every dependency in charts/: Argo CD builds nothing (a
		// Chart.lock out of sync is not read).
		{name: "vendored", edits: map[string]*string{
			"web/Chart.yaml":               replace(ch, `">=6.0.0"`, `">=6.1.0"`),
			"web/charts/lib-0.1.0.tgz":     &libArchive,
			"web/charts/podinfo-6.4.0.tgz": str(string(mustRead(t, depsArchive))),
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := depsRenderer(t, depsFS(t, c.edits))
			out, _, err := r.RenderFolder("web", depsRequest)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(folderNotes(r), "\n")
			if notes != c.note {
				t.Errorf("notes:\n%s\nwant\n%s", notes, c.note)
			}
			if c.note != "" {
				if out != nil {
					t.Errorf("a chart with a note is rendered: %+v", out)
				}
				return
			}
			if out == nil {
				t.Fatal("not rendered")
			}
			if out.Error != c.err {
				t.Errorf("error:\n%s\nwant\n%s", out.Error, c.err)
			}
		})
	}
}

// TestBuildReplacesOutdatedArchives: the build deletes a chart archive of
// charts/ that the lock does not name (an older version) and adds the
// lock's; a folder of charts/ stays.
func TestBuildReplacesOutdatedArchives(t *testing.T) {
	old := string(BuildArchive("podinfo", map[string][]byte{
		"Chart.yaml":        []byte("apiVersion: v2\nname: podinfo\nversion: 6.3.0\n"),
		"templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outdated\n"),
	}))
	extra := "apiVersion: v2\nname: extra\nversion: 1.0.0\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
	r := depsRenderer(t, depsFS(t, map[string]*string{
		"web/charts/podinfo-6.3.0.tgz":           &old,
		"web/charts/extra/Chart.yaml":            &extra,
		"web/charts/extra/templates/config.yaml": &cm,
	}))
	out, _, err := r.RenderFolder("web", depsRequest)
	if err != nil || out == nil || out.Error != "" {
		t.Fatalf("%v %+v", err, out)
	}
	var names []string
	for _, h := range out.Heads() {
		names = append(names, h.Name)
	}
	got := strings.Join(names, " ")
	if strings.Contains(got, "outdated") || !strings.Contains(got, "extra") || !strings.Contains(got, "web-info") {
		t.Errorf("objects: %s", got)
	}
}

// TestBuildNotes: a dependency the lock does not name, or whose archive
// neither the cache nor the vendor folder holds, keeps the chart from
// rendering, and the note says which and what to run; a vendored archive
// that is not the locked one is an error naming both digests.
func TestBuildNotes(t *testing.T) {
	repo := depsFS(t, nil)
	r := depsRenderer(t, repo)
	r.Lock = nil
	if out, _, err := r.RenderFolder("web", depsRequest); out != nil || err != nil {
		t.Fatalf("rendered without a lock: %+v %v", out, err)
	}
	if got, want := strings.Join(folderNotes(r), "\n"), "the chart in web is not rendered: its dependency podinfo 6.4.0 of https://127.0.0.1:18443 is not locked, since sources has no charts.lock; run platc charts pull (it uses the network) to lock and fetch it"; got != want {
		t.Errorf("no lock:\n%s\nwant\n%s", got, want)
	}
	r = depsRenderer(t, repo)
	r.Lock.Charts[0].Version = "6.3.0"
	r.RenderFolder("web", depsRequest)
	if got, want := strings.Join(folderNotes(r), "\n"), "the chart in web is not rendered: its dependency podinfo 6.4.0 of https://127.0.0.1:18443 is not locked in sources/charts.lock; run platc charts pull (it uses the network) to lock and fetch it"; got != want {
		t.Errorf("not locked:\n%s\nwant\n%s", got, want)
	}
	r = depsRenderer(t, repo)
	r.Archives = nil
	r.RenderFolder("web", depsRequest)
	if got, want := strings.Join(folderNotes(r), "\n"), "the chart in web is not rendered: its dependency podinfo 6.4.0 of https://127.0.0.1:18443 is locked, but neither platc's cache nor sources/charts/vendor holds it; run platc charts pull (it uses the network), or platc charts vendor where it is cached"; got != want {
		t.Errorf("missing:\n%s\nwant\n%s", got, want)
	}
	r = depsRenderer(t, repo)
	r.Archives, r.VendorName = nil, "sources/charts/vendor"
	r.Vendor = fstest.MapFS{"podinfo-6.4.0.tgz": {Data: []byte("not it")}}
	out, _, err := r.RenderFolder("web", depsRequest)
	if out != nil || err == nil || !strings.Contains(err.Error(), "dependency podinfo 6.4.0 of https://127.0.0.1:18443 of the chart in web: sources/charts/vendor/podinfo-6.4.0.tgz is not the archive locked for podinfo 6.4.0: its digest is "+Digest([]byte("not it"))) {
		t.Errorf("a tampered vendored archive: %+v, %v", out, err)
	}
}

// TestFolderDependencies: what platc charts pull locks for a folder: the
// lock's dependencies from chart repositories, where Argo CD builds.
func TestFolderDependencies(t *testing.T) {
	deps, why := FolderDependencies(depsFS(t, nil), "web")
	if want := []Dependency{{Folder: "web", Name: "podinfo", Repository: depsRepo, Version: "6.4.0"}}; !reflect.DeepEqual(deps, want) || why != "" {
		t.Errorf("FolderDependencies = %v, %q", deps, why)
	}
	libArchive := string(BuildArchive("lib", map[string][]byte{"Chart.yaml": []byte("apiVersion: v2\nname: lib\nversion: 0.1.0\n")}))
	podinfo := string(mustRead(t, depsArchive))
	if deps, why := FolderDependencies(depsFS(t, map[string]*string{"web/charts/lib-0.1.0.tgz": &libArchive, "web/charts/podinfo-6.4.0.tgz": &podinfo}), "web"); deps != nil || why != "" {
		t.Errorf("every dependency in charts/: %v, %q", deps, why)
	}
	if deps, why := FolderDependencies(depsFS(t, map[string]*string{"web/Chart.lock": nil}), "web"); deps != nil || !strings.HasPrefix(why, "it has no Chart.lock") {
		t.Errorf("no Chart.lock: %v, %q", deps, why)
	}
}

// TestRenderLeavesTheChart: Helm processes a chart's dependencies in
// place (a disabled subchart removed); a render must not change what the
// next one renders.
func TestRenderLeavesTheChart(t *testing.T) {
	ch, err := LoadArchive(BuildArchive("web", map[string][]byte{
		"Chart.yaml":                   []byte("apiVersion: v2\nname: web\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  condition: extra.enabled\n  alias: extra\n"),
		"values.yaml":                  []byte("extra:\n  enabled: true\n"),
		"charts/sub/Chart.yaml":        []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
		"charts/sub/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\n"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		values string
		want   int
	}{{`{"extra": {"enabled": false}}`, 0}, {``, 1}, {`{"extra": {"enabled": false}}`, 0}, {``, 1}} {
		out := Render(ch, Request{Release: "a", Namespace: "n", ValuesObject: []byte(c.values)})
		if out.Error != "" || out.Len() != c.want {
			t.Errorf("render %d (%s): %d objects, %q; want %d", i, c.values, out.Len(), out.Error, c.want)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// folderNotes are r's notes of the chart folders it could not build.
func folderNotes(r *Renderer) []string {
	_, notes := r.UnbuiltFolders("sources")
	return notes
}
