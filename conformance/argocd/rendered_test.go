package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apppath "github.com/argoproj/argo-cd/v3/util/app/path"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/security"
	"github.com/argoproj/argo-cd/v3/util/settings"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
)

// repos are what platc renders: the sample (the repository root) and
// every golden case that renders.
func repos(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := []string{root}
	entries, err := os.ReadDir(filepath.Join(root, "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(root, "golden", e.Name()))
		}
	}
	return out
}

// TestRenderedAccepted runs Argo CD's own rules over everything platc
// renders, Applications kro will create included: every AppProject passes
// ValidateProject, and every Application passes ValidatePermissions (its
// sources and destination against its project, with the clusters Argo CD
// knows), its refs and source types, its namespace (application.namespaces
// as rendered, and its project's sourceNamespaces), and the Namespace kind
// where it creates its namespace.
func TestRenderedAccepted(t *testing.T) {
	objects, rendered := 0, 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		if res.Log.HasErrors() {
			if _, err := os.Stat(filepath.Join(repo, "sources")); err == nil && strings.Contains(filepath.Base(repo), "error-") {
				continue // a negative golden case: platc refuses it
			}
			t.Fatalf("%s does not compile: %s", repo, res.Log)
		}
		rendered++
		files := map[string][]byte{}
		for _, o := range res.Outputs {
			files[o.Path] = o.Data
		}
		for _, env := range res.Spec.Environments {
			objects += checkEnvironment(t, repo, res, env, files)
		}
	}
	if rendered < 4 {
		t.Fatalf("only %d repositories render: the sample and the positive golden cases should", rendered)
	}
	t.Logf("Argo CD accepts all %d objects of %d renders", objects, rendered)
}

