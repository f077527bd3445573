package release

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/versions"
)

// releaseTag splits a release tag, for the tag a refusal suggests; it is
// compiled on first use.
var releaseTag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
})

// editor collects edits of spec files at byte ranges of the files as
// read, and applies them together, so no edit moves another. Formatting
// and comments stay.
type editor struct {
	fsys   fs.FS
	log    *diag.Log
	orig   map[string][]byte
	parsed map[string]*ast.File
	edits  map[string][]edit
}

type edit struct {
	off, end int // the bytes [off, end) of the file as read are replaced
	text     string
	seq      int // edits at one offset apply in the order they were made
}

func (e *editor) read(file string, pos diag.Pos, specPath string) ([]byte, bool) {
	if data, ok := e.orig[file]; ok {
		return data, true
	}
	data, err := fs.ReadFile(e.fsys, file)
	if err != nil {
		e.log.Reportf(diag.IO, pos, specPath, "reading the spec: %v", err)
		return nil, false
	}
	e.orig[file] = data
	return data, true
}

func (e *editor) add(file string, ed edit) {
	ed.seq = len(e.edits[file])
	e.edits[file] = append(e.edits[file], ed)
}

// replace replaces the string literal at pos, which must be old quoted,
// with new quoted.
func (e *editor) replace(pos diag.Pos, specPath, old, new string) {
	if !pos.IsValid() || pos.Line == 0 {
		e.log.Reportf(diag.SpecEdit, pos, specPath, "the value is not written in a spec file: write it as a string literal to edit it with platc")
		return
	}
	data, ok := e.read(pos.File, pos, specPath)
	if !ok {
		return
	}
	off, err := literalOffset(data, pos, old)
	if err != nil {
		e.log.Reportf(diag.SpecEdit, pos, specPath, "%v: write it as a string literal to edit it with platc, or edit it by hand", err)
		return
	}
	e.add(pos.File, edit{off: off, end: off + len(strconv.Quote(old)), text: strconv.Quote(new)})
}

// literalOffset is the offset of the string literal old, quoted, at pos
// (line and column, 1-based, in bytes).
func literalOffset(data []byte, pos diag.Pos, old string) (int, error) {
	off := 0
	for line := 1; line < pos.Line; line++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the file", pos.Line)
		}
		off += i + 1
	}
	off += pos.Col - 1
	quoted := []byte(strconv.Quote(old))
	if off < 0 || off > len(data) || !bytes.HasPrefix(data[off:], quoted) {
		return 0, fmt.Errorf("the value is not the literal %s here", quoted)
	}
	return off, nil
}

// insertPins writes env's own pins of the charts of sets where env is
// declared: in its (possibly new) charts struct if env is a multi-line
// struct, otherwise as a separate field after env's (CUE unifies them).
// Each pin has the comment Renovate reads (versions.Renovate).
func (e *editor) insertPins(spec *model.Spec, env *model.Environment, sets []set) {
	specPath := env.FieldPath("charts")
	pos := env.Pos
	data, ok := e.read(pos.File, pos, specPath)
	if !ok {
		return
	}
	f, ok := e.parsed[pos.File]
	if !ok {
		var err error
		if f, err = parser.ParseFile(pos.File, data, parser.ParseComments); err != nil {
			e.log.Reportf(diag.IO, pos, specPath, "reading the spec: %v", err)
			return
		}
		e.parsed[pos.File] = f
	}
	chain := fieldAt(f, pos.Line, pos.Col)
	if chain == nil {
		e.log.Reportf(diag.SpecEdit, pos, specPath, "environment %s is not written as a field here: write its charts by hand", env.Name)
		return
	}
	field := chain[len(chain)-1].(*ast.Field)
	pin := func(s set) string {
		return label(s.chart.Name) + ": version: " + strconv.Quote(s.version)
	}
	comment := func(s set) string { return versions.RenovateOf(spec.Chart(s.chart.Name)).Comment() }

	// env: { ... } over several lines.
	if st, ok := field.Value.(*ast.StructLit); ok && multiline(data, st) {
		if charts := chartsStruct(st); charts != nil && multiline(data, charts) {
			ind := elementIndent(data, charts)
			var b strings.Builder
			for _, s := range sets {
				b.WriteString(ind + comment(s) + "\n" + ind + pin(s) + "\n")
			}
			e.add(pos.File, edit{off: lineStart(data, charts.Rbrace.Offset()), end: lineStart(data, charts.Rbrace.Offset()), text: b.String()})
			return
		}
		ind := elementIndent(data, st)
		var b strings.Builder
		b.WriteString(ind + "charts: {\n")
		for _, s := range sets {
			b.WriteString(ind + "\t" + comment(s) + "\n" + ind + "\t" + pin(s) + "\n")
		}
		b.WriteString(ind + "}\n")
		e.add(pos.File, edit{off: lineStart(data, st.Rbrace.Offset()), end: lineStart(data, st.Rbrace.Offset()), text: b.String()})
		return
	}

	// env: field: value, or env: {...} on one line: a field of its own
	// after the outermost field of the labels that lead to env.
	first := len(chain) - 1
	for first >= 2 {
		st, ok := chain[first-1].(*ast.StructLit)
		if !ok || st.Lbrace.IsValid() {
			break
		}
		if _, ok := chain[first-2].(*ast.Field); !ok {
			break
		}
		first -= 2
	}
	var labels []string
	for _, n := range chain[first:] {
		if fl, ok := n.(*ast.Field); ok {
			labels = append(labels, string(data[fl.Label.Pos().Offset():fl.Label.End().Offset()]))
		}
	}
	outer := chain[first].(*ast.Field)
	prefix := strings.Join(labels, ": ") + ": charts: "
	if st, ok := chain[first-1].(*ast.StructLit); ok && st.Rbrace.IsValid() && st.Rbrace.Line() == outer.End().Line() {
		// { ..., env: ... } on one line: no room for a comment.
		var parts []string
		for _, s := range sets {
			parts = append(parts, pin(s))
		}
		at := st.Rbrace.Offset()
		e.add(pos.File, edit{off: at, end: at, text: ", " + prefix + "{" + strings.Join(parts, ", ") + "}"})
		return
	}
	at := lineEnd(data, outer.End().Offset())
	ind := indentAt(data, outer.Pos().Offset())
	var b strings.Builder
	for _, s := range sets {
		b.WriteString("\n" + ind + comment(s) + "\n" + ind + prefix + pin(s))
	}
	e.add(pos.File, edit{off: at, end: at, text: b.String()})
}

