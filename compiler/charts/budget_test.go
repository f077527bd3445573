package charts

import (
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// limitMemory keeps a test that a render must bound within 1 GiB.
func limitMemory(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
}

func budgetChart(t *testing.T, values, template string) *Chart {
	t.Helper()
	ch, err := LoadArchive(BuildArchive("loop", map[string][]byte{
		"Chart.yaml":          []byte("apiVersion: v2\nname: loop\nversion: 1.0.0\n"),
		"values.yaml":         []byte(values),
		"templates/cm.yaml":   []byte(template),
		"templates/_help.tpl": []byte(`{{- define "loop.self" -}}{{ include "loop.self" . }}{{- end -}}` + "\n" + `{{- define "loop.a" -}}{{ include "loop.b" . }}{{- end -}}{{- define "loop.b" -}}{{ include "loop.a" . }}{{- end -}}`),
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// A chart whose values tpl themselves, whose defines include themselves
// or each other, or whose loops do not end is an error naming the
// budget, in a message of a few lines.
func TestRenderBudget(t *testing.T) {
	limitMemory(t)
	old := renderBudget
	t.Cleanup(func() { renderBudget = old })
	renderBudget.Output = 1 << 20
	req := Request{Release: "r", Namespace: "ns"}
	cases := []struct {
		name, values, template, want string
	}{
		{"tpl of itself", "x: '{{ tpl .Values.x . }}'\n", "data: {{ tpl .Values.x . }}\n",
			"its include and tpl calls nest more than 1000 deep (a template or value that includes or tpl's itself never ends) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"include of itself", "", `data: {{ include "loop.self" . }}` + "\n",
			"its include and tpl calls nest more than 1000 deep (a template or value that includes or tpl's itself never ends) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"defines including each other", "", `data: {{ include "loop.a" . }}` + "\n",
			"its include and tpl calls nest more than 1000 deep (a template or value that includes or tpl's itself never ends) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"repeat", "", `data: {{ repeat 1000000000000 "ab" }}` + "\n",
			"its templates write more than 1 MiB (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"until", "", `{{ range until 1000000000000 }}{{ end }}`,
			"its templates write more than 1 MiB (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"a loop that writes", "", `{{ range $i := 100000000000 }}abcdefghijklmnopqrstuvwxyz{{ end }}`,
			"its templates write more than 1 MiB (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"a loop that writes nothing", "", `{{ range 1000000000000 }}{{ end }}`,
			"its range loops and include and tpl calls take more than 1000000 steps (a loop that never ends, or includes that multiply) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"loops nested over a short list", "l: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n", `{{ range $a := .Values.l }}{{ range $b := $.Values.l }}{{ range $c := $.Values.l }}{{ range $d := $.Values.l }}{{ range $e := $.Values.l }}{{ range $f := $.Values.l }}{{ end }}{{ end }}{{ end }}{{ end }}{{ end }}{{ end }}`,
			"its range loops and include and tpl calls take more than 1000000 steps (a loop that never ends, or includes that multiply) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"an include that doubles and writes nothing", "", `{{ define "d0" }}{{ end }}` + doubling(40) + `data: {{ include "d40" . }}`,
			"its range loops and include and tpl calls take more than 1000000 steps (a loop that never ends, or includes that multiply) (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
		{"an include that doubles", "", `{{ define "d0" }}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{{ end }}` + doubling(40) + `data: {{ include "d40" . }}`,
			"its templates write more than 1 MiB (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := Render(budgetChart(t, c.values, c.template), req)
			if out.Error != c.want {
				t.Errorf("error:\n%.3000s\nwant:\n%s", out.Error, c.want)
			}
		})
	}
}

// doubling defines dN as two includes of dN-1, for N from 1 to n.
func doubling(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString(`{{ define "d` + itoa(i) + `" }}{{ include "d` + itoa(i-1) + `" . }}{{ include "d` + itoa(i-1) + `" . }}{{ end }}`)
	}
	return sb.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + itoa(i%10)
}

// A render that runs past its time is an error, and its outcome is not
// cached (a loaded machine would make it so).
func TestRenderTimeBudget(t *testing.T) {
	old := renderBudget
	t.Cleanup(func() { renderBudget = old })
	var now time.Time
	renderBudget.Now = func() time.Time {
		now = now.Add(time.Second) // each look at the clock, a second later
		return now
	}
	want := "it renders for more than 2m0s (in loop/templates/cm.yaml), platc's budget for a render: fix the chart or its values"
	for _, template := range []string{
		`{{ range $i := 100000 }}{{ include "d0" . }}{{ end }}{{ define "d0" }}a{{ end }}`,
		// Loops that write nothing and call nothing: a range over a
		// number, and ranges nested in a define and in tpl.
		`{{ range 1000000000000 }}{{ end }}`,
		`{{ include "spin" . }}{{ define "spin" }}{{ range $a := .Values.l }}{{ range $b := $.Values.l }}{{ range $c := $.Values.l }}{{ end }}{{ end }}{{ end }}{{ end }}`,
		`{{ tpl "{{ if true }}{{ range 1000000000000 }}{{ end }}{{ end }}" . }}`,
	} {
		now = time.Time{}
		out := Render(budgetChart(t, "l: ["+strings.Repeat("1, ", 99)+"1]\n", template), Request{Release: "r", Namespace: "ns"})
		if out.Error != want || !out.transient {
			t.Errorf("%s: error %q (transient %v), want %q (transient)", template, out.Error, out.transient, want)
		}
	}
}

// Helm's message for an error quotes at most a few lines of a
// template, and is cut to a few lines.
func TestRenderMessageShort(t *testing.T) {
	long := strings.Repeat("{{ fail \"no\" }} line\n", 200)
	out := Render(budgetChart(t, "x: |\n"+indent(long)+"\n", "data: {{ tpl .Values.x . }}\n"), Request{Release: "r", Namespace: "ns"})
	if len(out.Error) > 2100 || strings.Count(out.Error, "\n") > 8 {
		t.Errorf("message of %d bytes, %d lines:\n%s", len(out.Error), strings.Count(out.Error, "\n")+1, out.Error)
	}
	if got := shortMessage(strings.Repeat("line\n", 100)); got != strings.TrimSuffix(strings.Repeat("line\n", 8), "\n")+" ... (461 more bytes of Helm's message left out)" {
		t.Errorf("shortMessage: %q", got)
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ")
}

// A chart whose subcharts' archives unpack to more than the budget, all
// together, is refused before Helm's loader holds them, whether it is an
// archive or a folder; each subchart alone is within Helm's limit.
func TestChartSizeBudget(t *testing.T) {
	old := maxChartSize
	t.Cleanup(func() { maxChartSize = old })
	maxChartSize = 1 << 20
	zeros := make([]byte, 300<<10)
	sub := BuildArchive("sub", map[string][]byte{"Chart.yaml": []byte("apiVersion: v2\nname: sub\nversion: 1.0.0\n"), "files/zeros": zeros})
	files := map[string][]byte{"Chart.yaml": []byte("apiVersion: v2\nname: big\nversion: 1.0.0\n")}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files["charts/"+n+".tgz"] = sub
	}
	want := "the chart and its subcharts unpack to more than 1 MiB, platc's budget for a chart: remove what the chart does not need"
	if _, err := LoadArchive(BuildArchive("big", files)); err == nil || err.Error() != want {
		t.Errorf("archive: %v, want %s", err, want)
	}
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys["big/"+name] = &fstest.MapFile{Data: data}
	}
	if _, err := LoadFolder(fsys, "big"); err == nil || err.Error() != want {
		t.Errorf("folder: %v, want %s", err, want)
	}
	delete(files, "charts/e.tgz")
	delete(files, "charts/d.tgz")
	if _, err := LoadArchive(BuildArchive("big", files)); err != nil {
		t.Errorf("three subcharts: %v", err)
	}
}
