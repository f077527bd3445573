// Package synth generates platform specs of a given size, for benchmarks and
// for the comparison with the pure-CUE way (make bench-compare). The
// platforms are realistic in proportion: pinned charts with values, folders
// of manifests, groups, dependencies with their waves, per-environment
// overrides, disabled modules with external endpoints, wiring, product stacks,
// and clients with values files.
//
// It also writes, for the same platform, the CUE program a user of a
// CUE-based tool would write to produce the same Applications with
// comprehensions (PureCUE). Environment overrides only add keys, so that
// CUE's unification and Helm's merge agree.
//
// It is not used by platc itself, and the same size always gives the same
// bytes.
package synth

import (
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/platc/platc/compiler/charts"
)

// Size is the shape of a generated platform.
type Size struct {
	Environments int
	Modules      int
	// Clients consume the two stacks, each in a tenth of the environments
	// (at least one).
	Clients int
}

// Sizes are the sizes the benchmarks and the comparison use.
var Sizes = map[string]Size{
	"10x100":        {Environments: 10, Modules: 100, Clients: 4},
	"50x200x20":     {Environments: 50, Modules: 200, Clients: 20},
	"100x500x40":    {Environments: 100, Modules: 500, Clients: 40},
	"10x100-nostck": {Environments: 10, Modules: 100},
}

// String names the size by its dimensions: environments x modules x
// clients, such as 10x100x4 (not necessarily its key in Sizes).
func (s Size) String() string {
	if s.Clients == 0 {
		return fmt.Sprintf("%dx%d", s.Environments, s.Modules)
	}
	return fmt.Sprintf("%dx%dx%d", s.Environments, s.Modules, s.Clients)
}

// kind of module m: every tenth (with room after it) a group of the next
// three, every fifth a folder of manifests, the rest charts.
func isGroup(m, modules int) bool { return m%10 == 0 && m+3 < modules }
func isMember(m, modules int) bool {
	return m%10 >= 1 && m%10 <= 3 && isGroup(m-m%10, modules)
}
func isPath(m, modules int) bool  { return !isGroup(m, modules) && m%5 == 0 }
func isChart(m, modules int) bool { return !isGroup(m, modules) && !isPath(m, modules) }

func moduleName(m int) string { return fmt.Sprintf("module-%04d", m) }
func envName(e int) string    { return fmt.Sprintf("env-%03d", e) }

// need is the module m needs, or -1: a top-level module a few before it.
// Members of groups need nothing (their group orders them).
func need(m, modules int) int {
	if m < 2 || isMember(m, modules) {
		return -1
	}
	n := m - 1 - m%3
	for n >= 0 && isMember(n, modules) {
		n--
	}
	return n
}

// waves are the sync waves platc computes from the needs; the spec also
// writes them by hand, so that a CUE program can use them without a graph
// algorithm (platc checks they agree).
func waves(modules int) []int {
	w := make([]int, modules)
	for m := range modules {
		if n := need(m, modules); n >= 0 {
			w[m] = w[n] + 1
		}
	}
	return w
}

// wired is the module whose endpoint m's chart is wired to, or -1.
func wired(m, modules int) int {
	if m%4 != 1 || m < 3 || !isChart(m, modules) {
		return -1
	}
	if src := m - 2; isChart(src, modules) {
		return src
	}
	return -1
}

// disabled reports whether environment e operates module m itself: one in
// thirteen chart modules, never a group member.
func disabled(e, m, modules int) bool {
	return isChart(m, modules) && !isMember(m, modules) && m%13 == 1+e%13
}

// overridden reports whether environment e adds values to module m.
func overridden(e, m, modules int) bool {
	return isChart(m, modules) && m%7 == e%7
}

// Platform returns a repository holding a platform spec of the given size in
// sources/, the manifests its path modules name, and its clients' values
// files.
func Platform(s Size) fstest.MapFS {
	fsys := fstest.MapFS{}
	fsys["sources/platform.cue"] = &fstest.MapFile{Data: []byte(spec(s, fsys))}
	return fsys
}

