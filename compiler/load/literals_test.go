package load

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
)

// TestLiteralPosAt: the position of a byte of a string, as CUE reads the
// literal, is where that character is written in the file, whatever the
// escapes, quotes and indentation before it. Each literal holds the marker
// FIELD once; its position in the file is found by searching the source.
func TestLiteralPosAt(t *testing.T) {
	src := `package p

a: "${schema.spec.FIELD}"
b: "${x == \"\"} and ${schema.FIELD}"
c: "\u00e9\t\\ ${schema.FIELD}"
d: #"\(no) \#t "${FIELD}" \"#
e: "é ${schema.FIELD}"
f: {g: ["${one}", "${two.FIELD}"]}
h: """
	${first}
	  ${schema.FIELD}
	"""
i: """
	${a} \t "\""
	  x ${FIELD}
	"""
j: "\U0001F600\uD83D\uDE00${FIELD}"
m: "k.l": "${FIELD}"
`
	f, err := parser.ParseFile("p.cue", src)
	if err != nil {
		t.Fatal(err)
	}
	_, lits := indexDecls([]*ast.File{f})
	lines := strings.Split(src, "\n")
	want := map[string]diag.Pos{}
	for i, line := range lines {
		if c := strings.Index(line, "FIELD"); c >= 0 {
			want[strings.TrimSpace(line)] = diag.Pos{File: "p.cue", Line: i + 1, Col: c + 1}
		}
	}
	paths := []string{"a", "b", "c", "d", "e", "f.g[1]", "h", "i", "j", diag.JoinPath("m", "k.l")}
	if len(want) != len(paths) {
		t.Fatalf("%d markers for %d literals", len(want), len(paths))
	}
	for _, path := range paths {
		l, ok := lits[path]
		if !ok {
			t.Errorf("no literal at %s; have %v", path, lits)
			continue
		}
		v, ok := l.Value()
		if !ok {
			t.Errorf("%s: %s does not unquote", path, l.Raw)
			continue
		}
		got := l.PosAt(strings.Index(v, "FIELD"))
		line := strings.TrimSpace(lines[got.Line-1])
		if w, ok := want[line]; !ok || got != w {
			t.Errorf("%s: FIELD of %q is at %v, want %v", path, v, got, want[line])
		}
	}
	if _, ok := lits["f.g[0]"]; !ok {
		t.Error("the first element of a list is not indexed")
	}
	if p := lits["a"].PosAt(1000); p != lits["a"].Pos {
		t.Errorf("an offset past the string gives %v, want the literal's %v", p, lits["a"].Pos)
	}
	if p := lits["c"].PosAt(1); p != (diag.Pos{File: "p.cue", Line: 5, Col: 5}) {
		t.Errorf("an offset inside an escape's bytes gives %v, want the escape's p.cue:5:5", p)
	}
}