// result applies the edits: the edited files, by path.
func (e *editor) result() map[string][]byte {
	out := map[string][]byte{}
	for file, edits := range e.edits {
		data := e.orig[file]
		slices.SortFunc(edits, func(a, b edit) int {
			if a.off != b.off {
				return b.off - a.off
			}
			return b.seq - a.seq
		})
		buf := slices.Clone(data)
		for _, ed := range edits {
			buf = slices.Concat(buf[:ed.off], []byte(ed.text), buf[ed.end:])
		}
		out[file] = buf
	}
	return out
}

// fieldAt returns the nodes from the file down to the field whose label
// is at line and col (File, Field, StructLit, Field, ...), or nil.
func fieldAt(f *ast.File, line, col int) []ast.Node {
	var found []ast.Node
	var stack []ast.Node
	ast.Walk(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		stack = append(stack, n)
		if fl, ok := n.(*ast.Field); ok && fl.Label.Pos().Line() == line && fl.Label.Pos().Column() == col {
			found = slices.Clone(stack)
			return false
		}
		return true
	}, func(ast.Node) { stack = stack[:len(stack)-1] })
	var out []ast.Node
	for _, n := range found {
		switch n.(type) {
		case *ast.File, *ast.Field, *ast.StructLit:
			out = append(out, n)
		}
	}
	return out
}

// multiline reports whether st is written in braces, its closing brace
// alone at the start of a line below its opening one.
func multiline(data []byte, st *ast.StructLit) bool {
	if !st.Lbrace.IsValid() || !st.Rbrace.IsValid() || st.Rbrace.Line() == st.Lbrace.Line() {
		return false
	}
	off := st.Rbrace.Offset()
	return len(bytes.TrimSpace(data[lineStart(data, off):off])) == 0
}

// chartsStruct is the value of the field charts of st, where it is a
// struct literal.
func chartsStruct(st *ast.StructLit) *ast.StructLit {
	for _, d := range st.Elts {
		fl, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if name, _, err := ast.LabelName(fl.Label); err == nil && name == "charts" {
			if v, ok := fl.Value.(*ast.StructLit); ok {
				return v
			}
		}
	}
	return nil
}

// elementIndent is the indentation of st's elements: that of its first
// element's line, or its closing brace's and a tab.
func elementIndent(data []byte, st *ast.StructLit) string {
	for _, d := range st.Elts {
		if _, ok := d.(*ast.Field); ok && d.Pos().Line() != st.Lbrace.Line() {
			return indentAt(data, d.Pos().Offset())
		}
	}
	return indentAt(data, st.Rbrace.Offset()) + "\t"
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(data)
}

func indentAt(data []byte, off int) string {
	line := data[lineStart(data, off):]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// label is a chart's name as a CUE label: an identifier as it is, any
// other name quoted.
func label(name string) string {
	if cueIdent().MatchString(name) && !slices.Contains(cueKeywords, name) {
		return name
	}
	return strconv.Quote(name)
}

var (
	cueIdent    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })
	cueKeywords = []string{"package", "import", "for", "if", "in", "let", "true", "false", "null", "_"}
)
