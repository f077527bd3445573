package importer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// What repositories that nobody here wrote say, as a new user imports
// them: their own URL spelled otherwise than the clone's origin, charts
// kept in the repository with values files beside them, app-of-apps
// inside the folders imported, AppProjects with Argo CD's finalizer.

// build reads the roots of fsys and builds the spec, as platc import
// does.
func build(t *testing.T, fsys fstest.MapFS, opts Options, roots ...Root) *Spec {
	t.Helper()
	objs, _, err := Read(fsys, roots)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := Read(fsys, []Root{{Path: ".", Projects: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		if o.Kind == "AppProject" {
			objs = append(objs, o)
		}
	}
	var envs []string
	for _, r := range roots {
		if !slices.Contains(envs, r.Env) {
			envs = append(envs, r.Env)
		}
	}
	opts.Roots = roots
	return Build(fsys, objs, envs, opts)
}

// notImported lists the objects not imported, with their reasons.
func notImported(s *Spec) []string {
	var out []string
	for _, k := range s.NotImported {
		out = append(out, k.Kind+" "+k.Name+": "+k.Reason)
	}
	return out
}

func appYAML(name, src string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\nspec:\n  project: default\n  source: " + src + "\n  destination: {server: https://kubernetes.default.svc, namespace: web}\n"
}

func TestRepoKeyIsOneRepository(t *testing.T) {
	same := []string{
		"https://github.com/Org/Repo", "https://github.com/org/repo.git", "https://github.com/org/repo/",
		"git@github.com:org/repo.git", "ssh://git@github.com/org/repo", "https://user@github.com/org/repo",
	}
	for _, u := range same {
		if got := repoKey(u); got != "github.com/org/repo" {
			t.Errorf("repoKey(%q) = %q, want github.com/org/repo", u, got)
		}
	}
	if repoKey("https://github.com/org/other") == repoKey("https://github.com/org/repo") {
		t.Error("two repositories have one key")
	}
}

// TestBuildSpellsTheRepositoryAsItsApplications: the origin remote ends
// in .git (or is SSH) where the Applications name the repository without
// it. Their folders are this repository's, read and checked, and the spec
// says the repository as they do.
func TestBuildSpellsTheRepositoryAsItsApplications(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/web.yaml":            {Data: []byte(appYAML("web", "{repoURL: https://github.com/org/repo, path: manifests/web, targetRevision: HEAD}"))},
		"apps/api.yaml":            {Data: []byte(appYAML("api", "{repoURL: https://github.com/org/repo.git, path: ./manifests/api/}"))},
		"manifests/web/cm.yaml":    {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")},
		"manifests/api/cm.yaml":    {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\n")},
		"manifests/api/values.yml": {Data: []byte("a: 1\n")},
	}
	for _, origin := range []string{"https://github.com/org/repo.git", "git@github.com:org/repo.git"} {
		s := build(t, fsys, Options{RepoURL: origin}, Root{Env: "prod", Path: "apps"})
		if s.RepoURL != "https://github.com/org/repo" {
			t.Errorf("origin %s: platform repoURL %q, want the Applications' spelling", origin, s.RepoURL)
		}
		modules := string(s.Files["modules.cue"])
		if strings.Contains(modules, "repoURL") || !strings.Contains(modules, `path:            "manifests/api"`) {
			t.Errorf("origin %s: the folders are not this repository's:\n%s", origin, modules)
		}
	}
}

// TestBuildJoinsAChartsValueFiles: a chart kept in Git names its values
// files from its folder; the spec names them from the repository's root.
func TestBuildJoinsAChartsValueFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/web.yaml":                 {Data: []byte(appYAML("web", "{repoURL: https://git.example.com/home.git, path: charts/web, helm: {valueFiles: [values.yaml, ../common.yaml]}}"))},
		"apps/other.yaml":               {Data: []byte(appYAML("other", "{repoURL: https://git.example.com/charts.git, path: web, helm: {valueFiles: [prod.yaml]}}"))},
		"apps/remote.yaml":              {Data: []byte(appYAML("remote", "{repoURL: https://git.example.com/charts.git, path: web, helm: {valueFiles: ['https://example.com/v.yaml']}}"))},
		"charts/web/Chart.yaml":         {Data: []byte("apiVersion: v2\nname: web\nversion: 1.0.0\n")},
		"charts/web/values.yaml":        {Data: []byte("a: 1\n")},
		"charts/common.yaml":            {Data: []byte("b: 1\n")},
		"charts/web/templates/cm.yaml":  {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")},
		"charts/web/templates/NOTES.md": {Data: []byte("x")},
	}
	s := build(t, fsys, Options{RepoURL: "https://git.example.com/home.git"}, Root{Env: "prod", Path: "apps"})
	modules := string(s.Files["modules.cue"])
	for _, want := range []string{`valueFiles: ["charts/web/values.yaml", "charts/common.yaml"]`, `valueFiles: ["web/prod.yaml"]`} {
		if !strings.Contains(modules, want) {
			t.Errorf("no %s in:\n%s", want, modules)
		}
	}
	want := []string{`Application remote: values file "https://example.com/v.yaml": the spec says values files of the chart's repository, by path, not yet this`}
	if got := notImported(s); !slices.Equal(got, want) {
		t.Errorf("not imported:\n%q\nwant:\n%q", got, want)
	}
}

// TestBuildFindsAppsOfAppsInside: the folder imported holds the root
// Application, which syncs the repository's root (no path), and
// app-of-apps of its sub-folders beside what they create. Each is
// replaced by platc's root, outermost first; a folder of plain manifests
// inside is a module's.
func TestBuildFindsAppsOfAppsInside(t *testing.T) {
	const home = "https://git.example.com/home.git"
	fsys := fstest.MapFS{
		"root.yaml":                 {Data: []byte(appYAML("root", "{repoURL: "+home+", directory: {recurse: true}}"))},
		"apps/apps.yaml":            {Data: []byte(appYAML("team-apps", "{repoURL: "+home+", path: apps/team}") + "---\n" + appYAML("projects", "{repoURL: "+home+", path: projects}"))},
		"apps/team/web.yaml":        {Data: []byte(appYAML("web", "{repoURL: "+home+", path: manifests/web}"))},
		"apps/team/sub/deep.yaml":   {Data: []byte(appYAML("deep", "{repoURL: "+home+", path: manifests/web}"))},
		"apps/team/secret.yaml":     {Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")},
		"projects/team.yaml":        {Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team, namespace: argocd, finalizers: [resources-finalizer.argocd.argoproj.io]}\nspec: {sourceRepos: ['*'], destinations: [{server: '*', namespace: '*'}]}\n")},
		"manifests/web/deploy.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")},
	}
	s := build(t, fsys, Options{RepoURL: home}, Root{Env: "prod", Path: "."})
	var got []string
	for _, a := range s.AppsOfApps {
		got = append(got, fmt.Sprintf("%s %d %s: %s; %s", a.Name, a.Depth, a.Folder, strings.Join(a.Children, ", "), strings.Join(a.Manifests, ", ")))
	}
	want := []string{
		"root 0 .: deep, projects, root, team-apps, web; ConfigMap web, Secret s",
		"projects 1 projects: AppProject team; ",
		"team-apps 1 apps/team: web; Secret s",
	}
	if !slices.Equal(got, want) {
		t.Errorf("app-of-apps:\n%q\nwant:\n%q", got, want)
	}
	// deep and web are modules; the project keeps Argo CD's finalizer.
	if m := string(s.Files["modules.cue"]); !strings.Contains(m, "deep:") || !strings.Contains(m, "web:") {
		t.Errorf("modules:\n%s", m)
	}
	if e := string(s.Files["environments.cue"]); !strings.Contains(e, "keepWhileUsed: true") {
		t.Errorf("environments:\n%s", e)
	}
}

// TestBuildDropsProjectsNothingNames: an AppProject found elsewhere in the
// repository for an Application that is not imported after all (its
// folder is missing) is not the spec's: the folder that holds it keeps
// delivering it.
func TestBuildDropsProjectsNothingNames(t *testing.T) {
	const home = "https://git.example.com/home.git"
	fsys := fstest.MapFS{
		"apps/web.yaml":           {Data: []byte(strings.Replace(appYAML("web", "{repoURL: "+home+", path: missing}"), "project: default", "project: team", 1))},
		"apps/api.yaml":           {Data: []byte(appYAML("api", "{repoURL: "+home+", path: manifests/api}"))},
		"manifests/api/cm.yaml":   {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\n")},
		"manifests/projects.yaml": {Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team, namespace: argocd}\nspec: {sourceRepos: ['*'], destinations: [{server: '*', namespace: '*'}]}\n")},
	}
	s := build(t, fsys, Options{RepoURL: home}, Root{Env: "prod", Path: "apps"})
	for _, o := range s.Imported {
		if o.Kind == "AppProject" {
			t.Errorf("AppProject %s imported, which no imported Application names", o.Name)
		}
	}
	if e := string(s.Files["environments.cue"]); strings.Contains(e, "team") {
		t.Errorf("environments:\n%s", e)
	}
}

// TestBuildSyncsAnotherRepositorysRoot: the root folder of another
// repository is a module's ("."), as Argo CD syncs it; this repository's
// root is not (platc's output is there).
func TestBuildSyncsAnotherRepositorysRoot(t *testing.T) {
	const home = "https://git.example.com/home.git"
	fsys := fstest.MapFS{
		"apps/other.yaml": {Data: []byte(appYAML("other", "{repoURL: https://git.example.com/other.git, path: ./, targetRevision: main}"))},
		"apps/home.yaml":  {Data: []byte(appYAML("home", "{repoURL: "+home+", path: ./}"))},
	}
	s := build(t, fsys, Options{RepoURL: home}, Root{Env: "prod", Path: "apps"})
	if m := string(s.Files["modules.cue"]); !strings.Contains(m, `path:            "."`) {
		t.Errorf("modules:\n%s", m)
	}
	want := []string{`Application home: syncs the repository's root folder (path "./"): platc syncs a folder inside it`}
	if got := notImported(s); !slices.Equal(got, want) {
		t.Errorf("not imported:\n%q\nwant:\n%q", got, want)
	}
}

// TestNormalizeReadsGitSourcesAsArgoCD: a Git source's repository and
// folder as Argo CD reads them.
func TestNormalizeReadsGitSourcesAsArgoCD(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []string
	}{
		{name: "a folder with ./ and a trailing slash", a: "spec:\n  source: {repoURL: r, path: ./apps/web/}\n", b: "spec:\n  source: {repoURL: r, path: apps/web}\n"},
		{name: "the root, written three ways", a: "spec:\n  source: {repoURL: r, path: ./}\n", b: "spec:\n  source: {repoURL: r}\n"},
		{name: "the root and a folder", a: "spec:\n  source: {repoURL: r, path: .}\n", b: "spec:\n  source: {repoURL: r, path: apps}\n", want: []string{"spec.source.path"}},
		{name: ".git and case", a: "spec:\n  source: {repoURL: https://GitHub.com/o/r.git, path: p}\n", b: "spec:\n  source: {repoURL: https://github.com/o/r, path: p}\n"},
		{name: "SSH is another repository to Argo CD", a: "spec:\n  source: {repoURL: 'git@github.com:o/r.git', path: p}\n", b: "spec:\n  source: {repoURL: https://github.com/o/r, path: p}\n", want: []string{"spec.source.repoURL"}},
		{name: "a chart's repository as written", a: "spec:\n  source: {repoURL: https://charts.example.com/, chart: c}\n", b: "spec:\n  source: {repoURL: https://charts.example.com, chart: c}\n", want: []string{"spec.source.repoURL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Normalize(application(t, tt.a), "argocd")
			b := Normalize(application(t, tt.b), "argocd")
			if got := diffPaths("", a, b); !slices.Equal(got, tt.want) {
				t.Errorf("differ at %q, want %q\na: %v\nb: %v", got, tt.want, a, b)
			}
		})
	}
}
