package charts

import (
	"strings"
	"testing"
)

// testChart is a small chart with a schema, a CRD, a hook, a template that
// reads .Capabilities and one that calls lookup.
func testChart(t *testing.T, extra map[string]string) *Chart {
	t.Helper()
	files := map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"values.yaml":        "replicaCount: 1\nimage:\n  repository: nginx\n  tag: \"1.27\"\npodAnnotations: {}\nservice:\n  port: 80\n",
		"values.schema.json": `{"type":"object","properties":{"replicaCount":{"type":"integer","minimum":0}}}`,
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  replicas: {{ .Values.replicaCount }}
  template:
    metadata:
      annotations: {{- toYaml .Values.podAnnotations | nindent 8 }}
    spec:
      containers:
        - name: web
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          ports:
            - containerPort: {{ .Values.service.port }}
`,
		"templates/pdb.yaml": `{{- if .Capabilities.APIVersions.Has "policy/v1" }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .Release.Name }}
{{- end }}
{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .Release.Name }}
{{- end }}
`,
		"templates/secret.yaml": `{{- $s := lookup "v1" "Secret" .Release.Namespace "existing" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-lookup
data:
  found: {{ if $s }}"yes"{{ else }}"no"{{ end }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
`,
		"templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: pre-install
`,
		"templates/NOTES.txt": "thanks\n",
		"crds/widget.yaml":    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	bs := map[string][]byte{}
	for k, v := range files {
		bs[k] = []byte(v)
	}
	ch, err := LoadArchive(BuildArchive("web", bs))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func kinds(out *Outcome) string {
	var ks []string
	for _, o := range out.objects {
		ks = append(ks, o.Object["kind"].(string))
	}
	return strings.Join(ks, ",")
}

func TestRenderAsHelmTemplate(t *testing.T) {
	ch := testChart(t, nil)
	out := Render(ch, Request{Release: "shop", Namespace: "web", KubeVersion: "1.33.0"})
	if out.Error != "" {
		t.Fatal(out.Error)
	}
	// CRDs first, then install order (ConfigMap before Deployment, unknown
	// kinds after known ones), hooks last.
	if got, want := kinds(out), "CustomResourceDefinition,PodDisruptionBudget,ConfigMap,Deployment,Job"; got != want {
		t.Errorf("kinds = %s, want %s", got, want)
	}
	cm := out.objects[2].Object
	if d := cm["data"].(map[string]any); d["found"] != "no" || d["kube"] != "v1.33.0" {
		t.Errorf("lookup and kube version: %v", d)
	}
	if !out.objects[4].Hook || !out.objects[0].CRD {
		t.Errorf("hook and crd flags: %+v", out.objects)
	}

	out = Render(ch, Request{Release: "shop", Namespace: "web", SkipCRDs: true, APIVersions: []string{"monitoring.coreos.com/v1"}})
	if got, want := kinds(out), "PodDisruptionBudget,ConfigMap,Deployment,ServiceMonitor,Job"; got != want {
		t.Errorf("kinds = %s, want %s", got, want)
	}
}

func TestRenderValues(t *testing.T) {
	ch := testChart(t, nil)
	out := Render(ch, Request{Release: "shop", Namespace: "web",
		ValueFiles:   []ValuesFile{{Name: "a.yaml", Data: []byte("replicaCount: 2\nimage:\n  tagg: x\n")}},
		ValuesObject: []byte(`{"replicaCount": 3, "podAnnotations": {"a": "b"}, "servce": {"port": 1}}`),
		Parameters:   []Parameter{{Name: "image.tag", Value: "2.0", ForceString: true}},
	})
	if out.Error != "" {
		t.Fatal(out.Error)
	}
	dep := out.objects[3].Object
	spec := dep["spec"].(map[string]any)
	if spec["replicas"] != float64(3) {
		t.Errorf("replicas = %v, want 3 (valuesObject after the files)", spec["replicas"])
	}
	if got, want := unknownKeysOf(out), "image.tagg~tag servce~service"; got != want {
		t.Errorf("unknown = %s, want %s", got, want)
	}
}

func TestRenderSchemaViolation(t *testing.T) {
	ch := testChart(t, nil)
	out := Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`replicaCount: many`)})
	want := "values don't meet the specifications of the schema(s) in the following chart(s):\nweb:\n- at '/replicaCount': got string, want integer\n\n"
	if out.Error != want {
		t.Errorf("error = %q, want %q", out.Error, want)
	}
	if len(out.Schema) != 1 || strings.Join(out.Schema[0].Path, ".") != "replicaCount" {
		t.Errorf("schema problems = %+v", out.Schema)
	}
	if out := Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`replicaCount: many`), SkipSchemaValidation: true}); strings.Contains(out.Error, "schema") {
		t.Errorf("skipped schema validation still fails: %s", out.Error)
	}
}

func TestRenderErrors(t *testing.T) {
	ch := testChart(t, map[string]string{"templates/bad.yaml": "{{ .Values.nope.deeper }}\n"})
	out := Render(ch, Request{Release: "shop", Namespace: "web"})
	if !strings.Contains(out.Error, "nil pointer evaluating interface {}.deeper") {
		t.Errorf("error = %q", out.Error)
	}
	out = Render(testChart(t, nil), Request{Release: "Not_Valid", Namespace: "web"})
	if !strings.HasPrefix(out.Error, `release name check failed: release name "Not_Valid"`) {
		t.Errorf("error = %q", out.Error)
	}
}

