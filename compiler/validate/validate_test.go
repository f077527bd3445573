package validate

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/schemas"
)

// crdFiles are the CRDs the tests validate against: those platc embeds
// (schemas/crds) of Argo CD's and kro's kinds. conformance/argocd
// validates what platc renders against Argo CD's own.
var crdFiles = []string{
	"schemas/crds/argoproj.io_applications.yaml",
	"schemas/crds/argoproj.io_appprojects.yaml",
	"schemas/crds/kro.run_resourcegraphdefinitions.yaml",
}

// readCRDs returns the CRDs of crdFiles, by name.
func readCRDs(t testing.TB) map[string][]byte {
	t.Helper()
	embedded := schemas.CRDs()
	files := map[string][]byte{}
	for _, name := range crdFiles {
		data, ok := embedded[name]
		if !ok {
			t.Fatalf("%s is not embedded", name)
		}
		files[name] = data
	}
	return files
}

var (
	crdOnce sync.Once
	crdVal  *Validator
	crdErr  error
)

// crdValidator builds the validator of crdFiles once for all tests.
func crdValidator(t testing.TB) *Validator {
	t.Helper()
	files := readCRDs(t)
	crdOnce.Do(func() { crdVal, crdErr = FromCRDs(files) })
	if crdErr != nil {
		t.Fatalf("FromCRDs: %v", crdErr)
	}
	return crdVal
}

func decode(t testing.TB, doc string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("test object: %v", err)
	}
	return obj
}

// edit returns doc with old replaced by new, exactly once.
func edit(t testing.TB, doc, old, new string) string {
	t.Helper()
	if n := strings.Count(doc, old); n != 1 {
		t.Fatalf("edit: %q occurs %d times in the test object, want 1", old, n)
	}
	return strings.Replace(doc, old, new, 1)
}

const multiSourceApp = `
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: guestbook
  namespace: argocd
  labels:
    app.kubernetes.io/part-of: guestbook
  annotations:
    platc.dev/source: apps/guestbook.cue
  finalizers:
  - resources-finalizer.argocd.argoproj.io
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: guestbook
  sources:
  - repoURL: https://charts.example.com
    chart: guestbook
    targetRevision: 1.2.3
    helm:
      releaseName: guestbook
      valueFiles:
      - $values/guestbook/values.yaml
      valuesObject:
        replicaCount: 2
        image:
          repository: nginx
          tag: "1.27"
  - repoURL: https://git.example.com/config.git
    targetRevision: main
    ref: values
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
    syncOptions:
    - CreateNamespace=true
    retry:
      limit: 5
      backoff:
        duration: 5s
        factor: 2
        maxDuration: 3m
`

const appProject = `
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: team-a
  namespace: argocd
spec:
  description: Team A's applications
  sourceRepos:
  - https://git.example.com/*
  destinations:
  - server: https://kubernetes.default.svc
    namespace: team-a-*
  clusterResourceWhitelist:
  - group: ""
    kind: Namespace
  namespaceResourceBlacklist:
  - group: ""
    kind: ResourceQuota
  roles:
  - name: ci
    policies:
    - p, proj:team-a:ci, applications, sync, team-a/*, allow
    groups:
    - team-a-ci
`

// rgd leaves out spec.schema.scope: the CRD requires it but gives it a
// default, which the API server fills in before it validates.
const rgd = `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: web-app
spec:
  schema:
    apiVersion: v1alpha1
    kind: WebApp
    spec:
      name: string
      replicas: integer | default=1 minimum=1
      ingress:
        enabled: boolean | default=false
    status:
      availableReplicas: ${deployment.status.availableReplicas}
  resources:
  - id: deployment
    readyWhen:
    - ${deployment.status.availableReplicas > 0}
    template:
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: ${schema.spec.name}
      spec:
        replicas: ${schema.spec.replicas}
        selector:
          matchLabels:
            app: ${schema.spec.name}
        template:
          metadata:
            labels:
              app: ${schema.spec.name}
          spec:
            containers:
            - name: app
              image: nginx
              ports:
              - containerPort: 80
  - id: ingress
    includeWhen:
    - ${schema.spec.ingress.enabled}
    template:
      apiVersion: networking.k8s.io/v1
      kind: Ingress
      metadata:
        name: ${schema.spec.name}
      spec:
        rules:
        - http:
            paths:
            - path: /
              pathType: Prefix
              backend:
                service:
                  name: ${service.metadata.name}
                  port:
                    number: 80
`