func checkEnvironment(t *testing.T, repo string, res *compiler.Result, env *model.Environment, files map[string][]byte) int {
	t.Helper()
	p := &res.Spec.Platform
	argoNS := p.ArgoCDNamespace
	inEnv := func(f string) bool {
		return strings.HasPrefix(f, path.Join(p.OutDir, render.ClusterDir(env.Name))+"/") || f == path.Join(p.OutDir, render.RootFile(p, env.Name))
	}
	projects := map[string]*v1alpha1.AppProject{
		// As Argo CD creates it (server/server.go initializeDefaultProject).
		"default": {ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: argoNS}, Spec: v1alpha1.AppProjectSpec{
			SourceRepos: []string{"*"}, Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "*"}},
			ClusterResourceWhitelist: []v1alpha1.ClusterResourceRestrictionItem{{Group: "*", Kind: "*"}},
		}},
	}
	var apps []*v1alpha1.Application
	var where []string
	objects := 0
	for f, data := range files {
		if !inEnv(f) || !strings.HasSuffix(f, ".yaml") {
			continue
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var head struct{ Kind string }
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s: %s: %v", repo, f, err)
			}
			switch head.Kind {
			case "AppProject":
				var proj v1alpha1.AppProject
				mustDecode(t, doc, &proj)
				if err := proj.ValidateProject(); err != nil {
					t.Errorf("%s: %s: Argo CD refuses AppProject %s: %v", repo, f, proj.Name, err)
				}
				projects[proj.Name] = &proj
				objects++
			case "Application":
				var app v1alpha1.Application
				mustDecode(t, doc, &app)
				apps, where = append(apps, &app), append(where, f)
			}
		}
	}
	// The Applications kro will create, evaluated offline.
	for _, inst := range res.Stacks.Instances {
		if inst.Env != env {
			continue
		}
		prev, err := res.Stacks.PreviewInstance(inst.Stack.Model.Name, inst.Client.Name, env.Name)
		if err != nil {
			t.Fatalf("%s: preview of %s for %s in %s: %v", repo, inst.Stack.Model.Name, inst.Client.Name, env.Name, err)
		}
		for _, r := range prev.Resources {
			if r.Kind != "Application" || r.Object == nil {
				continue
			}
			data, err := json.Marshal(object.Plain(r.Object))
			if err != nil {
				t.Fatal(err)
			}
			var app v1alpha1.Application
			mustDecode(t, data, &app)
			apps, where = append(apps, &app), append(where, "created by kro for "+inst.Client.Name)
		}
	}
	var appNamespaces []string
	if data, ok := files[path.Join(p.OutDir, render.ArgoCDValuesFile(p, env.Name))]; ok {
		var values struct {
			Configs struct {
				Params map[string]string `json:"params"`
			} `json:"configs"`
		}
		mustDecode(t, data, &values)
		if s := values.Configs.Params[argocd.ApplicationNamespacesKey]; s != "" {
			appNamespaces = strings.Split(s, ",")
		}
	}
	db := clusterDB{clusters: []argocd.Cluster{argocd.InCluster}}
	// The environment's cluster and its modules' own: Argo CD's own
	// in-cluster aside, each is one Argo CD has registered.
	dests := []model.Destination{env.Destination}
	for _, m := range res.Spec.Modules {
		dests = append(dests, m.DestinationIn(env))
	}
	for i, d := range dests {
		if argocd.IsInCluster(argocd.Destination{Server: d.Server, Name: d.Name}) {
			continue
		}
		// A cluster Argo CD has registered has both; platc's spec gives
		// one, the other is made up.
		c := argocd.Cluster{Server: d.Server, Name: d.Name}
		if c.Server == "" {
			c.Server = "https://" + c.Name + ".cluster.invalid"
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("%s-cluster-%d", env.Name, i)
		}
		if !slices.ContainsFunc(db.clusters, func(k argocd.Cluster) bool { return k.Server == c.Server || k.Name == c.Name }) {
			db.clusters = append(db.clusters, c)
		}
	}
	ctx := context.Background()
	for i, app := range apps {
		objects++
		at := repo + ": " + where[i] + ": Application " + app.Namespace + "/" + app.Name
		if placeholder(app) {
			t.Logf("%s: the cluster decides part of its spec; checked as far as it is known", at)
		}
		if !argo.IsValidAppName(app.Name) {
			t.Errorf("%s: Argo CD refuses the name", at)
		}
		proj := projects[app.Spec.GetProject()]
		if proj == nil {
			t.Errorf("%s: project %s does not exist", at, app.Spec.GetProject())
			continue
		}
		conds, err := argo.ValidatePermissions(ctx, &app.Spec, proj, db)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		for _, c := range conds {
			if !rgd.HasPlaceholder(c.Message) {
				t.Errorf("%s: Argo CD refuses it: %s", at, c.Message)
			}
		}
		if _, err := argo.GetRefSources(ctx, app.Spec.GetSources(), proj.Name, func(_ context.Context, url, _ string) (*v1alpha1.Repository, error) {
			return &v1alpha1.Repository{Repo: url}, nil
		}, nil); err != nil {
			t.Errorf("%s: Argo CD refuses its sources: %v", at, err)
		}
		for _, s := range app.Spec.GetSources() {
			if _, err := s.ExplicitType(); err != nil {
				t.Errorf("%s: Argo CD refuses its source %s: %v", at, s.RepoURL, err)
			}
		}
		if app.Namespace != argoNS {
			if !security.IsNamespaceEnabled(app.Namespace, argoNS, appNamespaces) {
				t.Errorf("%s: Argo CD ignores it: application.namespaces %q does not enable namespace %s", at, appNamespaces, app.Namespace)
			}
			if !upstreamNamespacePermitted(proj, app.Namespace) {
				t.Errorf("%s: Argo CD refuses it: project %s does not list namespace %s in sourceNamespaces", at, proj.Name, app.Namespace)
			}
		}
		checkFields(t, at, app, proj, db)
		checkRefreshPaths(t, at, app, res.Spec.Platform.RepoURL, repo, res.Spec.Platform.GeneratePaths)
		if app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.SyncOptions.HasOption("CreateNamespace=true") &&
			!proj.IsGroupKindNamePermitted(schema.GroupKind{Kind: "Namespace"}, app.Spec.Destination.Namespace, false) {
			t.Errorf("%s: Argo CD cannot create namespace %s: project %s does not permit the kind Namespace", at, app.Spec.Destination.Namespace, proj.Name)
		}
	}
	return objects
}

// checkFields runs Argo CD's code on the extended fields of a rendered
// Application: its ignoreDifferences compile in the diff normalizer (and
// ask RespectIgnoreDifferences, unless the spec said otherwise), its retry
// backoff reads, and where its project names destination service
// accounts, one matches it.
func checkFields(t *testing.T, at string, app *v1alpha1.Application, proj *v1alpha1.AppProject, db clusterDB) {
	t.Helper()
	if _, err := normalizers.NewIgnoreNormalizer(app.Spec.IgnoreDifferences, nil, normalizers.IgnoreNormalizerOpts{}); err != nil {
		t.Errorf("%s: Argo CD cannot compile its ignoreDifferences: %v", at, err)
	}
	if sp := app.Spec.SyncPolicy; sp != nil && sp.Retry != nil {
		if _, err := sp.Retry.NextRetryAt(time.Unix(0, 0), 2); err != nil {
			t.Errorf("%s: Argo CD cannot schedule its retry: %v", at, err)
		}
	}
	if len(proj.Spec.DestinationServiceAccounts) > 0 {
		cluster, err := argo.GetDestinationCluster(context.Background(), app.Spec.Destination, db)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		sa, err := settings.DeriveServiceAccountToImpersonate(proj, app, cluster)
		if err != nil || sa == "" {
			t.Errorf("%s: Argo CD finds no service account to impersonate (%q, %v)", at, sa, err)
		}
	}
}

// checkRefreshPaths runs Argo CD's webhook logic on the
// manifest-generate-paths platc sets: a commit that changes a file in a
// folder the Application syncs from this repository, one of its values
// files, or any file kustomize reads to build a kustomization it syncs
// (recorded here by kustomize's own build of the folder on disk, in
// repo), refreshes it; a commit that changes only a file it does not read
// does not; and for a kustomization, every path of the annotation holds a
// file the build read (none refreshes it for nothing).
// Where the platform asks for them (generatePaths), every Application
// that reads this repository carries them.
func checkRefreshPaths(t *testing.T, at string, app *v1alpha1.Application, repoURL, repo string, generatePaths bool) {
	t.Helper()
	annotation, ok := app.Annotations[v1alpha1.AnnotationKeyManifestGeneratePaths]
	if !ok {
		if generatePaths && slices.ContainsFunc(app.Spec.GetSources(), func(s v1alpha1.ApplicationSource) bool { return s.RepoURL == repoURL }) {
			t.Errorf("%s: it reads %s and carries no manifest-generate-paths: every commit to the repository refreshes it", at, repoURL)
		}
		return
	}
	var reads, built []string
	for _, s := range app.Spec.GetSources() {
		if s.RepoURL != repoURL {
			continue
		}
		if s.Path != "" {
			if files, ok := kustomizeReads(t, repo, s.Path); ok {
				reads = append(reads, files...)
				built = append(built, files...)
			} else {
				reads = append(reads, s.Path+"/any.yaml")
			}
		}
		if s.Helm != nil {
			for _, f := range s.Helm.ValueFiles {
				if rest, ok := strings.CutPrefix(f, "$values/"); ok {
					reads = append(reads, rest)
				} else if s.Path != "" && !strings.HasPrefix(f, "$") {
					// An in-repo chart's, from its folder.
					reads = append(reads, path.Join(s.Path, f))
				}
			}
		}
	}
	if len(built) > 0 {
		for _, p := range strings.Split(annotation, ";") {
			p = strings.TrimPrefix(p, "/")
			if !slices.ContainsFunc(reads, func(f string) bool { return strings.HasPrefix(f, p+"/") }) {
				t.Errorf("%s: manifest-generate-paths %q names %s, where it reads no file: a commit there refreshes it for nothing", at, annotation, p)
			}
		}
	}
	refreshed := func(file string) bool {
		for _, s := range app.Spec.GetSources() {
			if s.RepoURL == repoURL && apppath.AppFilesHaveChanged(apppath.GetSourceRefreshPaths(app, s), []string{file}) {
				return true
			}
		}
		return false
	}
	for _, f := range reads {
		if !refreshed(f) {
			t.Errorf("%s: a commit changing %s, which it reads, would not refresh it (manifest-generate-paths %q)", at, f, app.Annotations[v1alpha1.AnnotationKeyManifestGeneratePaths])
		}
	}
	if refreshed("not-read-by-anyone/file.yaml") {
		t.Errorf("%s: a commit changing a file it does not read refreshes it (manifest-generate-paths %q)", at, app.Annotations[v1alpha1.AnnotationKeyManifestGeneratePaths])
	}
}

func mustDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding: %v\n%s", err, data)
	}
}

// placeholder reports whether kro's preview left part of the Application
// to the cluster.
func placeholder(app *v1alpha1.Application) bool {
	data, _ := json.Marshal(app)
	return rgd.HasPlaceholder(string(data))
}

// kustomizeReads builds the folder dir of repo with kustomize, as Argo CD
// does (krusty, default options, on disk), if it is a kustomization, and
// returns every file of the repository the build read, from its root.
func kustomizeReads(t *testing.T, repo, dir string) ([]string, bool) {
	t.Helper()
	isKustomization := false
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if _, err := os.Stat(filepath.Join(repo, dir, name)); err == nil {
			isKustomization = true
		}
	}
	if !isKustomization {
		return nil, false
	}
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	rec := &readingFS{FileSystem: filesys.MakeFsOnDisk()}
	if _, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(rec, filepath.Join(root, dir)); err != nil {
		t.Fatalf("kustomize cannot build %s: %v", dir, err)
	}
	var out []string
	for _, f := range rec.files {
		rel, err := filepath.Rel(root, f)
		if err == nil && !strings.HasPrefix(rel, "..") {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// readingFS is a kustomize file system that records the files it reads
// and the folders it lists (as a file "any.yaml" in each: a file made
// there would be seen).
type readingFS struct {
	filesys.FileSystem
	files []string
}

func (r *readingFS) ReadFile(name string) ([]byte, error) {
	r.files = append(r.files, name)
	return r.FileSystem.ReadFile(name)
}

func (r *readingFS) Open(name string) (filesys.File, error) {
	r.files = append(r.files, name)
	return r.FileSystem.Open(name)
}

func (r *readingFS) ReadDir(name string) ([]string, error) {
	r.files = append(r.files, filepath.Join(name, "any.yaml"))
	return r.FileSystem.ReadDir(name)
}
