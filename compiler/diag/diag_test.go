package diag

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPosString(t *testing.T) {
	tests := []struct {
		name string
		pos  Pos
		want string
	}{
		{"no file is a dash", Pos{}, "-"},
		{"no file ignores line and column", Pos{Line: 3, Col: 4}, "-"},
		{"file only", Pos{File: "sources/platform.cue"}, "sources/platform.cue"},
		{"file with zero line ignores column", Pos{File: "a.cue", Col: 7}, "a.cue"},
		{"file and line", Pos{File: "a.cue", Line: 12}, "a.cue:12"},
		{"file, line and column", Pos{File: "a.cue", Line: 12, Col: 5}, "a.cue:12:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.pos.String(); got != tt.want {
				t.Errorf("Pos%+v.String() = %q, want %q", tt.pos, got, tt.want)
			}
		})
	}
}

func TestPosIsValid(t *testing.T) {
	tests := []struct {
		pos  Pos
		want bool
	}{
		{Pos{}, false},
		{Pos{Line: 1, Col: 1}, false},
		{Pos{File: "a.cue"}, true},
		{Pos{File: "a.cue", Line: 2, Col: 3}, true},
	}
	for _, tt := range tests {
		if got := tt.pos.IsValid(); got != tt.want {
			t.Errorf("Pos%+v.IsValid() = %v, want %v", tt.pos, got, tt.want)
		}
	}
}

