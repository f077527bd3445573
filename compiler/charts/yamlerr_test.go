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
