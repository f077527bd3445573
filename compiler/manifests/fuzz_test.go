package manifests

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzBuild builds a kustomization and a plain folder from arbitrary
// files: Build must not panic, must give the same result twice, and every
// problem must be one line without a trailing period.
func FuzzBuild(f *testing.F) {
	f.Add("resources: [a.yaml]\nnamePrefix: p-\n", configMapA)
	f.Add("resources: [a.yaml]\nnamespace: ns\nconfigMapGenerator:\n- name: c\n  literals: [a=b]\n", "apiVersion: v1\nkind: List\nitems:\n- "+strings.ReplaceAll(configMapA, "\n", "\n  "))
	f.Add("resources: [a.yaml]\nreplacements:\n- source: {kind: ConfigMap, fieldPath: data.x}\n  targets:\n  - select: {kind: ConfigMap}\n    fieldPaths: [metadata.annotations.y]\n", configMapA+"data: {x: \"1\"}\n")
	f.Add("resources: [a.yaml]\npatches:\n- patch: |-\n    - op: add\n      path: /metadata/labels/x\n      value: y\n  target: {kind: ConfigMap}\n", configMapA+"  annotations: 5\n")
	f.Add("resources: [a.yaml, ../x, https://example.com/a.yaml]\n", "a: [")
	f.Add("{\"resources\": [\"a.yaml\"]}", "{\"apiVersion\": \"v1\"}")
	f.Fuzz(func(t *testing.T, kustomization, resource string) {
		fsys := repo("k/kustomization.yaml", kustomization, "k/a.yaml", resource, "m/a.yaml", resource, "m/b.json", resource)
		for _, dir := range []string{"k", "m"} {
			objects, problems := Build(fsys, dir, nil)
			objects2, problems2 := Build(fsys, dir, nil)
			if diff := cmp.Diff(objects, objects2); diff != "" {
				t.Errorf("%s: objects differ between two builds:\n%s", dir, diff)
			}
			if diff := cmp.Diff(problems, problems2); diff != "" {
				t.Errorf("%s: problems differ between two builds:\n%s", dir, diff)
			}
			for _, p := range problems {
				if p.Msg == "" || strings.ContainsAny(p.Msg, "\n\r") || strings.HasSuffix(p.Msg, ".") {
					t.Errorf("%s: problem %q is not one line without a trailing period", dir, p.Msg)
				}
			}
		}
	})
}
