package load

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/schemas"
)

// What the schema says about a spec path, for the messages of the schema
// check: the fields a struct allows (for "did you mean"), the kind a value
// must have and the schema's own declaration of it (for a type mismatch).
// Every lookup is by spec path in the schema alone, which is small, so that
// a spec with thousands of problems is reported in time linear in their
// number; each answer is kept for the next problem at the same place.

// schemaAt is the schema's value at the spec path labels, as CUE's errors
// give them (field names, quoted where CUE quotes them, and list indices),
// below #Spec. ok is false where the schema says nothing: a field it does
// not declare, or one inside an open struct such as values.
func schemaAt(spec cue.Value, labels []string) (cue.Value, bool) {
	v := spec
	for _, l := range labels {
		var sel cue.Selector
		switch {
		case v.IncompleteKind() == cue.ListKind:
			sel = cue.AnyIndex
		case strings.HasPrefix(l, "#"):
			sel = cue.Def(l)
		default:
			sel = cue.Str(unquoted(l)).Optional()
		}
		v = v.LookupPath(cue.MakePath(sel))
		if !v.Exists() {
			return cue.Value{}, false
		}
	}
	return v, true
}

// schemaKey is the memo key of a spec path: list indices are all alike.
func schemaKey(labels []string) string {
	var b strings.Builder
	for _, l := range labels {
		if isIndex(l) {
			l = "[]"
		}
		b.WriteString(l)
		b.WriteByte(0)
	}
	return b.String()
}

// isIndex reports whether a label of a CUE error's path is a list index:
// CUE quotes a field label made of digits.
func isIndex(label string) bool {
	return label != "" && strings.Trim(label, "0123456789") == ""
}

// specPath joins the labels of a CUE error's path as platc writes spec
// paths: list indices in brackets, as in modules.web.needs[1].
func specPath(labels []string) string {
	var p string
	for _, label := range labels {
		if isIndex(label) {
			p += "[" + label + "]"
			continue
		}
		p = diag.JoinPath(p, unquoted(label))
	}
	return p
}

// unquoted is a label of a CUE error's path as the spec writes it: CUE
// quotes a label that is not an identifier.
func unquoted(label string) string {
	if u, err := strconv.Unquote(label); err == nil {
		return u
	}
	return label
}

// schemaInfo is what the schema says at one spec path.
type schemaInfo struct {
	found   bool
	kind    cue.Kind // the kinds a value there may have
	decl    string   // the schema's declaration, such as needs?: [...string]
	allowed []string // the fields of a struct there
}

// schemaInfo returns what the schema says at labels, computed once per
// path.
func (r *reporter) schemaInfo(labels []string) schemaInfo {
	key := schemaKey(labels)
	if info, ok := r.memo[key]; ok {
		return info
	}
	var info schemaInfo
	if !r.schema.Exists() {
		return info // a syntax error, before the schema is compiled
	}
	if v, ok := schemaAt(r.schema, labels); ok {
		info.found = true
		info.kind = v.IncompleteKind()
		info.decl = declaration(v.Pos())
		if it, err := v.Fields(cue.Optional(true)); err == nil {
			for it.Next() {
				info.allowed = append(info.allowed, it.Selector().Unquoted())
			}
		}
	}
	r.memo[key] = info
	return info
}

// schemaLines are the lines of the schema, split once: a spec with an
// unknown field in each of many environments asks for a declaration per
// path, and splitting the schema for each would cost more than the
// answers themselves (schemaInfo).
var schemaLines = sync.OnceValue(func() [][]byte { return bytes.Split(schemas.PlatformCUE, []byte("\n")) })

// declaration is the line of the schema at p, without its comment: the
// schema declares each field on one line, such as
// "modules?: [string]: #Module".
func declaration(p token.Pos) string {
	if !p.IsValid() || p.Filename() != schemas.PlatformFile {
		return ""
	}
	lines := schemaLines()
	if p.Line() < 1 || p.Line() > len(lines) {
		return ""
	}
	line, _, _ := strings.Cut(string(lines[p.Line()-1]), "//")
	return strings.TrimSpace(line)
}

// The messages CUE gives for a value of the wrong kind: two values, or one
// and a type.
const (
	mismatchValues = "conflicting values %s and %s (mismatched types %s and %s)"
	mismatchValue  = "conflicting value %s (mismatched types %s and %s)"
)

// mismatch rewrites CUE's message for a value of the wrong kind, which
// prints both values in full (a whole struct, when a section is written as
// a list), in the spec's words: what the value is, what the schema declares
// there, and what to write. It places the problem at the value that does
// not fit, which CUE may not: of a struct declared in one file and a list
// in another, it names the struct. ok is false for any other message.
func (r *reporter) mismatch(e errors.Error, labels []string) (diag.Problem, bool) {
	format, args := e.Msg()
	var k1, k2 string
	switch {
	case format == mismatchValues && len(args) == 4:
		k1, k2 = fmt.Sprint(args[2]), fmt.Sprint(args[3])
	case format == mismatchValue && len(args) == 3:
		k1, k2 = fmt.Sprint(args[1]), fmt.Sprint(args[2])
	default:
		return diag.Problem{}, false
	}
	info := r.schemaInfo(labels)
	if !info.found {
		return diag.Problem{}, false
	}
	// The value that does not fit is of the kind the schema does not
	// allow there.
	found, ok := kindNamed(k1)
	if !ok || found&info.kind != 0 {
		found, ok = kindNamed(k2)
	}
	if !ok || found&info.kind != 0 {
		return diag.Problem{}, false
	}
	p := userPos(e)
	what := kindPhrase(found)
	for _, pos := range userPositions(e) {
		if w, ok := r.writtenAt(pos); ok && w.kind == found {
			p = pos
			if w.text != "" {
				what += " (" + w.text + ")"
			}
			break
		}
	}
	if !p.IsValid() {
		p = diag.Nearest(r.decls, specPath(labels))
	}
	return diag.Problem{ID: diag.SpecType, Pos: p, Path: specPath(labels), Msg: mismatchMsg(what, info)}, true
}

