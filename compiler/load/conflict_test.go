package load

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue/ast"

	"github.com/platc/platc/compiler/diag"
)

// names is a CUE list of n strings.
func names(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%q", fmt.Sprint("m", i))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// fieldsOf is a CUE struct of n fields.
func fieldsOf(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("f%d: 1", i)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// TestConflictsAreCut requires the long literal of a field declared with
// two kinds to be handed to CUE cut to its first element, in either
// order, and no other literal to be cut: a long list beside another list
// (CUE unifies them element by element), or one declared once.
func TestConflictsAreCut(t *testing.T) {
	const head = "package platform\n\n"
	for _, c := range []struct {
		name  string
		a, b  string // the two files
		cut   int    // literals cut
		elems int    // elements or fields the cut literal keeps
	}{
		{"list after struct", "modules: web: {}\n", "modules: " + names(1000) + "\n", 1, 1},
		{"list before struct", "modules: " + names(1000) + "\n", "modules: web: {}\n", 1, 1},
		{"struct beside scalar", "platform: name: \"x\"\n", "platform: name: " + fieldsOf(1000) + "\n", 1, 1},
		{"short list", "modules: web: {}\n", "modules: " + names(cutLen) + "\n", 0, 0},
		{"two lists", "x: " + names(1000) + "\n", "x: " + names(1000) + "\n", 0, 0},
		{"one list", "x: " + names(1000) + "\n", "y: 1\n", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := parseSources(t, map[string][]byte{"a.cue": []byte(head + c.a), "b.cue": []byte(head + c.b)})
			_, idx, _ := readSyntax(files)
			if len(idx.cuts) != c.cut {
				t.Fatalf("%d literals cut, want %d", len(idx.cuts), c.cut)
			}
			cutConflicts(idx.cuts)
			for _, x := range idx.cuts {
				n := 0
				switch x := x.(type) {
				case *ast.ListLit:
					n = len(x.Elts)
				case *ast.StructLit:
					n = len(x.Elts)
				}
				if n != c.elems {
					t.Errorf("the cut literal keeps %d, want %d", n, c.elems)
				}
			}
		})
	}
}

// TestCutConflictsSayTheSame requires a conflict reported with its long
// literal cut to read as the same conflict with a short one.
func TestCutConflictsSayTheSame(t *testing.T) {
	problems := func(list string) string {
		fsys := fstest.MapFS{
			"sources/platform.cue": {Data: []byte("package platform\n\nplatform: {name: \"mini\", repoURL: \"https://git.example.com/mini.git\"}\nenvironments: dev: revision: \"main\"\nmodules: web: {path: \"web\", namespace: \"web\"}\n")},
			"sources/zz.cue":       {Data: []byte("package platform\n\nmodules: " + list + "\n")},
		}
		log := &diag.Log{}
		if s := Load(fsys, "sources", log); s != nil {
			s.Checked()
		}
		return log.String()
	}
	short, long := problems(names(3)), problems(names(2000))
	if short == "" || short != long {
		t.Errorf("with 2,000 names:\n%s\nwith 3:\n%s", long, short)
	}
}