func TestPosCompare(t *testing.T) {
	tests := []struct {
		name string
		a, b Pos
		want int
	}{
		{"equal", Pos{"a.cue", 1, 2}, Pos{"a.cue", 1, 2}, 0},
		{"file decides first", Pos{"a.cue", 9, 9}, Pos{"b.cue", 1, 1}, -1},
		{"line decides second", Pos{"a.cue", 2, 1}, Pos{"a.cue", 1, 9}, 1},
		{"column decides last", Pos{"a.cue", 1, 2}, Pos{"a.cue", 1, 3}, -1},
		{"no file sorts first", Pos{}, Pos{"a.cue", 0, 0}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Compare(tt.b); got != tt.want {
				t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	pos := Pos{File: "sources/platform.cue", Line: 4, Col: 9}
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{
			name: "error with path",
			p:    Problem{Pos: pos, Path: "modules.qdrant.chart", Msg: "unknown chart \"qdrnt\""},
			want: `sources/platform.cue:4:9: modules.qdrant.chart: unknown chart "qdrnt"`,
		},
		{
			name: "error without path",
			p:    Problem{Pos: Pos{File: "sources"}, Msg: "no .cue files"},
			want: "sources: no .cue files",
		},
		{
			name: "warning with path",
			p:    Problem{Pos: pos, Path: "platform.name", Msg: "long name", Severity: Warning},
			want: "sources/platform.cue:4:9: warning: platform.name: long name",
		},
		{
			name: "warning without path",
			p:    Problem{Pos: pos, Msg: "nothing to render", Severity: Warning},
			want: "sources/platform.cue:4:9: warning: nothing to render",
		},
		{
			name: "no position",
			p:    Problem{Path: "platform", Msg: "broken"},
			want: "platc: platform: broken",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogReportfFormatsTheMessageWithTheSeverityOfItsID(t *testing.T) {
	var l Log
	l.Reportf(UnknownName, Pos{File: "a.cue", Line: 1}, "modules.x", "unknown module %q (did you mean %q?)", "x", "y")
	l.Reportf(NoEffect, Pos{File: "a.cue", Line: 2}, "", "%d modules", 3)
	want := []Problem{
		{ID: UnknownName, Pos: Pos{File: "a.cue", Line: 1}, Path: "modules.x", Msg: `unknown module "x" (did you mean "y"?)`, Severity: Error},
		{ID: NoEffect, Pos: Pos{File: "a.cue", Line: 2}, Msg: "3 modules", Severity: Warning},
	}
	if diff := cmp.Diff(want, l.Problems()); diff != "" {
		t.Errorf("Problems() (-want +got):\n%s", diff)
	}
}

func TestLogProblemsSortsAndRemovesExactDuplicates(t *testing.T) {
	var (
		bLine2      = Problem{Pos: Pos{"b.cue", 2, 1}, Path: "a", Msg: "m"}
		aLine10     = Problem{Pos: Pos{"a.cue", 10, 1}, Path: "a", Msg: "m"}
		aLine2Col5  = Problem{Pos: Pos{"a.cue", 2, 5}, Path: "a", Msg: "m"}
		aLine2Col1Z = Problem{Pos: Pos{"a.cue", 2, 1}, Path: "z", Msg: "m"}
		aLine2Col1A = Problem{Pos: Pos{"a.cue", 2, 1}, Path: "a", Msg: "second"}
		aLine2Col1B = Problem{Pos: Pos{"a.cue", 2, 1}, Path: "a", Msg: "first"}
		warnOfSame  = Problem{Pos: Pos{"a.cue", 2, 1}, Path: "a", Msg: "first", Severity: Warning}
		noPos       = Problem{Path: "platform", Msg: "m"}
	)
	var l Log
	for _, p := range []Problem{bLine2, aLine10, aLine2Col5, aLine2Col1Z, aLine2Col1A, warnOfSame, aLine2Col1B, noPos, aLine10, aLine2Col1B, aLine10} {
		l.Add(p)
	}
	want := []Problem{
		noPos,       // "" sorts before any file
		aLine2Col1B, // same position and path: by message
		warnOfSame,  // differs only in severity: not a duplicate, errors first
		aLine2Col1A,
		aLine2Col1Z, // same position: by path
		aLine2Col5,  // by column
		aLine10,     // by line (numerically, not as text)
		bLine2,      // by file
	}
	if diff := cmp.Diff(want, l.Problems()); diff != "" {
		t.Errorf("Problems() (-want +got):\n%s", diff)
	}
}

func TestLogProblemsDoesNotChangeTheLog(t *testing.T) {
	var l Log
	l.Add(Problem{Pos: Pos{File: "b.cue"}, Msg: "m"})
	l.Add(Problem{Pos: Pos{File: "a.cue"}, Msg: "m"})
	got := l.Problems()
	got[0].Msg = "changed by the caller"
	want := []Problem{{Pos: Pos{File: "a.cue"}, Msg: "m"}, {Pos: Pos{File: "b.cue"}, Msg: "m"}}
	if diff := cmp.Diff(want, l.Problems()); diff != "" {
		t.Errorf("Problems() after the caller changed an earlier result (-want +got):\n%s", diff)
	}
}

func TestLogString(t *testing.T) {
	var l Log
	if got := l.String(); got != "" {
		t.Errorf("empty Log.String() = %q, want \"\"", got)
	}
	l.Reportf(NoEffect, Pos{File: "b.cue", Line: 1, Col: 1}, "platform", "w")
	l.Reportf(UnknownName, Pos{File: "a.cue", Line: 3}, "", "e")
	l.Reportf(UnknownName, Pos{File: "a.cue", Line: 3}, "", "e")
	want := "a.cue:3: e [unknown-name]\nb.cue:1:1: warning: platform: w [no-effect]\n"
	if got := l.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestLogHasErrors(t *testing.T) {
	tests := []struct {
		name     string
		problems []Problem
		want     bool
	}{
		{"empty", nil, false},
		{"warnings only", []Problem{{Msg: "a", Severity: Warning}, {Msg: "b", Severity: Warning}}, false},
		{"one error", []Problem{{Msg: "a", Severity: Error}}, true},
		{"error after warnings", []Problem{{Msg: "a", Severity: Warning}, {Msg: "b", Severity: Error}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Log
			for _, p := range tt.problems {
				l.Add(p)
			}
			if got := l.HasErrors(); got != tt.want {
				t.Errorf("HasErrors() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLogIsSafeForConcurrentUse(t *testing.T) {
	const n = 64
	var l Log
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { l.Reportf(UnknownName, Pos{File: "a.cue", Line: i + 1}, "", "problem") })
	}
	wg.Wait()
	got := l.Problems()
	if len(got) != n {
		t.Fatalf("Problems() has %d problems, want %d", len(got), n)
	}
	for i, p := range got {
		if p.Pos.Line != i+1 {
			t.Errorf("Problems()[%d] is at line %d, want %d", i, p.Pos.Line, i+1)
		}
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		candidates []string
		want       string
	}{
		{"one substitution", "qdrnat", []string{"redis", "qdrant"}, "qdrant"},
		{"one deletion", "qdrnt", []string{"qdrant"}, "qdrant"},
		{"one insertion", "kyvernoo", []string{"kyverno"}, "kyverno"},
		{"swapped letters are two edits", "nmae", []string{"name"}, "name"},
		{"three edits is too far", "abcdef", []string{"abcxyz"}, ""},
		{"unrelated name", "redis", []string{"postgres", "kyverno"}, ""},
		{"no candidates", "redis", nil, ""},
		{"the name itself is never suggested", "name", []string{"name"}, ""},
		{"the name itself is skipped for a near one", "name", []string{"name", "names"}, "names"},
		{"closest wins", "kyvern", []string{"kyve", "kyverno"}, "kyverno"},
		{"first of equally close wins", "cat", []string{"bat", "hat"}, "bat"},
		{"candidate as short as the distance", "ab", []string{"b"}, ""},
		{"one-letter candidate for another letter", "a", []string{"b"}, ""},
		{"candidate longer than the distance", "abc", []string{"bc"}, "bc"},
		{"two edits to a three-letter candidate", "ab", []string{"xyb"}, "xyb"},
		{"two edits to a two-letter candidate", "abcd", []string{"ab"}, ""},
		{"two letters longer, two edits", "namespaceXY", []string{"namespace"}, "namespace"},
		{"two letters shorter, two edits", "namespa", []string{"namespace"}, "namespace"},
		{"three letters longer is too far", "namespaceXYZ", []string{"namespace"}, ""},
		{"a megabyte label is no typo", strings.Repeat("x", 1<<20), []string{"x", "xx", "xxx"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Suggest(tt.input, tt.candidates); got != tt.want {
				t.Errorf("Suggest(%q, %q) = %q, want %q", tt.input, tt.candidates, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"nmae", "name", 2},
		{"qdrnt", "qdrant", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestJoinPath(t *testing.T) {
	tests := []struct {
		name        string
		base, label string
		want        string
	}{
		{"plain label", "modules", "qdrant", "modules.qdrant"},
		{"dashes stay plain", "modules", "cert-manager", "modules.cert-manager"},
		{"underscore and dollar stay plain", "a", "_x$1", "a._x$1"},
		{"empty base", "", "platform", "platform"},
		{"dots are quoted", "modules.app.wiring", "a.b", `modules.app.wiring."a.b"`},
		{"dots are quoted with empty base", "", "a.b", `"a.b"`},
		{"leading digit is quoted", "charts", "1password", `charts."1password"`},
		{"leading dash is quoted", "charts", "-x", `charts."-x"`},
		{"space is quoted", "values", "a b", `values."a b"`},
		{"slash is quoted", "values", "a/b", `values."a/b"`},
		{"quotes are escaped", "values", `say "hi"`, `values."say \"hi\""`},
		{"empty label is quoted", "values", "", `values.""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JoinPath(tt.base, tt.label); got != tt.want {
				t.Errorf("JoinPath(%q, %q) = %q, want %q", tt.base, tt.label, got, tt.want)
			}
		})
	}
}

func TestParentPath(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"", ""},
		{"a", ""},
		{"a.b", "a"},
		{"modules.qdrant.chart", "modules.qdrant"},
		{"modules.cert-manager", "modules"},
		{`modules.app.wiring."a.b".from`, `modules.app.wiring."a.b"`},
		{`modules.app.wiring."a.b"`, "modules.app.wiring"},
		{`"a.b"`, ""},
		{`"a.b".c`, `"a.b"`},
		{`x."a\".b".y`, `x."a\".b"`},
		{`x."a\".b"`, "x"},
		{`x."a\\".y`, `x."a\\"`},
		{`x."".y`, `x.""`},
		{`a."b.c`, ""}, // an unterminated quote: no parent can be told
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := ParentPath(tt.path); got != tt.want {
				t.Errorf("ParentPath(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestParentPathUndoesJoinPath checks the two functions agree on every kind
// of label JoinPath writes.
func TestParentPathUndoesJoinPath(t *testing.T) {
	bases := []string{"", "modules", "modules.app.wiring", `values."a.b"`, `x."say \"hi\"".y`}
	labels := []string{"qdrant", "cert-manager", "a.b", `say "hi"`, "", "1x", `back\slash`, "a.", ".b"}
	for _, base := range bases {
		for _, label := range labels {
			p := JoinPath(base, label)
			if got := ParentPath(p); got != base {
				t.Errorf("ParentPath(JoinPath(%q, %q) = %q) = %q, want %q", base, label, p, got, base)
			}
		}
	}
}

func TestYAMLError(t *testing.T) {
	for _, tt := range []struct {
		err  string
		line int
		msg  string
	}{
		{"yaml: line 3: mapping values are not allowed here", 3, "mapping values are not allowed here"},
		{"yaml: control characters are not allowed", 0, "control characters are not allowed"},
		{"yaml: line x: odd", 0, "line x: odd"},
		{"something else", 0, "something else"},
	} {
		line, msg := YAMLError(errors.New(tt.err))
		if line != tt.line || msg != tt.msg {
			t.Errorf("YAMLError(%q) = %d, %q; want %d, %q", tt.err, line, msg, tt.line, tt.msg)
		}
	}
}

// TestIsPlainLabel compares isPlainLabel with the regular expression it
// stands for, on every string of up to two bytes from a set that covers
// each class.
func TestIsPlainLabel(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)
	chars := []string{"", "a", "Z", "_", "$", "0", "9", "-", ".", " ", "\"", "é", "\x00"}
	for _, a := range chars {
		for _, b := range chars {
			for _, c := range chars {
				s := a + b + c
				if got, want := isPlainLabel(s), re.MatchString(s); got != want {
					t.Errorf("isPlainLabel(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

// TestFold checks which problems of a later stage Fold keeps: those that
// cannot follow from the problems already in the log.
func TestFold(t *testing.T) {
	pos := Pos{File: "sources/platform.cue", Line: 3, Col: 1}
	tests := []struct {
		name   string
		causes []string // spec paths of the errors in the log
		later  []string // spec paths of the later stage's problems
		kept   []string
		folded int
	}{
		{"nothing to fold", []string{"modules.web.wave"}, []string{"modules.api.chart", "environments.dev"}, []string{"modules.api.chart", "environments.dev"}, 0},
		{"at a cause", []string{"modules.web"}, []string{"modules.web", "modules.api"}, []string{"modules.api"}, 1},
		{"below a cause", []string{"modules.web.endpoint"}, []string{"modules.web.endpoint.host", "modules.web.chart"}, []string{"modules.web.chart"}, 1},
		{"below a list element", []string{"modules.web.needs"}, []string{"modules.web.needs[3]", "modules.web.needs2"}, []string{"modules.web.needs2"}, 1},
		{"a section without its shape folds all", []string{"modules"}, []string{"environments.dev.modules.web", "clients.blue.stacks.site"}, nil, 2},
		{"an unknown top-level field folds all", []string{"modulse"}, []string{"environments.dev.modules.web"}, nil, 1},
		{"a path-less problem is no cause", []string{""}, []string{"modules.web"}, []string{"modules.web"}, 0},
		{"a problem of the output follows from the spec's", []string{"modules.web.wave"}, []string{"", "modules.api"}, []string{"modules.api"}, 1},
		{"a problem of the output with no cause stays", nil, []string{""}, []string{""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, later := &Log{}, &Log{}
			for _, c := range tt.causes {
				log.Reportf(UnknownName, pos, c, "cause")
			}
			for _, p := range tt.later {
				later.Reportf(UnknownName, pos, p, "later")
			}
			log.Fold(later)
			var kept []string
			for _, p := range log.Problems() {
				if p.Msg == "later" {
					kept = append(kept, p.Path)
				}
			}
			if diff := cmp.Diff(tt.kept, kept, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if got := log.Folded(); got != tt.folded {
				t.Errorf("Folded() = %d, want %d", got, tt.folded)
			}
		})
	}
}

func TestLogStringEndsWithTheFolded(t *testing.T) {
	log, later := &Log{}, &Log{}
	log.Reportf(UnknownName, Pos{File: "a.cue", Line: 1, Col: 1}, "modules", "is a list")
	later.Reportf(UnknownName, Pos{File: "a.cue", Line: 9, Col: 1}, "environments.dev.modules.web", "unknown module")
	later.Reportf(UnknownName, Pos{File: "b.cue", Line: 2, Col: 1}, "clients.blue", "unknown stack")
	log.Fold(later)
	want := "a.cue:1:1: modules: is a list [unknown-name]\n" +
		"platc: 2 more problems follow from those above and are not shown: fix those, and platc reports what remains\n"
	if got := log.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestFoldedNote(t *testing.T) {
	log := &Log{}
	if got := log.FoldedNote(); got != "" {
		t.Errorf("FoldedNote() of a log that folded nothing = %q, want \"\"", got)
	}
	log.Reportf(UnknownName, Pos{File: "a.cue", Line: 1, Col: 1}, "modules", "is a list")
	later := &Log{}
	later.Reportf(UnknownName, Pos{File: "a.cue", Line: 9, Col: 1}, "environments.dev.modules.web", "unknown module")
	log.Fold(later)
	want := "1 more problem follows from those above and is not shown: fix those, and platc reports what remains"
	if got := log.FoldedNote(); got != want {
		t.Errorf("FoldedNote() = %q, want %q", got, want)
	}
}

func TestSeverityString(t *testing.T) {
	if got := Error.String() + "," + Warning.String(); got != "error,warning" {
		t.Errorf("Error, Warning = %s, want error,warning", got)
	}
}

// TestNearest checks that a path finds its own position, else its list's
// (an element of a list not written in place), else its parent's.
func TestNearest(t *testing.T) {
	at := func(line int) Pos { return Pos{File: "f.cue", Line: line, Col: 1} }
	decls := map[string]Pos{
		"a":                  at(1),
		"a.list":             at(2),
		"a.list[1]":          at(3),
		"a.list[1].b":        at(4),
		`a."x[0]"`:           at(5),
		"a.nested[0]":        at(6),
		"a.nested[0].in":     at(7),
		"a.nested[0].in[10]": at(8),
	}
	for path, want := range map[string]Pos{
		"a.list[1]":          at(3),
		"a.list[0]":          at(2), // not written in place: the list
		"a.list[1].b":        at(4),
		"a.list[1].c":        at(3),
		"a.list[2].b":        at(2),
		`a."x[0]"`:           at(5),
		`a."x[0]".y`:         at(5),
		`a."x[1]"`:           at(1), // a label, not an index
		"a.nested[0].in[10]": at(8),
		"a.nested[0].in[9]":  at(7),
		"a.other[0]":         at(1),
		"b[0]":               {},
		"a.list[x]":          at(1), // not an index
	} {
		if got := Nearest(decls, path); got != want {
			t.Errorf("Nearest(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestEnclosing checks the step up a spec path that Nearest and Fold take:
// an element's list, else the parent field, with labels JoinPath quotes
// (brackets inside a quoted label are not an index).
func TestEnclosing(t *testing.T) {
	for path, want := range map[string]string{
		"modules.web.needs[1]":              "modules.web.needs",
		"modules.web.needs[12].name":        "modules.web.needs[12]",
		"a.list[0][3]":                      "a.list[0]",
		JoinPath("a", "x[0]"):               "a",
		JoinPath("a", "x[0]") + "[2]":       JoinPath("a", "x[0]"),
		JoinPath(JoinPath("a", "b.c"), "d"): JoinPath("a", "b.c"),
		"modules":                           "",
		"[0]":                               "",
	} {
		if got := enclosing(path); got != want {
			t.Errorf("enclosing(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestUnknown(t *testing.T) {
	many := []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10", "k11"}
	for _, tt := range []struct {
		name  string
		names []string
		want  string
	}{
		{"redsi", []string{"redis", "web"}, `unknown module "redsi" (did you mean "redis"?)`},
		{"redis", []string{"web", "db"}, `unknown module "redis": the modules are web and db`},
		{"redis", nil, `unknown module "redis": the spec declares none`},
		{"redis", many, `unknown module "redis": the modules are a1, b2, c3, d4, e5, f6, g7, h8, i9, j10... (11 in all)`},
	} {
		if got := Unknown("module", tt.name, tt.names); got != tt.want {
			t.Errorf("Unknown(module, %q, %v) = %q, want %q", tt.name, tt.names, got, tt.want)
		}
	}
}