func TestKinds(t *testing.T) {
	v := crdValidator(t)
	want := []string{
		"argoproj.io/v1alpha1/AppProject",
		"argoproj.io/v1alpha1/Application",
		"kro.run/v1alpha1/ResourceGraphDefinition",
	}
	if diff := cmp.Diff(want, v.Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch (-want +got):\n%s", diff)
	}
}

func TestValidateCRDs(t *testing.T) {
	v := crdValidator(t)
	tests := []struct {
		name string
		doc  func(t *testing.T) string
		want []Problem
	}{
		{
			name: "valid multi-source application",
			doc:  func(*testing.T) string { return multiSourceApp },
		},
		{
			name: "valid app project",
			doc:  func(*testing.T) string { return appProject },
		},
		{
			name: "valid resource graph definition",
			doc:  func(*testing.T) string { return rgd },
		},
		{
			name: "valuesObject accepts arbitrary nested content",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "        replicaCount: 2\n", `        replicaCount: 2
        anything:
          goes: [1, "two", 3.5, true, null, {deeper: {list: [[], {}]}}]
          valuesObjekt: {prun: yes}
        "": empty key
        nothing: null
`)
			},
		},
		{
			name: "misspelled field",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "      prune: true", "      prun: true")
			},
			want: []Problem{{"/spec/syncPolicy/automated/prun", `unknown field "prun"`, true}},
		},
		{
			name: "misspelled field under a helm source",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "      valuesObject:", "      valuesObjekt:")
			},
			want: []Problem{{"/spec/sources/0/helm/valuesObjekt", `unknown field "valuesObjekt"`, true}},
		},
		{
			name: "unknown metadata field",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "  namespace: argocd\n", "  namespace: argocd\n  uid: 1234\n")
			},
			want: []Problem{{"/metadata/uid", `unknown field "uid"`, true}},
		},
		{
			name: "label value is not a string",
			doc: func(t *testing.T) string {
				return edit(t, appProject, "  namespace: argocd\n", "  namespace: argocd\n  labels:\n    replicas: 3\n")
			},
			want: []Problem{{"/metadata/labels/replicas", "got number, want string", false}},
		},
		{
			name: "wrong type",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "      prune: true", `      prune: "yes"`)
			},
			want: []Problem{{"/spec/syncPolicy/automated/prune", "got string, want boolean", false}},
		},
		{
			name: "missing required field",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, `  destination:
    server: https://kubernetes.default.svc
    namespace: guestbook
`, "")
			},
			want: []Problem{{"/spec", `missing required field "destination"`, false}},
		},
		{
			name: "several problems sorted by pointer",
			doc: func(t *testing.T) string {
				doc := edit(t, multiSourceApp, "      prune: true", "      prune: 1")
				doc = edit(t, doc, "  project: default\n", "")
				doc = edit(t, doc, "    ref: values", "    ref: values\n    reff: values")
				return edit(t, doc, "  finalizers:", "  finalizerz:")
			},
			want: []Problem{
				{"/metadata/finalizerz", `unknown field "finalizerz"`, true},
				{"/spec", `missing required field "project"`, false},
				{"/spec/sources/1/reff", `unknown field "reff"`, true},
				{"/spec/syncPolicy/automated/prune", "got number, want boolean", false},
			},
		},
		{
			name: "missing spec and unknown top-level field",
			doc: func(t *testing.T) string {
				return edit(t, multiSourceApp, "\nspec:\n", "\nspecs:\n")
			},
			want: []Problem{
				{"", `missing required field "spec"`, false},
				{"/specs", `unknown field "specs"`, true},
			},
		},
		{
			name: "app project role without a name",
			doc: func(t *testing.T) string {
				return edit(t, appProject, "  - name: ci\n    policies:", "  - policies:")
			},
			want: []Problem{{"/spec/roles/0", `missing required field "name"`, false}},
		},
		{
			name: "kro template and schema spec are open, resources are not",
			doc: func(t *testing.T) string {
				doc := edit(t, rgd, "        replicas: ${schema.spec.replicas}", "        replicaz: ${schema.spec.replicas}")
				doc = edit(t, doc, "      name: string", "      nmae: string")
				return edit(t, doc, "  - id: ingress\n", "  - id: ingress\n    includeWhn: []\n")
			},
			want: []Problem{{"/spec/resources/1/includeWhn", `unknown field "includeWhn"`, true}},
		},
		{
			name: "kro enum, pattern and missing id",
			doc: func(t *testing.T) string {
				doc := edit(t, rgd, "    apiVersion: v1alpha1", "    apiVersion: kro.run/v1alpha1\n    scope: Global")
				return edit(t, doc, "  - id: deployment\n", "  - readyWhen: []\n")
			},
			want: []Problem{
				{"/spec/resources/0", `missing required field "id"`, false},
				{"/spec/schema/apiVersion", `"kro.run/v1alpha1" does not match pattern "^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$"`, false},
				{"/spec/schema/scope", `got "Global", want one of "Namespaced", "Cluster"`, false},
			},
		},
		{
			name: "kro required field without a default",
			doc: func(t *testing.T) string {
				return edit(t, rgd, "    kind: WebApp\n", "")
			},
			want: []Problem{{"/spec/schema", `missing required field "kind"`, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Validate(decode(t, tt.doc(t)))
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateUnknownKind(t *testing.T) {
	v := crdValidator(t)
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{
			name: "kind of no CRD",
			obj:  map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}},
			want: `no schema for apiVersion "v1", kind "ConfigMap" (known: argoproj.io/v1alpha1/AppProject, argoproj.io/v1alpha1/Application, kro.run/v1alpha1/ResourceGraphDefinition)`,
		},
		{
			name: "known kind, unknown version",
			obj:  map[string]any{"apiVersion": "argoproj.io/v1", "kind": "Application"},
			want: `no schema for apiVersion "argoproj.io/v1", kind "Application" (known: argoproj.io/v1alpha1/AppProject, argoproj.io/v1alpha1/Application, kro.run/v1alpha1/ResourceGraphDefinition)`,
		},
		{
			name: "no apiVersion or kind",
			obj:  map[string]any{"spec": map[string]any{}},
			want: `no schema for apiVersion "", kind "" (known: argoproj.io/v1alpha1/AppProject, argoproj.io/v1alpha1/Application, kro.run/v1alpha1/ResourceGraphDefinition)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Validate(tt.obj)
			if err == nil {
				t.Fatalf("Validate: got problems %v and no error, want error %q", got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Validate error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestMultiDocumentFile checks that one file may hold several CRDs.
func TestMultiDocumentFile(t *testing.T) {
	files := readCRDs(t)
	var all []byte
	for _, name := range crdFiles {
		all = append(all, "---\n# "+name+"\n"...)
		all = append(all, files[name]...)
	}
	all = append(all, "\n---\n"...)
	v, err := FromCRDs(map[string][]byte{"all.yaml": all})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(crdValidator(t).Kinds(), v.Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch (-want +got):\n%s", diff)
	}
}

func TestConcurrentValidate(t *testing.T) {
	v := crdValidator(t)
	bad := decode(t, edit(t, multiSourceApp, "      prune: true", "      prun: true"))
	want := []Problem{{"/spec/syncPolicy/automated/prun", `unknown field "prun"`, true}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := v.Validate(bad)
				if err != nil {
					t.Error(err)
					return
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("problems mismatch (-want +got):\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkValidateApplication(b *testing.B) {
	v := crdValidator(b)
	obj := decode(b, multiSourceApp)
	for b.Loop() {
		if _, err := v.Validate(obj); err != nil {
			b.Fatal(err)
		}
	}
}
