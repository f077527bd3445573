package charts

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// TestYAMLErrorsOfChartFiles places and explains a syntax error of the
// lock, of an in-repo chart's Chart.yaml and values.yaml, and of a values
// file, one cause each.
func TestYAMLErrorsOfChartFiles(t *testing.T) {
	_, err := ParseLock([]byte("charts:\n\t- chart: x\n"))
	if got, want := fmt.Sprint(err), "2:1: a tab character: YAML indents with spaces only; replace the tab with spaces (YAML: found character that cannot start any token)"; got != want {
		t.Errorf("lock:\ngot  %s\nwant %s", got, want)
	}
	if _, err := ParseLock([]byte("charts: []\nsurplus: 1\n")); err == nil || strings.Contains(err.Error(), "(YAML:") {
		t.Errorf("an unknown field of the lock is no syntax error: %v", err)
	}
	for _, tt := range []struct{ file, data, want string }{
		{"Chart.yaml", "apiVersion: v2\nname: c\n\tversion: 1.0.0\n", "charts/c/Chart.yaml:3:1: a tab character: YAML indents with spaces only; replace the tab with spaces (YAML: found a tab character that violates indentation)"},
		{"values.yaml", "a: 1\nb: \"open\n", "charts/c/values.yaml:2:4: a quote that is never closed: close it on the same line (YAML: found unexpected end of stream)"},
		{"values.yaml", "a:\n  b: 1\n c: 2\n", "charts/c/values.yaml:3:2: this line is not indented as the keys (or list entries) around it: align it with its siblings (YAML: did not find expected key)"},
	} {
		files := fstest.MapFS{
			"charts/c/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\n")},
			"charts/c/templates/a.yaml": {Data: []byte("kind: ConfigMap\n")},
		}
		files["charts/c/"+tt.file] = &fstest.MapFile{Data: []byte(tt.data)}
		_, err := LoadFolder(files, "charts/c")
		if got := fmt.Sprint(err); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.file, got, tt.want)
		}
	}
	_, err = mergeValues(Request{ValueFiles: []ValuesFile{{Name: "values/web.yaml", Data: []byte("image: repo: tag\n")}}})
	if got, want := fmt.Sprint(err), "value file values/web.yaml:1:12: a ': ' inside a value: quote the value (YAML: mapping values are not allowed in this context)"; got != want {
		t.Errorf("value file:\ngot  %s\nwant %s", got, want)
	}
}

// TestHelmReadsDuplicateKeys holds platc's reading of a key set twice
// (diag.DuplicateKeys: a warning and the last value) to Helm's own: a
// values file, a chart's values.yaml and its Chart.yaml load, and the
// last value wins; platc's lock refuses one.
func TestHelmReadsDuplicateKeys(t *testing.T) {
	values, err := mergeValues(Request{ValueFiles: []ValuesFile{{Name: "values/web.yaml", Data: []byte("replicas: 1\nimage:\n  tag: a\n  tag: b\nreplicas: 2\n")}}})
	if err != nil {
		t.Fatalf("Helm refuses a values file with a key set twice: %v", err)
	}
	if got := fmt.Sprint(values); got != "map[image:map[tag:b] replicas:2]" {
		t.Errorf("values file: Helm read %s, not the last values", got)
	}
	ch, err := LoadFolder(fstest.MapFS{
		"charts/c/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\nversion: 2.0.0\n")},
		"charts/c/values.yaml":      {Data: []byte("a: 1\na: 2\n")},
		"charts/c/templates/a.yaml": {Data: []byte("kind: ConfigMap\n")},
	}, "charts/c")
	if err != nil {
		t.Fatalf("Helm refuses a chart with a key set twice: %v", err)
	}
	if got := fmt.Sprint(ch.helm.Metadata.Version, " ", ch.helm.Values); got != "2.0.0 map[a:2]" {
		t.Errorf("chart: Helm read %s, not the last values", got)
	}
	_, err = ParseLock([]byte("charts: []\ncharts: []\n"))
	if got, want := fmt.Sprint(err), `2:1: key "charts" is set twice (first at line 1): remove one of them (YAML: mapping key "charts" already defined at line 1)`; got != want {
		t.Errorf("lock:\ngot  %s\nwant %s", got, want)
	}
}
