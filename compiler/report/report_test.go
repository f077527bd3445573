package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/report"
)

var update = flag.Bool("update", false, "rewrite the pages of testdata")

// compile compiles the repository dir, which must compile.
func compile(t *testing.T, dir string) *compiler.Result {
	t.Helper()
	res := compiler.Compile(os.DirFS(dir), compiler.Options{KeepFiles: true})
	if res.Log.HasErrors() {
		t.Fatalf("%s does not compile:\n%s", dir, res.Log)
	}
	return res
}

// pages are the golden pages: the sample platform with a rehearsal's
// report, a case with stacks and two clients, and a client whose values
// file the platform overrides.
var pages = []struct {
	name, dir string
	in        report.Input
	rehearsal string
}{
	{name: "sample.html", dir: "../..", rehearsal: "testdata/rehearsal.json"},
	{name: "stacks.html", dir: "../../golden/stacks"},
	{name: "stacks-v1.2.0.html", dir: "../../golden/stacks", in: report.Input{Tag: "v1.2.0", Envs: []string{"prod"}}},
	{name: "clients-conflicts.html", dir: "../../golden/clients-conflicts"},
}

// TestPages compares whole pages with testdata; go test
// ./compiler/report -update rewrites them.
func TestPages(t *testing.T) {
	for _, tc := range pages {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Result, in.Repo = compile(t, tc.dir), os.DirFS(tc.dir)
			if tc.rehearsal != "" {
				data, err := os.ReadFile(tc.rehearsal)
				if err != nil {
					t.Fatal(err)
				}
				if in.Rehearsal, err = report.ReadRehearsal(data); err != nil {
					t.Fatal(err)
				}
			}
			var got bytes.Buffer
			if err := report.Write(&got, in); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name)
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s differs (-want +got); go test ./compiler/report -update rewrites it:\n%s", golden, diff)
			}
			// The same results make the same bytes.
			var again bytes.Buffer
			if err := report.Write(&again, in); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), again.Bytes()) {
				t.Errorf("two pages of the same results differ")
			}
			selfContained(t, got.String())
		})
	}
}

// selfContained fails when page loads anything: a script, a style sheet,
// an image, a font, a frame, or any URL but the page's own fragments.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|link|img|iframe|object|embed|base)\b`),
		regexp.MustCompile(`(?i)\b(src|srcset|href|xlink:href|action|poster)\s*=\s*"[^#"]`),
		regexp.MustCompile(`(?i)url\(\s*[^#\s]`),
		regexp.MustCompile(`(?i)@(import|font-face)`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("the page loads something: %q", m)
		}
	}
}

// TestEveryModuleAndEnvironment checks the sample's page names every
// module in its matrix and its picture (one node each), and every
// environment.
func TestEveryModuleAndEnvironment(t *testing.T) {
	res := compile(t, "../..")
	var b strings.Builder
	if err := report.Write(&b, report.Input{Result: res}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<g class="node `); n != len(res.Spec.Modules) {
		t.Errorf("the picture has %d nodes, want one per module (%d)", n, len(res.Spec.Modules))
	}
	for _, m := range res.Spec.Modules {
		if n := strings.Count(page, `<tr data-module="`+m.Name+`">`); n != 1 {
			t.Errorf("module %s has %d rows in the matrix, want 1", m.Name, n)
		}
		if !strings.Contains(page, `data-module="`+m.Name+`"><title>`) {
			t.Errorf("the picture has no node for module %s", m.Name)
		}
	}
	for _, e := range res.Spec.Environments {
		if !strings.Contains(page, `<th data-env="`+e.Name+`">`) {
			t.Errorf("the matrix has no column for environment %s", e.Name)
		}
	}
}

func TestUnknownEnvironment(t *testing.T) {
	res := compile(t, "../../golden/stacks")
	err := report.Write(&bytes.Buffer{}, report.Input{Result: res, Envs: []string{"staging"}})
	want := `the spec has no environment "staging": name one of dev, prod`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestReleased(t *testing.T) {
	res := compile(t, "../../golden/stacks")
	if got := report.Released(res.Spec, "v1.2.0"); !cmp.Equal(got, []string{"prod"}) {
		t.Errorf("Released(v1.2.0) = %v, want [prod]", got)
	}
	if got := report.Released(res.Spec, "v1.3.0"); got != nil {
		t.Errorf("Released(v1.3.0) = %v, want none", got)
	}
}

func TestReadRehearsal(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"applications": [{"name": "web", "colour": "red"}]}`, `not a rehearsal's report (the JSON E2E_REPORT or make rehearse's -report writes): json: unknown field "colour"`},
		{`{"checks": []} {}`, `not a rehearsal's report: more than one JSON document`},
		{`[1]`, `not a rehearsal's report (the JSON E2E_REPORT or make rehearse's -report writes): json: cannot unmarshal array into Go value of type report.Rehearsal`},
	} {
		_, err := report.ReadRehearsal([]byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadRehearsal(%s) = %v, want %s", tc.data, err, tc.want)
		}
	}
	r, err := report.ReadRehearsal([]byte(`{"applications": [{"environment": "dev", "name": "web", "verdict": "ok", "wave": 2}], "checks": [{"name": "waves", "pass": true, "seconds": 3.4}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Apps) != 1 || r.Apps[0].Wave != 2 || r.Checks[0].Took() != "3 s" {
		t.Errorf("read %+v", r)
	}
}

// TestPagesAreWellFormed reads every golden page with an HTML tokenizer:
// every element but the void ones is closed, in order, so that no
// browser has to repair the page (and repair it its own way).
func TestPagesAreWellFormed(t *testing.T) {
	void := map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "input": true, "link": true, "wbr": true, "col": true, "area": true, "base": true, "source": true}
	for _, tc := range pages {
		data, err := os.ReadFile(filepath.Join("testdata", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		z := html.NewTokenizer(bytes.NewReader(data))
		var open []string
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			name, _ := z.TagName()
			tag := string(name)
			switch tt {
			case html.StartTagToken:
				if !void[tag] {
					open = append(open, tag)
				}
			case html.EndTagToken:
				if len(open) == 0 || open[len(open)-1] != tag {
					t.Errorf("%s: </%s> closes %v", tc.name, tag, open)
					continue
				}
				open = open[:len(open)-1]
			case html.SelfClosingTagToken:
				// SVG's <path/>.
			}
		}
		if len(open) > 0 {
			t.Errorf("%s: unclosed %v", tc.name, open)
		}
	}
}
