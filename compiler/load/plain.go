package load

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue/literal"

	"github.com/platc/platc/compiler/diag"
)

// readPlain reads spec files written as plain data straight from their
// bytes, without CUE's parser: it returns what readSyntax and indexDecls
// return for the parsed files (the spec as a Value, the position of every
// field and list element by spec path, the literals that hold a ${...}
// expression), or ok false. The files are read in the order given, as
// one struct, as readSyntax reads them.
//
// It reads a subset of CUE's syntax, the one specs are written in: a
// package clause; fields whose labels are identifiers (ASCII, not a
// keyword, a definition or a hidden name) or quoted strings, chained
// (a: b: 1) or not; structs, lists, double-quoted strings (one line, or
// multi-line """ strings), decimal numbers with an optional sign, true,
// false and null; comments; fields and elements separated by commas or
// newlines. Anything else (a reference, an operator, an attribute, an
// import, an interpolation, a number CUE writes some other way, a carriage
// return in a string...) says ok false, and the caller parses the files
// with CUE: this is a shortcut to the same result, never a second judge
// of the syntax. CUE's own functions read what it accepts
// (literal.Unquote each string, literal.ParseNum each number that is not
// a small integer), and FuzzReadPlain holds it to the parsed reading.
//
// CUE's parser, and what it allocates, is the larger cost of reading a
// spec in a fresh process (docs/performance.md); this takes a fraction of
// it.
func readPlain(names []string, sources [][]byte) (data *Value, decls map[string]diag.Pos, lits map[string]Literal, ok bool) {
	size := 0
	for _, src := range sources {
		// Most declarations are fields, a colon each (a list's elements
		// have none, a string may hold some); Go's maps grow a table at
		// a time, so the few over the count cost little.
		size += bytes.Count(src, []byte{':'})
	}
	r := &plainReader{decls: make(map[string]diag.Pos, size), lits: map[string]Literal{}}
	root := &Value{Kind: Struct, OK: true}
	pkg := ""
	for i, src := range sources {
		// NUL, a byte order mark and text that is not UTF-8 are errors
		// CUE's scanner reports wherever they are.
		if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 || bytes.Contains(src, []byte("\uFEFF")) {
			return nil, nil, nil, false
		}
		r.src, r.file, r.off, r.line, r.lineStart = src, names[i], 0, 1, 0
		name, ok := r.packageClause()
		if !ok || i > 0 && name != pkg {
			return nil, nil, nil, false
		}
		pkg = name
		if !r.fields(root, "", 0) {
			return nil, nil, nil, false
		}
	}
	return root, r.decls, r.lits, true
}

// plainReader reads one file at a time (readPlain).
type plainReader struct {
	src       []byte
	file      string
	off       int // the next byte to read
	line      int // the line of off, from 1
	lineStart int // the offset of the line's first byte
	idx       index
	decls     map[string]diag.Pos
	lits      map[string]Literal
	depth     int // the structs and lists open around off
}

// maxPlainDepth is the deepest readPlain reads: a struct or list nested
// deeper goes to CUE, whose parser refuses nesting deeper than 10,000,
// and which readPlain must not be a second judge of: deep unclosed
// brackets cost readPlain time and memory in their depth before it found
// no end, where CUE refuses them at once (BenchmarkBadInput). A spec
// nests a few levels (a chart's values a few more).
const maxPlainDepth = 100

// nest enters a struct or list, and says whether readPlain reads it.
func (r *plainReader) nest() bool {
	r.depth++
	return r.depth <= maxPlainDepth
}

// here is the position of the next byte: CUE's columns count bytes.
func (r *plainReader) here() diag.Pos {
	return diag.Pos{File: r.file, Line: r.line, Col: r.off - r.lineStart + 1}
}

// space skips blanks, newlines and comments, and says whether it crossed
// a newline; ok is false at a slash that starts no comment.
func (r *plainReader) space() (newline, ok bool) {
	for r.off < len(r.src) {
		switch r.src[r.off] {
		case ' ', '\t', '\r':
			r.off++
		case '\n':
			r.off++
			r.line, r.lineStart, newline = r.line+1, r.off, true
		case '/':
			if r.off+1 >= len(r.src) || r.src[r.off+1] != '/' {
				return newline, false
			}
			if i := bytes.IndexByte(r.src[r.off:], '\n'); i >= 0 {
				r.off += i
			} else {
				r.off = len(r.src)
			}
		default:
			return newline, true
		}
	}
	return newline, true
}

