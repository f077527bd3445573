package load

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
)

const header = `package platform

platform: {name: "p", repoURL: "https://git.example.com/p.git"}
environments: dev: revision: "HEAD"
`

// loadSpec loads the spec files (by name under sources/) and returns the
// spec and the problems as platc prints them.
func loadSpec(t *testing.T, files map[string]string) (*Spec, string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys["sources/"+name] = &fstest.MapFile{Data: []byte(src)}
	}
	log := &diag.Log{}
	s := Load(fsys, "sources", log)
	return s, log.String()
}

// TestTypeMismatch checks the message of a value of the wrong kind: at the
// value that does not fit (not at another declaration of the same field),
// in the spec's words, and never the whole of a struct.
func TestTypeMismatch(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			"a section written as a list, beside a struct in another file",
			map[string]string{
				"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", description: \"" + strings.Repeat("long ", 200) + "\"}\n",
				"b.cue": "package platform\n\nmodules: [{chart: \"c\"}]\n",
			},
			"sources/b.cue:3:10: modules: is a list, but the spec declares `modules?: [string]: #Module`: write a struct, {name: value, ...} [spec-type]\n",
		},
		{
			"an entry written as a list",
			map[string]string{"a.cue": header + "modules: web: [1, 2]\n"},
			"sources/a.cue:5:15: modules.web: is a list, but the spec declares `modules?: [string]: #Module`: write a struct, {name: value, ...} [spec-type]\n",
		},
		{
			"a scalar of the wrong kind",
			map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", wave: \"1\", createNamespace: 1}\n"},
			"sources/a.cue:5:52: modules.web.wave: is a string (\"1\"), but the spec declares `wave?: int`: write an integer [spec-type]\n" +
				"sources/a.cue:5:74: modules.web.createNamespace: is an integer (1), but the spec declares `createNamespace?: bool`: write true or false [spec-type]\n",
		},
		{
			"list elements of the wrong kind, and a struct among them",
			map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", needs: [\"db\", 2, {name: \"x\"}]}\n"},
			"sources/a.cue:5:60: modules.web.needs[1]: is an integer (2), but the spec declares `needs?: [...string]`: write a string, \"...\" [spec-type]\n" +
				"sources/a.cue:5:63: modules.web.needs[2]: is a struct, but the spec declares `needs?: [...string]`: write a string, \"...\" [spec-type]\n",
		},
		{
			"a long list says the same of its elements",
			map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", needs: [\n" + longNeeds(300, map[int]string{250: "2", 299: "true"}) + "]}\n"},
			"sources/a.cue:256:2: modules.web.needs[250]: is an integer (2), but the spec declares `needs?: [...string]`: write a string, \"...\" [spec-type]\n" +
				"sources/a.cue:305:2: modules.web.needs[299]: is a boolean (true), but the spec declares `needs?: [...string]`: write a string, \"...\" [spec-type]\n",
		},
		{
			"a long list where a struct is declared is refused as a list, short or long",
			map[string]string{"a.cue": header + "modules: [\n" + longNeeds(300, nil) + "]\n"},
			"sources/a.cue:5:10: modules: is a list, but the spec declares `modules?: [string]: #Module`: write a struct, {name: value, ...} [spec-type]\n",
		},
		{
			"a short list where a struct is declared",
			map[string]string{"a.cue": header + "modules: [\n" + longNeeds(3, nil) + "]\n"},
			"sources/a.cue:5:10: modules: is a list, but the spec declares `modules?: [string]: #Module`: write a struct, {name: value, ...} [spec-type]\n",
		},
		{
			"a long list where the schema does not look is not checked",
			map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", values: hosts: [\n" + longNeeds(300, map[int]string{3: "2"}) + "]}\n"},
			"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := loadSpec(t, tt.files)
			if got != tt.want {
				t.Errorf("problems:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestBuildErrorReported requires a spec that does not build (a reference
// to nothing: not plain data, so built once, before the schema check) to
// be reported where the reference is, once.
func TestBuildErrorReported(t *testing.T) {
	_, got := loadSpec(t, map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: _ns}\n"})
	want := "sources/a.cue:5:39: modules.web.namespace: reference \"_ns\" not found [cue]\n"
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

// longNeeds writes n elements of a list, one per line: module names, and
// the literals of bad at their indices.
func longNeeds(n int, bad map[int]string) string {
	var b strings.Builder
	for i := range n {
		if lit, ok := bad[i]; ok {
			fmt.Fprintf(&b, "\t%s,\n", lit)
		} else {
			fmt.Fprintf(&b, "\t\"m%d\",\n", i)
		}
	}
	return b.String()
}

// TestLongListReadInFull checks that a long list the schema check hands to
// CUE without its elements is read in full where the spec does not fit:
// every element, each OK unless it was reported.
func TestLongListReadInFull(t *testing.T) {
	s, problems := loadSpec(t, map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", needs: [\n" + longNeeds(300, map[int]string{7: "7"}) + "]}\n"})
	if s == nil || s.Checked() {
		t.Fatalf("the spec fits, want a problem at needs[7]:\n%s", problems)
	}
	needs := s.Data.Lookup("modules").Lookup("web").Lookup("needs")
	if needs == nil || needs.Kind != List || len(needs.Elems) != 300 {
		t.Fatalf("needs read as %+v, want the 300 elements", needs)
	}
	for i, e := range needs.Elems {
		if want := i != 7; e.OK != want {
			t.Errorf("needs[%d] is OK=%v, want %v", i, e.OK, want)
		}
		if i == 10 && (e.Kind != String || e.Str != "m10" || e.Pos.Line != 16) {
			t.Errorf("needs[10] = %+v, want \"m10\" at line 16", e)
		}
	}
}

// TestLongListThatFits checks that a long list that fits reads as written.
func TestLongListThatFits(t *testing.T) {
	s, problems := loadSpec(t, map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", needs: [\n" + longNeeds(1000, nil) + "]}\n"})
	if s == nil || !s.Checked() || problems != "" {
		t.Fatalf("the spec does not fit:\n%s", problems)
	}
	if n := len(s.Data.Lookup("modules").Lookup("web").Lookup("needs").Elems); n != 1000 {
		t.Errorf("%d elements, want 1000", n)
	}
}

// TestUnknownFieldSuggestsDeclaredFields checks that "did you mean" offers
// the fields the schema declares, never another unknown field.
func TestUnknownFieldSuggestsDeclaredFields(t *testing.T) {
	_, got := loadSpec(t, map[string]string{"a.cue": header + "modules: web: {\n\tchrt: \"c\", namespace: \"web\"\n\tfield1: 1\n\tfield2: 2\n}\n"})
	want := "sources/a.cue:6:2: modules.web.chrt: unknown field \"chrt\": did you mean \"chart\"? [unknown-field]\n" +
		"sources/a.cue:7:2: modules.web.field1: unknown field \"field1\": remove it or check its spelling (`platc schema` lists the fields) [unknown-field]\n" +
		"sources/a.cue:8:2: modules.web.field2: unknown field \"field2\": remove it or check its spelling (`platc schema` lists the fields) [unknown-field]\n"
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}

// TestUnifiedListWithErrors checks that a list with a bad element reads as
// a list, element by element, in a spec that does not fit.
func TestUnifiedListWithErrors(t *testing.T) {
	s, problems := loadSpec(t, map[string]string{"a.cue": header + "modules: web: {chart: \"c\", namespace: \"web\", needs: [\"db\", {x: 1}]}\n"})
	if s == nil || s.Checked() {
		t.Fatalf("the spec fits, want a problem:\n%s", problems)
	}
	needs := s.Data.Lookup("modules").Lookup("web").Lookup("needs")
	if needs == nil || needs.Kind != List || len(needs.Elems) != 2 || !needs.Elems[0].OK || needs.Elems[0].Str != "db" || needs.Elems[1].OK {
		t.Errorf("needs read as %+v, want [\"db\", (not OK)]", needs)
	}
}
