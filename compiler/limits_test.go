package compiler_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler"
)

// limitsSpec is a platform with one chart module whose values are values
// (CUE), and one stack whose description and module values are given.
func limitsSpec(values, description, stackValues string) fstest.MapFS {
	spec := `package platform

platform: {name: "p", repoURL: "https://git.example.com/p.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: {
	kro: {chart: "redis", namespace: "kro-system"}
	web: {chart: "redis", namespace: "web", values: ` + values + `}
	definitions: {definitions: ["cache"], needs: ["kro"]}
	teams: {stacks: ["cache"], namespace: "teams"}
}
environments: dev: revision: "HEAD"
stacks: cache: {
	kind: "TeamCache"
	description: ` + description + `
	modules: redis: {chart: "redis", values: ` + stackValues + `}
}
clients: blue: {values: repoURL: "https://git.example.com/blue.git", stacks: cache: environments: ["dev"]}
`
	return fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}}
}

// TestObjectLimits renders objects at and past the API server's limits and
// compares the problems, exactly.
func TestObjectLimits(t *testing.T) {
	big := func(s string, n int) string { return `"` + strings.Repeat(s, n) + `"` }
	tests := []struct {
		name                             string
		values, description, stackValues string
		want                             string
	}{
		{
			name:   "within every limit",
			values: "{note: " + big("x", 1<<20) + "}", description: big("d", 200<<10), stackValues: "{}",
		},
		{
			name:   "an Application over the size limit",
			values: "{note: " + big("x", 2<<20) + "}", description: `"a cache"`, stackValues: "{}",
			want: "sources/platform.cue:7:42: modules.web.values: Application \"web\" (out/deploy/clusters/dev/apps.yaml) is 2097693 bytes as JSON (2.0 MiB), more than the API server can store (1572864 bytes, 1.5 MiB, etcd's request limit): keep large values out of the spec (in the chart, a values file or a ConfigMap) [size-limit]\n",
		},
		{
			// 300 KiB of YAML, six times that as JSON: < is \u003c.
			name:   "small as YAML, over the limit as JSON",
			values: "{note: " + big("<", 300<<10) + "}", description: `"a cache"`, stackValues: "{}",
			want: "sources/platform.cue:7:42: modules.web.values: Application \"web\" (out/deploy/clusters/dev/apps.yaml) is 1843741 bytes as JSON (1.8 MiB), more than the API server can store (1572864 bytes, 1.5 MiB, etcd's request limit): keep large values out of the spec (in the chart, a values file or a ConfigMap) [size-limit]\n",
		},
		{
			name:   "annotations over their limit",
			values: "{}", description: big("d", 257<<10), stackValues: "{}",
			want: "sources/platform.cue:14:2: stacks.cache.description: ResourceGraphDefinition \"cache\" (out/stacks/cache.yaml): the annotations hold 263189 bytes, more than the 262144 (256 KiB) Kubernetes allows an object: shorten them [metadata]\n",
		},
		{
			name:   "an Application kro creates over the size limit",
			values: "{}", description: `"a cache"`, stackValues: "{note: " + big("y", 1<<20) + ", more: " + big("z", 1<<20) + "}",
			want: "sources/platform.cue:12:9: stacks.cache: ResourceGraphDefinition \"cache\" (out/stacks/cache.yaml) is 2098816 bytes as JSON (2.0 MiB), more than the API server can store (1572864 bytes, 1.5 MiB, etcd's request limit): keep large values out of the spec (in the chart, a values file or a ConfigMap) [size-limit]\n" +
				"sources/platform.cue:15:11: stacks.cache.modules.redis: Application \"blue-redis\" (created by kro for blue in dev) is 2097943 bytes as JSON (2.0 MiB), more than the API server can store (1572864 bytes, 1.5 MiB, etcd's request limit): keep large values out of the stack (in the chart, or a values file) [size-limit]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compiler.Compile(limitsSpec(tt.values, tt.description, tt.stackValues), compiler.Options{})
			if got := res.Log.String(); got != tt.want {
				t.Errorf("problems:\n%.3000s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestChartObjectLimits renders, from an in-house chart, a ConfigMap over
// the API server's 1 MiB of data and a ConfigMap over its 1.5 MiB of
// JSON: each is an error.
func TestChartObjectLimits(t *testing.T) {
	fsys := fstest.MapFS{
		"sources/platform.cue": {Data: []byte(`package platform

platform: {name: "p", repoURL: "https://git.example.com/p.git"}
modules: big: {path: "sources/charts/big", namespace: "big"}
environments: dev: revision: "HEAD"
`)},
		"sources/charts/big/Chart.yaml":  {Data: []byte("apiVersion: v2\nname: big\nversion: 1.0.0\n")},
		"sources/charts/big/values.yaml": {Data: []byte("dataBytes: 1100000\njsonBytes: 300000\n")},
		"sources/charts/big/templates/cm.yaml": {Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: data
data:
  a: {{ repeat (int .Values.dataBytes) "x" | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: json
data:
  a: {{ repeat (int .Values.jsonBytes) "<" | quote }}
`)},
	}
	res := compiler.Compile(fsys, compiler.Options{})
	want := `sources/platform.cue:4:10: modules.big: the chart in sources/charts/big renders ConfigMap "data" (big/templates/cm.yaml) for Application "big" (out/deploy/clusters/dev/apps.yaml), which the API server refuses: its data are 1100000 bytes (1.0 MiB), more than a ConfigMap may hold (1048576 bytes, 1 MiB): make it smaller in the chart's values, or split it [size-limit]
sources/platform.cue:4:10: modules.big: the chart in sources/charts/big renders ConfigMap "json" (big/templates/cm.yaml) for Application "big" (out/deploy/clusters/dev/apps.yaml), which the API server refuses: it is 1800081 bytes as JSON (1.7 MiB), more than the API server can store (1572864 bytes, 1.5 MiB, etcd's request limit): make it smaller in the chart's values, or split it [size-limit]
`
	if got := res.Log.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