// blanks skips spaces and tabs: what may stand between a label and its
// colon (a newline there ends the field).
func (r *plainReader) blanks() {
	for r.off < len(r.src) && (r.src[r.off] == ' ' || r.src[r.off] == '\t') {
		r.off++
	}
}

// packageClause reads the file's package clause, if any, and returns its
// name ("" without one).
func (r *plainReader) packageClause() (string, bool) {
	if _, ok := r.space(); !ok {
		return "", false
	}
	const kw = "package"
	if !bytes.HasPrefix(r.src[r.off:], []byte(kw)) || r.off+len(kw) < len(r.src) && isIdentByte(r.src[r.off+len(kw)]) {
		return "", true
	}
	r.off += len(kw)
	start := r.off
	r.blanks()
	if r.off == start {
		return "", false
	}
	name, ok := r.ident()
	if !ok || keywords[name] {
		return "", false
	}
	if nl, ok := r.space(); !ok || !nl && r.off < len(r.src) {
		return "", false
	}
	return name, true
}

// fields reads the fields of a struct into v, at spec path p, up to its
// closing brace (end '}'), or to the end of the file (end 0).
func (r *plainReader) fields(v *Value, p string, end byte) bool {
	for {
		if _, ok := r.space(); !ok {
			return false
		}
		if r.off == len(r.src) {
			return end == 0
		}
		if r.src[r.off] == end {
			r.off++
			return true
		}
		if !r.field(v, p) {
			return false
		}
		if done, ok := r.separator(end); done || !ok {
			return ok
		}
	}
}

// separator reads what follows a field or an element: a comma or a
// newline before the next one, or the closing bracket end (done), or the
// end of the file where end is 0 (done).
func (r *plainReader) separator(end byte) (done, ok bool) {
	newline, ok := r.space()
	switch {
	case !ok:
		return false, false
	case r.off == len(r.src):
		return true, end == 0
	case r.src[r.off] == end:
		r.off++
		return true, true
	case r.src[r.off] == ',' && !newline:
		r.off++
		return false, true
	}
	return false, newline
}

// field reads a field of the struct v, at spec path p.
func (r *plainReader) field(v *Value, p string) bool {
	at := r.here()
	name, ok := r.label()
	if !ok {
		return false
	}
	r.blanks()
	if r.off == len(r.src) || r.src[r.off] != ':' {
		return false
	}
	r.off++
	if _, ok := r.space(); !ok || r.off == len(r.src) {
		return false
	}
	fp := childPath(p, name)
	if _, seen := r.decls[fp]; fp != undeclared && !seen {
		r.decls[fp] = at
	}
	prev := r.idx.lookup(v, name)
	// A struct, written out or as the next field of a chain (a: b: 1),
	// goes into the struct the field has where it is declared already,
	// as CUE unifies them; its position is the last declaration's.
	switch c := r.src[r.off]; {
	case c == '{' || (isLetter(c) || c == '"') && r.chained():
		s := r.structOf(v, name, prev)
		if s == nil || !r.nest() {
			return false
		}
		var ok bool
		if c == '{' {
			r.off++
			ok = r.fields(s, fp, '}')
		} else {
			ok = r.field(s, fp)
		}
		r.depth--
		return ok
	case prev != nil:
		// Anything else declared twice: CUE checks the two are equal.
		return false
	}
	x, ok := r.value(fp)
	if ok {
		r.idx.add(v, name, x)
	}
	return ok
}

// structOf returns the struct that a struct written for the field name of
// v goes into, placed where it is written: prev, the field declared
// already, or a new field; nil if prev is not a struct.
func (r *plainReader) structOf(v *Value, name string, prev *Value) *Value {
	at := r.here()
	if prev != nil {
		if prev.Kind != Struct {
			return nil
		}
		prev.Pos = at
		return prev
	}
	s := &Value{Kind: Struct, Pos: at, OK: true}
	r.idx.add(v, name, s)
	return s
}