// mismatchMsg says that a value, what, is not of a kind the schema allows
// where info was looked up.
func mismatchMsg(what string, info schemaInfo) string {
	if info.decl == "" {
		return fmt.Sprintf("is %s, but the spec wants %s here", what, wantPhrase(info.kind))
	}
	return fmt.Sprintf("is %s, but the spec declares `%s`: write %s", what, info.decl, wantPhrase(info.kind))
}

// kindWords are the kinds of value the messages speak of: as CUE names
// them, as the spec's reader knows them, and how to write one (in the
// order wantPhrase lists them; none for number, an int or a float).
var kindWords = []struct {
	kind             cue.Kind
	cue, what, write string
}{
	{cue.StructKind, "struct", "a struct", "a struct, {name: value, ...}"},
	{cue.ListKind, "list", "a list", "a list, [...]"},
	{cue.StringKind, "string", "a string", `a string, "..."`},
	{cue.BytesKind, "bytes", "bytes", "bytes, '...'"},
	{cue.IntKind, "int", "an integer", "an integer"},
	{cue.FloatKind, "float", "a number", "a number"},
	{cue.NumberKind, "number", "a number", ""},
	{cue.BoolKind, "bool", "a boolean", "true or false"},
	{cue.NullKind, "null", "null", "null"},
}

// kindNamed is the kind CUE names so in its messages.
func kindNamed(name string) (cue.Kind, bool) {
	for _, w := range kindWords {
		if w.cue == name {
			return w.kind, true
		}
	}
	return 0, false
}

// kindPhrase names a kind of value as the spec's reader knows it.
func kindPhrase(k cue.Kind) string {
	for _, w := range kindWords {
		if w.kind == k {
			return w.what
		}
	}
	return "a value of kind " + k.String()
}

// wantPhrase says how to write a value of the kinds k.
func wantPhrase(k cue.Kind) string {
	if k&cue.NumberKind == cue.NumberKind {
		k = k&^cue.NumberKind | cue.FloatKind // an integer is a number
	}
	var out []string
	for _, w := range kindWords {
		if k&w.kind != 0 && w.write != "" {
			out = append(out, w.write)
		}
	}
	if len(out) == 0 {
		return "a value of kind " + k.String()
	}
	return strings.Join(out, " or ")
}

// written is what a spec file holds at a position: the kind of the value
// written there and, for a short scalar, its text.
type written struct {
	kind cue.Kind
	text string
}

// maxText is the longest scalar a message quotes.
const maxText = 40

// writtenAt says what the spec files hold at p. The index of the files'
// values is made on the first call: only a type mismatch needs it.
func (r *reporter) writtenAt(p diag.Pos) (written, bool) {
	if r.written == nil {
		r.written = map[diag.Pos]written{}
		for _, f := range r.files {
			ast.Walk(f, func(n ast.Node) bool {
				if w, ok := writtenValue(n); ok {
					r.written[position(n.Pos())] = w
				}
				return true
			}, nil)
		}
	}
	w, ok := r.written[p]
	return w, ok
}

// writtenValue is the kind and text of a literal value.
func writtenValue(n ast.Node) (written, bool) {
	text := func(s string) string {
		if len(s) > maxText {
			return ""
		}
		return s
	}
	switch n := n.(type) {
	case *ast.StructLit:
		return written{kind: cue.StructKind}, true
	case *ast.ListLit:
		return written{kind: cue.ListKind}, true
	case *ast.BasicLit:
		switch n.Kind {
		case token.STRING:
			if strings.HasPrefix(strings.TrimLeft(n.Value, "#"), "'") {
				return written{kind: cue.BytesKind, text: text(n.Value)}, true
			}
			return written{kind: cue.StringKind, text: text(n.Value)}, true
		case token.INT:
			return written{kind: cue.IntKind, text: text(n.Value)}, true
		case token.FLOAT:
			return written{kind: cue.FloatKind, text: text(n.Value)}, true
		case token.TRUE, token.FALSE:
			return written{kind: cue.BoolKind, text: n.Value}, true
		case token.NULL:
			return written{kind: cue.NullKind, text: "null"}, true
		}
	case *ast.UnaryExpr:
		if lit, ok := n.X.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) && (n.Op == token.SUB || n.Op == token.ADD) {
			w, _ := writtenValue(lit)
			w.text = text(n.Op.String() + lit.Value)
			return w, true
		}
	}
	return written{}, false
}

// userPositions are the positions of an error in the spec's files, the
// error's own first.
func userPositions(e errors.Error) []diag.Pos {
	var out []diag.Pos
	for _, p := range append([]token.Pos{e.Position()}, e.InputPositions()...) {
		if p.IsValid() && p.Filename() != schemas.PlatformFile {
			out = append(out, position(p))
		}
	}
	return out
}

// elide shortens the values CUE prints in a message: a struct or list of
// the spec can be kilobytes long.
func elide(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		s := fmt.Sprint(a)
		switch {
		case len(s) <= 2*maxText:
			out[i] = a
		case strings.HasPrefix(s, "{"):
			out[i] = "{...}"
		case strings.HasPrefix(s, "["):
			out[i] = "[...]"
		default:
			out[i] = s[:2*maxText] + "..."
		}
	}
	return out
}
