package importer

import (
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/object"
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
			name: "sync options that say their default are none",
			a:    "spec:\n  syncPolicy:\n    syncOptions: [CreateNamespace=false, Validate=true, ServerSideApply=false, PrunePropagationPolicy=foreground, A=true]\n",
			b:    "spec:\n  syncPolicy:\n    syncOptions: [A=true]\n",
		},
		{
			name: "an option that is not its default is one",
			a:    "spec:\n  syncPolicy:\n    syncOptions: [CreateNamespace=true, Validate=false]\n",
			b:    "spec:\n  syncPolicy:\n    syncOptions: []\n",
			want: []string{"spec.syncPolicy"},
		},
		{
			name: "a ref that is also a folder is both",
			a:    "spec:\n  sources: [{repoURL: c, chart: x, targetRevision: 1.0.0, helm: {valueFiles: [$values/v.yaml]}}, {repoURL: r, path: p, ref: values}]\n",
			b:    "spec:\n  sources: [{repoURL: c, chart: x, targetRevision: 1.0.0, helm: {valueFiles: [$values/v.yaml]}}, {repoURL: r, ref: values}, {repoURL: r, path: p}]\n",
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
			name: "a templatePatch, rendered with the parameters and merged",
			spec: `  goTemplate: true
  generators:
    - list: {elements: [{app: web, keep: true}, {app: api, keep: false}]}
  template:
    metadata: {name: "{{.app}}"}
    spec:
      project: default
      source: {repoURL: r, path: "apps/{{.app}}", targetRevision: HEAD}
      destination: {name: in-cluster, namespace: "{{.app}}"}
  templatePatch: |
    {{- if .keep }}
    metadata:
      finalizers: null
    {{- end }}
    spec:
      source:
        targetRevision: "v1-{{.app}}"
`,
			want: []string{"api apps/api v1-api [resources-finalizer.argocd.argoproj.io]", "web apps/web v1-web <nil>"},
		},
		{
			name: "a generator's own template, its unset fields the ApplicationSet's",
			spec: `  generators:
    - list:
        elements: [{app: web}]
        template:
          metadata: {name: "own-{{app}}"}
          spec:
            source: {path: "own/{{app}}"}
    - list: {elements: [{app: api}]}
  template:
    metadata: {name: "{{app}}"}
    spec:
      project: default
      source: {repoURL: r, path: "apps/{{app}}", targetRevision: HEAD}
      destination: {name: in-cluster, namespace: "{{app}}"}
`,
			want: []string{"api apps/api HEAD [resources-finalizer.argocd.argoproj.io]", "own-web own/web HEAD [resources-finalizer.argocd.argoproj.io]"},
		},
		{
			name: "clusters, none given",
			spec: "  generators: [{clusters: {}}]\n  template: {metadata: {name: x}, spec: {}}\n",
			want: []string{"its clusters generator reads the cluster Secrets of Argo CD, which are not in the repository (give them with -clusters FILE)"},
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
			apps, reason := expandSet(fsys, set, sameRepo("https://git.example.com/home.git"), nil)
			var got []string
			if reason != "" {
				got = []string{reason}
			}
			for _, a := range apps {
				src, _ := object.Lookup(a.Body, "spec", "source").(map[string]any)
				got = append(got, fmt.Sprintf("%s %s %s %v", a.Name, src["path"], src["targetRevision"], object.Lookup(a.Body, "metadata", "finalizers")))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestExpandClusters expands clusters generators over the cluster Secrets
// given, as Argo CD's controller does over those it lists: selectors,
// values, the in-cluster, Go templates, flat lists, and the merge
// generator that overrides one cluster's values with another's.
func TestExpandClusters(t *testing.T) {
	secrets := `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata:
      name: cluster-eu
      labels: {argocd.argoproj.io/secret-type: cluster, env: prod, enable_dns: "true"}
      annotations: {repo: https://git.example.com/addons.git, kubectl.kubernetes.io/last-applied-configuration: "{}"}
    data: {name: ZXU=, server: aHR0cHM6Ly9ldS5leGFtcGxlLmNvbQ==}
  - apiVersion: v1
    kind: Secret
    metadata:
      name: cluster-us
      labels: {argocd.argoproj.io/secret-type: cluster, env: staging}
      annotations: {repo: https://git.example.com/addons.git}
    stringData: {name: US West, server: https://us.example.com, project: edge, config: "{}"}
`
	clusters, err := ReadClusters("clusters.yaml", []byte(secrets))
	if err != nil {
		t.Fatal(err)
	}
	const head = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s, namespace: argocd}\nspec:\n"
	tests := []struct {
		name, spec string
		want       []string // name, server, path; or the reason
	}{
		{
			name: "every cluster, and the in-cluster where no Secret is of it",
			spec: `  generators: [{clusters: {values: {chart: dns}}}]
  template:
    metadata: {name: "{{nameNormalized}}-{{values.chart}}"}
    spec: {destination: {server: "{{server}}"}, source: {path: "{{metadata.labels.env}}/{{metadata.annotations.repo}}{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}"}}
`,
			want: []string{
				"eu-dns https://eu.example.com prod/https://git.example.com/addons.git{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}",
				"in-cluster-dns https://kubernetes.default.svc {{metadata.labels.env}}/{{metadata.annotations.repo}}{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}",
				"us-west-dns https://us.example.com staging/https://git.example.com/addons.git{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}",
			},
		},
		{
			name: "a selector leaves the in-cluster out",
			spec: `  generators: [{clusters: {selector: {matchExpressions: [{key: enable_dns, operator: In, values: ["true"]}]}}}]
  template: {metadata: {name: "{{name}}"}, spec: {destination: {server: "{{server}}"}, source: {path: x}}}
`,
			want: []string{"eu https://eu.example.com x"},
		},
		{
			name: "NotIn matches a cluster without the label",
			spec: `  generators: [{clusters: {selector: {matchExpressions: [{key: env, operator: NotIn, values: [prod]}, {key: other, operator: DoesNotExist}]}}}]
  template: {metadata: {name: "{{nameNormalized}}"}, spec: {destination: {server: "{{server}}"}, source: {path: "{{project}}"}}}
`,
			want: []string{"us-west https://us.example.com edge"},
		},
		{
			name: "Go templates, nested metadata, a generator's own selector",
			spec: `  goTemplate: true
  generators:
    - clusters: {values: {tier: "{{ .metadata.labels.env | upper }}"}, selector: {matchExpressions: [{key: env, operator: Exists}]}}
      selector: {matchLabels: {metadata.labels.env: staging}}
  template: {metadata: {name: "{{ .nameNormalized }}"}, spec: {destination: {server: "{{ .server }}"}, source: {path: "{{ .values.tier }}/{{ index .metadata.annotations \"repo\" }}"}}}
`,
			want: []string{"us-west https://us.example.com STAGING/https://git.example.com/addons.git"},
		},
		{
			name: "flat list",
			spec: `  goTemplate: true
  generators: [{clusters: {flatList: true, selector: {matchLabels: {env: prod}}}}]
  template: {metadata: {name: all}, spec: {destination: {server: x}, source: {path: "{{ range .clusters }}{{ .name }};{{ end }}"}}}
`,
			want: []string{"all x eu;"},
		},
		{
			name: "merge: a later generator's values win for its clusters",
			spec: `  generators:
    - merge:
        mergeKeys: [server]
        generators:
          - clusters: {values: {version: "1.0"}, selector: {matchLabels: {argocd.argoproj.io/secret-type: cluster}}}
          - clusters: {values: {version: "2.0"}, selector: {matchLabels: {env: prod}}}
  template: {metadata: {name: "{{nameNormalized}}"}, spec: {destination: {server: "{{server}}"}, source: {path: "{{values.version}}"}}}
`,
			want: []string{"eu https://eu.example.com 2.0", "us-west https://us.example.com 1.0"},
		},
		{
			name: "merge without keys",
			spec: `  generators: [{merge: {generators: [{clusters: {}}, {clusters: {}}]}}]
  template: {metadata: {name: x}, spec: {}}
`,
			want: []string{"its merge generator has no mergeKeys"},
		},
		{
			name: "a selector's unknown operator",
			spec: `  generators: [{clusters: {selector: {matchExpressions: [{key: env, operator: Like}]}}}]
  template: {metadata: {name: x}, spec: {}}
`,
			want: []string{`its clusters generator's selector is not one: operator "Like" is not In, NotIn, Exists or DoesNotExist`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &Object{Kind: "ApplicationSet", Name: "s", Namespace: "argocd", Env: "dev", Body: parse(t, head+tt.spec)}
			apps, reason := expandSet(fstest.MapFS{}, set, "", clusters)
			var got []string
			if reason != "" {
				got = []string{reason}
			}
			for _, a := range apps {
				got = append(got, fmt.Sprintf("%s %s %s", a.Name, object.Lookup(a.Body, "spec", "destination", "server"), object.Lookup(a.Body, "spec", "source", "path")))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestReadClusters refuses what is not a cluster Secret Argo CD would
// read, with the file and line, and reads no credentials.
func TestReadClusters(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no label", "kind: Secret\nmetadata: {name: a}\nstringData: {server: s}\n",
			"c.yaml:1:1: Secret a has no label argocd.argoproj.io/secret-type: cluster, so Argo CD's clusters generator does not read it: add the label, or leave the Secret out"},
		{"not a Secret", "kind: ConfigMap\nmetadata: {name: a}\n", `c.yaml:1:1: not a Secret (kind "ConfigMap"): give Argo CD's cluster Secrets only`},
		{"bad base64", "kind: Secret\nmetadata: {name: a, labels: {argocd.argoproj.io/secret-type: cluster}}\ndata: {server: '%%'}\n",
			"c.yaml:1:1: Secret a: data.server is not base64: write it as stringData.server, or encode it"},
		{"no server", "kind: Secret\nmetadata: {name: a, labels: {argocd.argoproj.io/secret-type: cluster}}\nstringData: {name: a}\n",
			"c.yaml:1:1: Secret a has no server: Argo CD needs data.server of a cluster"},
		{"empty", "# nothing\n", "c.yaml: no cluster Secret: write them as kubectl get secrets -n argocd -l argocd.argoproj.io/secret-type=cluster -o yaml does"},
		{"not YAML", "kind: [\n", "c.yaml:1:7: not YAML: a [list] or {map} written on one line that is not closed: close it, or separate its items with ',' (YAML: did not find expected node content)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadClusters("c.yaml", []byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestUnmarshalKeepsDates: a date written unquoted is its text, as
// kubectl and Argo CD read it (sigs.k8s.io/yaml), in a document and in a
// values text alike.
func TestUnmarshalKeepsDates(t *testing.T) {
	var m map[string]any
	if err := unmarshal([]byte("from: 2025-04-01\nlist: [2025-04-01]\n"), &m); err != nil {
		t.Fatal(err)
	}
	if m["from"] != "2025-04-01" || fmt.Sprint(m["list"]) != "[2025-04-01]" {
		t.Errorf("read %#v", m)
	}
	v, why := helmValues(map[string]any{"values": "schemaConfig:\n  configs:\n    - from: 2025-04-01\n"})
	if why != "" {
		t.Fatal(why)
	}
	if got := object.Lookup(v, "schemaConfig", "configs"); fmt.Sprint(got) != "[map[from:2025-04-01]]" {
		t.Errorf("values read %#v", got)
	}
	var empty map[string]any
	if err := unmarshal(nil, &empty); err != nil || empty != nil {
		t.Errorf("empty: %v %v", empty, err)
	}
}