// chained reports whether a label and its colon come next, without
// reading them: the value of the field before is the struct of that
// field alone.
func (r *plainReader) chained() bool {
	off := r.off
	defer func() { r.off = off }()
	if bytes.HasPrefix(r.src[r.off:], []byte(`"""`)) {
		return false
	}
	if r.src[r.off] == '"' {
		if _, ok := r.quoted(); !ok {
			return false
		}
	} else if _, ok := r.ident(); !ok {
		return false
	}
	r.blanks()
	return r.off < len(r.src) && r.src[r.off] == ':'
}

// label reads a field's label: an identifier that names a regular field,
// or a quoted string.
func (r *plainReader) label() (string, bool) {
	if r.src[r.off] == '"' {
		if bytes.HasPrefix(r.src[r.off:], []byte(`"""`)) {
			return "", false
		}
		raw, ok := r.quoted()
		if !ok {
			return "", false
		}
		name, err := literal.Unquote(raw)
		// An empty label is left to CUE, which reads it its own way.
		return name, err == nil && name != ""
	}
	name, ok := r.ident()
	return name, ok && !keywords[name]
}

// ident reads an identifier of ASCII letters, digits and underscores
// that starts with a letter: not a definition (#), a hidden field (_) or
// one with a $ or a letter CUE knows beyond ASCII, which are left to CUE.
func (r *plainReader) ident() (string, bool) {
	start := r.off
	if r.off == len(r.src) || !isLetter(r.src[r.off]) {
		return "", false
	}
	for r.off < len(r.src) && isIdentByte(r.src[r.off]) {
		r.off++
	}
	if r.off < len(r.src) && (r.src[r.off] == '$' || r.src[r.off] == '#' || r.src[r.off] >= utf8.RuneSelf) {
		return "", false
	}
	return string(r.src[start:r.off]), true
}

// keywords are the identifiers CUE reads as more than a name somewhere:
// left to CUE wherever they are written.
var keywords = map[string]bool{
	"package": true, "import": true, "for": true, "in": true, "if": true, "let": true,
	"true": true, "false": true, "null": true, "div": true, "mod": true, "quo": true, "rem": true,
	"try": true, "func": true, "fallthrough": true,
}

// value reads a value that is not a field's struct (field reads those),
// at spec path p.
func (r *plainReader) value(p string) (*Value, bool) {
	v := &Value{Pos: r.here(), OK: true}
	switch c := r.src[r.off]; {
	case c == '{' || c == '[':
		if !r.nest() {
			return nil, false
		}
		r.off++
		ok := false
		if c == '{' {
			v.Kind = Struct
			ok = r.fields(v, p, '}')
		} else {
			v.Kind, v.Elems = List, []*Value{}
			ok = r.elems(v, p)
		}
		r.depth--
		return v, ok
	case c == '"':
		var raw string
		var ok bool
		if bytes.HasPrefix(r.src[r.off:], []byte(`"""`)) {
			raw, ok = r.multiline()
		} else {
			raw, ok = r.quoted()
		}
		if !ok {
			return nil, false
		}
		s, err := literal.Unquote(raw)
		if err != nil {
			return nil, false
		}
		v.Kind, v.Str = String, s
		if strings.Contains(raw, "${") && p != undeclared {
			if _, seen := r.lits[p]; !seen {
				r.lits[p] = Literal{Pos: v.Pos, Raw: raw}
			}
		}
	case c == '-' || c == '+':
		r.off++
		if r.off == len(r.src) || !isDigit(r.src[r.off]) {
			return nil, false
		}
		if !r.number(v, c == '-') {
			return nil, false
		}
	case isDigit(c):
		if !r.number(v, false) {
			return nil, false
		}
	case isLetter(c):
		name, ok := r.ident()
		switch {
		case !ok:
			return nil, false
		case name == "true" || name == "false":
			v.Kind, v.Bool = Bool, name == "true"
		case name == "null":
			v.Kind = Null
		default:
			return nil, false // a reference
		}
	default:
		return nil, false
	}
	return v, r.atDelimiter()
}

// elems reads the elements of the list v, at spec path p, up to its
// closing bracket.
func (r *plainReader) elems(v *Value, p string) bool {
	for i := 0; ; i++ {
		if _, ok := r.space(); !ok || r.off == len(r.src) {
			return false
		}
		if r.src[r.off] == ']' {
			r.off++
			return true
		}
		ep := elemPath(p, i)
		if _, seen := r.decls[ep]; ep != undeclared && !seen {
			r.decls[ep] = r.here()
		}
		e, ok := r.value(ep)
		if !ok {
			return false
		}
		v.Elems = append(v.Elems, e)
		if done, ok := r.separator(']'); done || !ok {
			return ok && done
		}
	}
}