func spec(s Size, fsys fstest.MapFS) string {
	var b strings.Builder
	w := waves(s.Modules)
	b.WriteString("package platform\n\n")
	b.WriteString(`platform: {name: "synthetic", repoURL: "https://git.example.com/synthetic.git", defaultEnvironment: "env-000"}` + "\n\n")

	charts := max(1, s.Modules/5)
	b.WriteString("charts: {\n")
	for c := range charts {
		fmt.Fprintf(&b, "\t\"chart-%03d\": {repoURL: \"https://charts%d.example.com\", chart: \"chart-%03d\", version: \"%d.%d.%d\"}\n", c, c%7, c, 1+c%3, c%10, c%4)
	}
	b.WriteString("\tkro: {repoURL: \"oci://registry.k8s.io/kro/charts\", chart: \"kro\", version: \"0.9.3\"}\n")
	b.WriteString("}\n\n")

	b.WriteString("modules: {\n")
	for m := range s.Modules {
		name := moduleName(m)
		needs := ""
		if n := need(m, s.Modules); n >= 0 {
			needs = fmt.Sprintf(", needs: [%q], wave: %d", moduleName(n), w[m])
		}
		switch {
		case isGroup(m, s.Modules):
			fmt.Fprintf(&b, "\t%q: {group: [%q, %q, %q]%s}\n", name, moduleName(m+1), moduleName(m+2), moduleName(m+3), needs)
		case isPath(m, s.Modules):
			dir := "sources/manifests/" + name
			fsys[dir+"/configmap.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  module: %q\n", name, name)}
			fmt.Fprintf(&b, "\t%q: {path: %q, namespace: %q%s}\n", name, dir, "ns-"+name, needs)
		default:
			fmt.Fprintf(&b, "\t%q: {\n\t\tchart: \"chart-%03d\"\n\t\tnamespace: %q%s\n", name, m%charts, "ns-"+name, needs)
			fmt.Fprintf(&b, "\t\tvalues: {replicaCount: %d, image: tag: \"v%d.0.%d\", resources: requests: {cpu: \"%dm\", memory: \"%dMi\"}, ingress: {enabled: %t, hosts: [\"%s.example.com\"]}}\n",
				1+m%3, m%5, m, 100+m%4*50, 128<<(m%3), m%2 == 0, name)
			fmt.Fprintf(&b, "\t\tendpoint: {host: \"%s.ns-%s.svc.cluster.local\", port: %d, scheme: \"http\"}\n", name, name, 8000+m%100)
			if src := wired(m, s.Modules); src >= 0 {
				fmt.Fprintf(&b, "\t\twiring: \"config.upstream\": {from: %q, field: \"url\"}\n", moduleName(src))
			}
			b.WriteString("\t}\n")
		}
	}
	if s.Clients > 0 {
		b.WriteString("\tkro: {chart: \"kro\", namespace: \"kro-system\"}\n")
		b.WriteString("\tdefinitions: {definitions: [\"cache\", \"agent\"], namespace: \"kro-system\", needs: [\"kro\"]}\n")
		b.WriteString("\tteams: {stacks: [\"cache\", \"agent\"], namespace: \"teams\"}\n")
	}
	b.WriteString("}\n\n")

	b.WriteString("environments: {\n")
	for e := range s.Environments {
		fmt.Fprintf(&b, "\t%q: {\n", envName(e))
		if e%2 == 0 {
			b.WriteString("\t\trevision: \"HEAD\"\n")
		} else {
			fmt.Fprintf(&b, "\t\trevision: \"v1.%d.0\"\n\t\tpinned: true\n", e)
		}
		b.WriteString("\t\tmodules: {\n")
		for m := range s.Modules {
			switch {
			case disabled(e, m, s.Modules):
				fmt.Fprintf(&b, "\t\t\t%q: {enabled: false, external: {host: \"%s.%s.internal\", port: 443, scheme: \"https\"}}\n", moduleName(m), moduleName(m), envName(e))
			case overridden(e, m, s.Modules):
				fmt.Fprintf(&b, "\t\t\t%q: values: {podAnnotations: environment: %q, resources: limits: memory: \"%dMi\"}\n", moduleName(m), envName(e), 256<<(e%3))
			}
		}
		b.WriteString("\t\t}\n\t}\n")
	}
	b.WriteString("}\n")

	if s.Clients > 0 {
		b.WriteString(stacks)
		b.WriteString("\nclients: {\n")
		for c := range s.Clients {
			name := fmt.Sprintf("team-%03d", c)
			fmt.Fprintf(&b, "\t%q: {\n\t\tvalues: repoURL: \"https://git.example.com/synthetic.git\"\n\t\tstacks: {\n", name)
			var envs []string
			for e := c % 10; e < s.Environments; e += 10 {
				if e%2 == 0 { // HEAD environments: a team's branch is fine there
					envs = append(envs, fmt.Sprintf("%q", envName(e)))
				}
			}
			if len(envs) == 0 {
				envs = []string{fmt.Sprintf("%q", envName(0))}
			}
			list := strings.Join(envs, ", ")
			fmt.Fprintf(&b, "\t\t\tcache: {environments: [%s], spec: size: %q}\n", list, []string{"small", "large"}[c%2])
			fmt.Fprintf(&b, "\t\t\tagent: environments: [%s]\n", list)
			b.WriteString("\t\t}\n\t}\n")
			fsys["clients/"+name+"/cache/redis.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "# %s's Redis\nmaster:\n  resources:\n    requests:\n      memory: %dMi\n", name, 128<<(c%3))}
			fsys["clients/"+name+"/agent/collector.yaml"] = &fstest.MapFile{Data: []byte("resources:\n  limits:\n    memory: 200Mi\n")}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// stacks are the two product stacks of a generated platform: a cache on a
// database the orchestrator provides, and an agent wired from the cache's
// output.
const stacks = `
charts: {
	redis: {repoURL: "https://charts.example.com/redis", chart: "redis", version: "20.7.0"}
	collector: {repoURL: "https://charts.example.com/otel", chart: "opentelemetry-collector", version: "0.120.0"}
}

stacks: cache: {
	kind: "TeamCache"
	spec: size: "string | default=\"small\" enum=\"small,large\""
	primitives: database: {
		kind: "PostgresInstance"
		spec: {engineVersion: "16", storageGB: "${schema.spec.size == \"large\" ? 100 : 10}"}
		readyWhen: ["${database.status.endpoint != \"\"}"]
	}
	modules: redis: {
		chart: "redis"
		namespace: "cache-${schema.metadata.name}"
		values: architecture: "standalone"
		wiring: {
			"externalDatabase.host": "${database.status.endpoint}"
			"externalDatabase.port": "${database.status.port}"
			"externalDatabase.existingSecret": "${database.status.credentialsSecretRef.name}"
		}
	}
	outputs: address: "redis-${schema.metadata.name}.cache-${schema.metadata.name}.svc:6379"
	status: database: "${database.status.endpoint}"
}

stacks: agent: {
	kind: "TeamAgent"
	spec: cache: "string | required=true"
	wiring: cache: {stack: "cache", output: "address"}
	modules: collector: {
		chart: "collector"
		namespace: "agent-${schema.metadata.name}"
		values: mode: "deployment"
		wiring: "config.exporters.redis.endpoint": "${schema.spec.cache}"
	}
}
`

// PureCUE returns the CUE program that computes, with comprehensions, the
// same Applications platc renders for the platform's environments (the
// chart, folder and group modules; stacks are kro's), as
// applications: <env>: <name>: <Application>. It goes beside the spec, in
// the same package.
func PureCUE() string {
	return `package platform

import "strings"

// The pure-CUE way: every environment x module pair unified in CUE.
applications: {
	for envName, env in environments {
		(envName): {
			for name, m in modules
			if strings.HasPrefix(name, "module-")
			let settings = *env.modules[name] | {}
			if (*settings.enabled | true) && !(_member[name] != _|_) {
				(name): _app & {_env: env, _envName: envName, _name: name, _m: m, _settings: settings}
			}
			for gname, g in modules if g.group != _|_ for name in g.group
			let settings = *env.modules[name] | {}
			if (*settings.enabled | true) {
				(name): _app & {_env: env, _envName: envName, _name: name, _m: modules[name], _settings: settings}
			}
		}
	}
}

_member: {for _, g in modules if g.group != _|_ for name in g.group {(name): true}}

_app: {
	_env: _, _envName: string, _name: string, _m: _, _settings: _
	apiVersion: "argoproj.io/v1alpha1"
	kind:       "Application"
	metadata: {
		name:      _name
		namespace: "argocd"
		annotations: {
			"argocd.argoproj.io/sync-wave": "\(*_m.wave | 0)"
			if _m.path != _|_ {"argocd.argoproj.io/manifest-generate-paths": "/\(_m.path)"}
			if _m.group != _|_ {"argocd.argoproj.io/manifest-generate-paths": "/out/deploy/clusters/\(_envName)/\(_name)"}
		}
		finalizers: ["resources-finalizer.argocd.argoproj.io"]
	}
	spec: {
		project: "default"
		if _m.chart != _|_ {
			let c = charts[_m.chart]
			source: {
				repoURL:        c.repoURL
				chart:          c.chart
				targetRevision: c.version
				let wired = {
					if _m.wiring != _|_ {
						config: upstream: {
							let src = _m.wiring["config.upstream"].from
							let ext = *_env.modules[src].external | null
							if ext != null {"\(ext.scheme)://\(ext.host):\(ext.port)"}
							if ext == null {"\(modules[src].endpoint.scheme)://\(modules[src].endpoint.host):\(modules[src].endpoint.port)"}
						}
					}
				}
				helm: valuesObject: _m.values & (*_settings.values | {}) & wired
			}
			destination: {server: "https://kubernetes.default.svc", namespace: _m.namespace}
			syncPolicy: {automated: {prune: true, selfHeal: true}, syncOptions: ["CreateNamespace=true"]}
		}
		if _m.path != _|_ {
			source: {repoURL: platform.repoURL, targetRevision: _env.revision, path: _m.path}
			destination: {server: "https://kubernetes.default.svc", namespace: _m.namespace}
			syncPolicy: {automated: {prune: true, selfHeal: true}, syncOptions: ["CreateNamespace=true"]}
		}
		if _m.group != _|_ {
			source: {repoURL: platform.repoURL, targetRevision: _env.revision, path: "out/deploy/clusters/\(_envName)/\(_name)"}
			destination: {server: "https://kubernetes.default.svc", namespace: "argocd"}
			syncPolicy: automated: {prune: true, selfHeal: true}
			ignoreDifferences: [{
				group: "argoproj.io", kind: "Application"
				jqPathExpressions: [".metadata.finalizers[]? | select(startswith(\"pre-delete-finalizer.argocd.argoproj.io\") or startswith(\"post-delete-finalizer.argocd.argoproj.io\"))"]
			}]
		}
	}
}
`
}

// PlatformWithCharts is Platform with its charts locked and vendored: a
// small chart for every pin (a Deployment, a Service, a ConfigMap and an
// Ingress where enabled, a values.schema.json), in sources/charts/vendor,
// and sources/charts.lock with their digests, so that platc renders every
// chart of every Application offline, as it does for a platform that ran
// platc charts pull and platc charts vendor.
func PlatformWithCharts(s Size) fstest.MapFS {
	fsys := Platform(s)
	var lock charts.Lock
	pin := func(name, repoURL, chart, version string) {
		archive := chartArchive(chart, version)
		e := charts.Entry{Name: name, RepoURL: repoURL, Chart: chart, Version: version, Digest: charts.Digest(archive)}
		lock.Charts = append(lock.Charts, e)
		fsys["sources/"+charts.VendorDir+"/"+e.File()] = &fstest.MapFile{Data: archive}
	}
	for c := range max(1, s.Modules/5) {
		pin(fmt.Sprintf("chart-%03d", c), fmt.Sprintf("https://charts%d.example.com", c%7), fmt.Sprintf("chart-%03d", c), fmt.Sprintf("%d.%d.%d", 1+c%3, c%10, c%4))
	}
	pin("kro", "oci://registry.k8s.io/kro/charts", "kro", "0.9.3")
	if s.Clients > 0 {
		pin("redis", "https://charts.example.com/redis", "redis", "20.7.0")
		pin("collector", "https://charts.example.com/otel", "opentelemetry-collector", "0.120.0")
	}
	fsys["sources/"+charts.LockFile] = &fstest.MapFile{Data: lock.Marshal()}
	return fsys
}

// chartArchive is the small chart of every generated pin: its values.yaml
// has every key the generated platform sets.
func chartArchive(name, version string) []byte {
	return charts.BuildArchive(name, map[string][]byte{
		"Chart.yaml": fmt.Appendf(nil, "apiVersion: v2\nname: %s\nversion: %s\n", name, version),
		"values.yaml": []byte(`replicaCount: 1
image:
  repository: example/app
  tag: latest
resources: {}
podAnnotations: {}
ingress:
  enabled: false
  hosts: []
config: {}
architecture: replication
mode: daemonset
master:
  resources: {}
externalDatabase:
  host: ""
  port: 5432
  existingSecret: ""
`),
		"values.schema.json": []byte(`{"type": "object", "properties": {"replicaCount": {"type": "integer", "minimum": 0}, "ingress": {"type": "object", "properties": {"enabled": {"type": "boolean"}}}}}`),
		"templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    app.kubernetes.io/name: {{ .Chart.Name }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
      annotations: {{- toYaml .Values.podAnnotations | nindent 8 }}
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args: [{{ .Values.architecture | quote }}, {{ .Values.mode | quote }}]
          resources: {{- toYaml (merge .Values.resources .Values.master.resources) | nindent 12 }}
          env:
            - name: DATABASE_HOST
              value: {{ .Values.externalDatabase.host | quote }}
            - name: DATABASE_PORT
              value: {{ .Values.externalDatabase.port | quote }}
            - name: DATABASE_SECRET
              value: {{ .Values.externalDatabase.existingSecret | quote }}
`),
		"templates/service.yaml": []byte(`apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
    - port: 80
`),
		"templates/configmap.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  config.yaml: |
    {{- toYaml .Values.config | nindent 4 }}
`),
		"templates/ingress.yaml": []byte(`{{- if .Values.ingress.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
spec:
  rules:
  {{- range .Values.ingress.hosts }}
    - host: {{ . | quote }}
  {{- end }}
{{- end }}
`),
	})
}