// TestUnknownKeysOfSubcharts: a subchart's keys are checked against the
// subchart's values.yaml and the parent's values below its name (or
// alias); global is Helm's; a free-form default ({}), a key a template
// reads and the path of a dependency's condition are known.
func TestUnknownKeysOfSubcharts(t *testing.T) {
	sub := BuildArchive("redis", map[string][]byte{
		"Chart.yaml":          []byte("apiVersion: v2\nname: redis\nversion: 1.0.0\n"),
		"values.yaml":         []byte("auth:\n  enabled: true\n"),
		"templates/svc.yaml":  []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-redis\n  labels: {{- toYaml .Values.labels | nindent 4 }}\n"),
		"templates/note.yaml": []byte("{{/* reads .Values.extra.port */}}\n"),
	})
	parent := map[string][]byte{
		"Chart.yaml":             []byte("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 1.0.0\n    alias: cache\n    condition: cache.on,other.enabled\n"),
		"values.yaml":            []byte("replicaCount: 1\nannotations: {}\ncache:\n  auth:\n    password: \"\"\n"),
		"charts/redis-1.0.0.tgz": sub,
		"templates/cm.yaml":      []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"),
	}
	ch, err := LoadArchive(BuildArchive("app", parent))
	if err != nil {
		t.Fatal(err)
	}
	out := Render(ch, Request{Release: "r", Namespace: "ns", ValuesObject: []byte(`{
		"global": {"anything": 1},
		"annotations": {"free": "form"},
		"replicaCont": 2,
		"cache": {"auth": {"enabld": false, "password": "x"}, "labels": {"a": "b"}, "extra": {"port": 1}, "on": true, "of": true}
	}`)})
	if out.Error != "" {
		t.Fatal(out.Error)
	}
	if g, want := unknownKeysOf(out), "cache.auth.enabld~enabled cache.of~on replicaCont~replicaCount"; g != want {
		t.Errorf("unknown = %s, want %s", g, want)
	}
}

// TestUnknownKeysAsRealChartsReadThem: what real charts read without
// naming .Values.a.b in a template is known: a dependency's condition
// (tempo's minio.enabled), a value a string value reads through tpl
// (tempo's config), a key reached by index (grafana's "grafana.ini"),
// and the top-level tags of tagged dependencies. Below a map handed to a
// helper as a whole (loki's singleBinary), a key no template names,
// next to a default it misspells, is a typo; a new key is not judged.
func TestUnknownKeysAsRealChartsReadThem(t *testing.T) {
	sub := BuildArchive("minio", map[string][]byte{
		"Chart.yaml":  []byte("apiVersion: v2\nname: minio\nversion: 4.1.0\n"),
		"values.yaml": []byte("mode: standalone\n"),
	})
	parent := map[string][]byte{
		"Chart.yaml":             []byte("apiVersion: v2\nname: tempo\nversion: 2.1.2\ndependencies:\n  - name: minio\n    version: 4.1.0\n    condition: minio.enabled\n    tags: [storage]\n"),
		"values.yaml":            []byte("storage:\n  trace:\n    backend: local\nconfig: |\n  backend: {{ .Values.storage.trace.backend }}\n  {{- toYaml .Values.storage.trace.s3 | nindent 2 }}\ngrafana.ini:\n  server:\n    port: 3000\nsingleBinary:\n  replicas: 1\n  resources: {}\n"),
		"charts/minio-4.1.0.tgz": sub,
		"templates/cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  config: {{ tpl .Values.config . | quote }}
  {{- range $k, $v := index .Values "grafana.ini" }}
  {{ $k }}: {{ $v | toJson | quote }}
  {{- end }}
  {{- include "pod" .Values.singleBinary }}
`),
		"templates/_pod.tpl": []byte(`{{- define "pod" }}
  replicas: {{ .replicas | quote }}
  extra: {{ .extraEnv | toJson | quote }}
{{- end }}
`),
	}
	ch, err := LoadArchive(BuildArchive("tempo", parent))
	if err != nil {
		t.Fatal(err)
	}
	out := Render(ch, Request{Release: "r", Namespace: "ns", ValuesObject: []byte(`{
		"tags": {"storage": true},
		"minio": {"enabled": false},
		"storage": {"trace": {"s3": {"bucket": "b"}}},
		"grafana.ini": {"database": {"type": "postgres"}},
		"singleBinary": {"replcas": 2, "extraEnv": [], "newThing": 1}
	}`)})
	if out.Error != "" {
		t.Fatal(out.Error)
	}
	if g, want := unknownKeysOf(out), "singleBinary.replcas~replicas"; g != want {
		t.Errorf("unknown = %s, want %s", g, want)
	}
}

// unknownKeysOf lists out's unknown keys as "path~suggestion".
func unknownKeysOf(out *Outcome) string {
	var keys []string
	for _, u := range out.Unknown {
		keys = append(keys, strings.Join(u.Path, ".")+"~"+u.Suggest)
	}
	return strings.Join(keys, " ")
}

// A schema's $ref to a file or a URL is not followed: the values are
// checked against the rest of the schema, and the note names what was
// not followed.
func TestSchemaRemoteRef(t *testing.T) {
	ch := testChart(t, map[string]string{
		"values.schema.json": `{"type":"object","properties":{"replicaCount":{"type":"integer","minimum":0},"image":{"$ref":"https://example.com/image.json#/definitions/image"},"service":{"$ref":"service.json"}}}`,
	})
	out := Render(ch, Request{Release: "r", Namespace: "ns", ValuesObject: []byte(`{"replicaCount": -1}`)})
	if len(out.Schema) != 1 || out.Schema[0].Message != "minimum: got -1, want 0" {
		t.Errorf("schema problems %+v, want replicaCount's", out.Schema)
	}
	if want := "the values.schema.json of web refers to https://example.com/image.json#/definitions/image, service.json, which platc does not fetch: the values are checked against the rest of it"; out.SchemaNote != want {
		t.Errorf("note %q, want %q", out.SchemaNote, want)
	}
}