// atDelimiter reports whether a scalar ends where it was read: at a
// blank, a newline, a comment, a comma, a closing bracket or the end of
// the file. Anything else (an operator, a bound, a default) is CUE's.
func (r *plainReader) atDelimiter() bool {
	if r.off == len(r.src) {
		return true
	}
	switch r.src[r.off] {
	case ' ', '\t', '\r', '\n', ',', '}', ']', '/':
		return true
	}
	return false
}

// quoted reads a double-quoted string of one line, and returns it as
// written. An interpolation, a control character and a multi-line
// string are left to CUE.
func (r *plainReader) quoted() (string, bool) {
	start := r.off
	for i := r.off + 1; i < len(r.src); i++ {
		switch c := r.src[i]; {
		case c == '"':
			r.off = i + 1
			return string(r.src[start:r.off]), true
		case c == '\\':
			i++
			if i == len(r.src) || r.src[i] == '(' || r.src[i] < ' ' {
				return "", false
			}
		case c < ' ' || c == 0x7f:
			return "", false
		}
	}
	return "", false
}

// multiline reads a """ string, and returns it as written: the opening
// quotes end their line, and the closing ones start theirs after blanks
// alone. Quotes inside, an interpolation, a carriage return and a control
// character other than a tab are left to CUE.
func (r *plainReader) multiline() (string, bool) {
	start := r.off
	i := r.off + 3
	if i == len(r.src) || r.src[i] != '\n' {
		return "", false
	}
	i++
	line, lineStart := r.line+1, i
	for {
		// The line from lineStart: blanks, then the closing quotes or
		// content.
		j := lineStart
		for j < len(r.src) && (r.src[j] == ' ' || r.src[j] == '\t') {
			j++
		}
		if bytes.HasPrefix(r.src[j:], []byte(`"""`)) {
			r.off, r.line, r.lineStart = j+3, line, lineStart
			return string(r.src[start:r.off]), true
		}
		for ; ; j++ {
			if j == len(r.src) {
				return "", false
			}
			c := r.src[j]
			if c == '\n' {
				break
			}
			switch {
			case c == '"':
				if bytes.HasPrefix(r.src[j:], []byte(`"""`)) {
					return "", false
				}
			case c == '\\':
				j++
				if j == len(r.src) || r.src[j] == '(' || r.src[j] < ' ' {
					return "", false
				}
			case c < ' ' && c != '\t' || c == 0x7f:
				return "", false
			}
		}
		line, lineStart = line+1, j+1
	}
}

// number reads a decimal number, negated if neg: digits, an optional
// fraction and an optional exponent. CUE's other ways of writing numbers
// (0x, 0o, 0b, underscores, multipliers such as Ki, a leading dot) are
// left to CUE.
func (r *plainReader) number(v *Value, neg bool) bool {
	start := r.off
	for r.off < len(r.src) && isDigit(r.src[r.off]) {
		r.off++
	}
	digits := r.off - start
	if r.src[start] == '0' && digits > 1 {
		return false
	}
	simple := true
	if r.off+1 < len(r.src) && r.src[r.off] == '.' && isDigit(r.src[r.off+1]) {
		simple = false
		r.off++
		for r.off < len(r.src) && isDigit(r.src[r.off]) {
			r.off++
		}
	}
	if r.off < len(r.src) && (r.src[r.off] == 'e' || r.src[r.off] == 'E') {
		simple = false
		r.off++
		if r.off < len(r.src) && (r.src[r.off] == '+' || r.src[r.off] == '-') {
			r.off++
		}
		if r.off == len(r.src) || !isDigit(r.src[r.off]) {
			return false
		}
		for r.off < len(r.src) && isDigit(r.src[r.off]) {
			r.off++
		}
	}
	if simple && digits <= 18 {
		// An integer that fits an int64 whatever its digits: what
		// CUE's Int64 reads.
		n := int64(0)
		for _, c := range r.src[start:r.off] {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		v.Kind, v.Int = Int, n
		return true
	}
	return numberLiteral(v, string(r.src[start:r.off]), neg)
}

func isLetter(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isIdentByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }
