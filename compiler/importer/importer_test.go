package importer

import (
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

func parse(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// application is an Application named web with the fields of text.
func application(t *testing.T, text string) map[string]any {
	t.Helper()
	m := parse(t, text)
	m["apiVersion"], m["kind"] = "argoproj.io/v1alpha1", "Application"
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		m["metadata"] = meta
	}
	meta["name"] = "web"
	return m
}

const appHead = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
`

// TestNormalizeReadsAsArgoCD compares pairs of Applications that Argo CD
// reads the same, and pairs it does not.
func TestNormalizeReadsAsArgoCD(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []string // the paths that differ; none: the same
	}{
		{
			name: "values as text and as an object",
			a:    "spec:\n  source:\n    helm:\n      values: |\n        a: 1\n        b: {c: true}\n",
			b:    "spec:\n  source:\n    helm:\n      valuesObject: {a: 1, b: {c: true}}\n",
		},
		{
			name: "valuesObject wins over values",
			a:    "spec:\n  source:\n    helm:\n      values: 'a: 1'\n      valuesObject: {a: 2}\n",
			b:    "spec:\n  source:\n    helm:\n      valuesObject: {a: 2}\n",
		},
		{
			name: "a false value is a value",
			a:    "spec:\n  source:\n    helm:\n      valuesObject: {enabled: false}\n",
			b:    "spec:\n  source:\n    helm:\n      valuesObject: {other: 1}\n",
			want: []string{"spec.source.helm.valuesObject.enabled", "spec.source.helm.valuesObject.other"},
		},
		{
			name: "sync options in another order, and a wave of 0",
			a:    "metadata:\n  annotations: {argocd.argoproj.io/sync-wave: \"0\"}\nspec:\n  syncPolicy:\n    syncOptions: [B=true, A=true]\n",
			b:    "spec:\n  syncPolicy:\n    syncOptions: [A=true, B=true]\n",
		},
		{
			name: "RespectIgnoreDifferences without fields to ignore does nothing",
			a:    "spec:\n  syncPolicy:\n    syncOptions: [RespectIgnoreDifferences=true, A=true]\n",
			b:    "spec:\n  syncPolicy:\n    syncOptions: [A=true]\n",
		},
		{
			name: "another wave",
			a:    "metadata:\n  annotations: {argocd.argoproj.io/sync-wave: \"1\"}\n",
			b:    "metadata:\n  annotations: {argocd.argoproj.io/sync-wave: \"0\"}\n",
			want: []string{"metadata.annotations"},
		},
		{
			name: "HEAD is the default revision, default the default project",
			a:    "spec:\n  project: default\n  source: {repoURL: r, path: p, targetRevision: HEAD}\n",
			b:    "spec:\n  source: {repoURL: r, path: p}\n",
		},
		{
			name: "one source without a ref",
			a:    "spec:\n  sources: [{repoURL: r, path: p}]\n",
			b:    "spec:\n  source: {repoURL: r, path: p}\n",
		},
		{
			name: "a source with a ref is not a source",
			a:    "spec:\n  sources: [{repoURL: r, ref: values}]\n",
			b:    "spec:\n  source: {repoURL: r}\n",
			want: []string{"spec.source", "spec.sources"},
		},
		{
			name: "automated with nothing is automated without prune",
			a:    "spec:\n  syncPolicy:\n    automated: {}\n",
			b:    "spec:\n  syncPolicy:\n    automated: {prune: false, selfHeal: false}\n",
		},
		{
			name: "automated, disabled, is manual",
			a:    "spec:\n  syncPolicy:\n    automated: {enabled: false, prune: true}\n",
			b:    "spec:\n  syncPolicy: {}\n",
		},
		{
			name: "prune",
			a:    "spec:\n  syncPolicy:\n    automated: {prune: true}\n",
			b:    "spec:\n  syncPolicy:\n    automated: {}\n",
			want: []string{"spec.syncPolicy.automated.prune"},
		},
		{
			name: "Helm 3 is Argo CD's Helm",
			a:    "spec:\n  source:\n    helm: {version: v3, releaseName: x}\n",
			b:    "spec:\n  source:\n    helm: {releaseName: x}\n",
		},
		{
			name: "finalizers as a set",
			a:    "metadata:\n  finalizers: [b, a]\n",
			b:    "metadata:\n  finalizers: [a, b]\n",
		},
		{
			name: "another finalizer",
			a:    "metadata:\n  finalizers: [resources-finalizer.argocd.argoproj.io/background]\n",
			b:    "metadata:\n  finalizers: [resources-finalizer.argocd.argoproj.io]\n",
			want: []string{"metadata.finalizers[0]"},
		},
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

// TestReadSaysWhatItDoesNotImport reads a folder of every kind of
// document import meets and checks what it makes of each.
func TestReadSaysWhatItDoesNotImport(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/app.yaml": {Data: []byte(appHead + "  namespace: argocd\nspec:\n  project: default\n  source: {repoURL: r, path: p}\n  destination: {name: in-cluster, namespace: web}\n" +
			"---\n" + appHead + "spec:\n  source: {targetRevision: v2}\n")},
		"apps/set.yaml":    {Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec: {}\n")},
		"apps/rgd.yaml":    {Data: []byte("apiVersion: kro.run/v1alpha1\nkind: ResourceGraphDefinition\nmetadata: {name: g}\n")},
		"apps/tmpl.yaml":   {Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ .Values.name }}\n")},
		"apps/cm.yaml":     {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")},
		"apps/.git/x.yaml": {Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: hidden}\n")},
		"apps/readme.md":   {Data: []byte("argoproj.io")},
	}
	objs, skips, err := Read(fsys, []Root{{Env: "dev", Path: "apps"}})
	if err != nil {
		t.Fatal(err)
	}
	// The ApplicationSet is read, for Build to expand, and so is the
	// ConfigMap, for the app-of-apps of its folder.
	var read []string
	for _, o := range objs {
		read = append(read, fmt.Sprintf("%s %s %s manifest=%v", o.Where(), o.Kind, o.Name, o.Manifest))
	}
	wantRead := []string{"apps/app.yaml:1 Application web manifest=false", "apps/cm.yaml:1 ConfigMap c manifest=true", "apps/set.yaml:1 ApplicationSet s manifest=false"}
	if !slices.Equal(read, wantRead) {
		t.Fatalf("objects:\n%q\nwant:\n%q", read, wantRead)
	}
	var got []string
	for _, s := range skips {
		got = append(got, s.Where()+" "+s.Kind+" "+s.Reason)
	}
	want := []string{
		"apps/app.yaml:11 Application partial: no spec.destination (a kustomize patch? import the folder its kustomization builds)",
		"apps/rgd.yaml:1 ResourceGraphDefinition a kro ResourceGraphDefinition: import writes Argo CD's objects; write it as a stack of the spec (platc renders its RGD)",
		"apps/tmpl.yaml:1  a template ({{ }}), not plain YAML: import the objects it renders",
	}
	if !slices.Equal(got, want) {
		t.Errorf("skips:\n%q\nwant:\n%q", got, want)
	}
}

// TestReadBoundsItsInput: a file over MaxFileSize is not read, and YAML
// aliases that expand without bound are refused by the parser.
func TestReadBoundsItsInput(t *testing.T) {
	big := make([]byte, MaxFileSize+1)
	copy(big, "argoproj.io")
	bomb := "argoproj.io: x\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
	fsys := fstest.MapFS{
		"big.yaml":  {Data: big},
		"bomb.yaml": {Data: []byte(bomb)},
	}
	objs, skips, err := Read(fsys, []Root{{Env: "dev", Path: "."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 0 || len(skips) != 2 {
		t.Fatalf("objects %v, skips %v", objs, skips)
	}
	if skips[0].File != "big.yaml" || skips[0].Reason != "larger than 4 MiB: not read" {
		t.Errorf("big: %+v", skips[0])
	}
	if skips[1].File != "bomb.yaml" || skips[1].Reason != "not an object: document contains excessive aliasing" {
		t.Errorf("bomb: %+v", skips[1])
	}
}

// TestExpandSet expands ApplicationSets as Argo CD's controller does,
// where their generators' inputs are in the repository, and says why
// where they are not.
func TestExpandSet(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/web/kustomization.yaml": {Data: []byte("resources: []\n")},
		"apps/api/kustomization.yaml": {Data: []byte("resources: []\n")},
		"apps/skip/README.md":         {Data: []byte("x")},
		"clusters/eu.yaml":            {Data: []byte("name: eu\nserver: https://eu.example.com\nzone: {id: 7}\n")},
	}
	const head = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s, namespace: argocd}\nspec:\n"
	tests := []struct {
		name, spec string
		want       []string // name and rendered fields, or the reason
	}{
		{
			name: "git directories, fasttemplate, an unknown tag left as written",
			spec: `  generators:
    - git:
        repoURL: https://git.example.com/home.git
        directories: [{path: "apps/*"}, {path: apps/skip, exclude: true}]
  template:
    metadata: {name: "{{path.basename}}-{{ path[0] }}"}
    spec:
      project: default
      source: {repoURL: https://git.example.com/home.git, path: "{{path}}", targetRevision: "{{ unknown }}"}
      destination: {name: in-cluster, namespace: "{{path.basename}}"}
`,
			want: []string{"api-apps apps/api {{ unknown }} [resources-finalizer.argocd.argoproj.io]", "web-apps apps/web {{ unknown }} [resources-finalizer.argocd.argoproj.io]"},
		},
		{
			name: "matrix of a list and git files, Go templates",
			spec: `  goTemplate: true
  syncPolicy: {preserveResourcesOnDeletion: true}
  generators:
    - matrix:
        generators:
          - list: {elements: [{tier: a}, {tier: b}]}
          - git:
              repoURL: https://git.example.com/home.git
              files: [{path: "clusters/*.yaml"}]
  template:
    metadata: {name: "{{.name}}-{{.tier}}-{{.zone.id}}"}
    spec:
      project: default
      source: {repoURL: r, path: "{{.path.path}}/{{ .tier | upper }}", targetRevision: HEAD}
      destination: {server: "{{.server}}", namespace: "{{ normalize .path.filename }}"}
`,
			want: []string{"eu-a-7 clusters/A HEAD <nil>", "eu-b-7 clusters/B HEAD <nil>"},
		},
		{
			name: "clusters",
			spec: "  generators: [{clusters: {}}]\n  template: {metadata: {name: x}, spec: {}}\n",
			want: []string{"its clusters generator reads the cluster Secrets of Argo CD, which are not in the repository"},
		},
		{
			name: "another repository",
			spec: "  generators: [{git: {repoURL: https://git.example.com/other.git, directories: [{path: '*'}]}}]\n  template: {metadata: {name: x}, spec: {}}\n",
			want: []string{"its git generator reads https://git.example.com/other.git, which is not the repository imported"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := parse(t, head+tt.spec)
			set := &Object{Kind: "ApplicationSet", Name: "s", Namespace: "argocd", Env: "dev", Body: body}
			apps, reason := expandSet(fsys, set, sameRepo("https://git.example.com/home.git"))
			var got []string
			if reason != "" {
				got = []string{reason}
			}
			for _, a := range apps {
				src, _ := lookup(a.Body, "spec", "source").(map[string]any)
				got = append(got, fmt.Sprintf("%s %s %s %v", a.Name, src["path"], src["targetRevision"], lookup(a.Body, "metadata", "finalizers")))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
