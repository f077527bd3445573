package load

import (
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
	"github.com/cockroachdb/apd/v3"

	"github.com/platc/platc/compiler/diag"
)

// Value is a value of the spec as plain data, with where it was written:
// what package model decodes. It is read from the syntax of a spec written
// as plain data (most are), and from the CUE evaluation of any other, so
// that the model never sees a CUE value.
type Value struct {
	Kind Kind
	// Pos is where the value was written, or the zero Pos where it comes
	// from the schema alone or from nowhere.
	Pos diag.Pos
	// OK says the value can be decoded: it is concrete and free of
	// errors, or it is a struct or list whose parts are decoded one by
	// one (each has its own OK).
	OK     bool
	Fields []Field  // of a Struct, in the order they were written
	Elems  []*Value // of a List
	Str    string   // of a String, or the bytes of Bytes
	Int    int64
	Float  float64
	Bool   bool
}

// Field is a field of a struct Value.
type Field struct {
	Name  string
	Value *Value
}

// Kind is the kind of a Value.
type Kind uint8

// The kinds of Value. Bottom is a value that is not data: an error, or a
// type or bound that no concrete value was given for. An integer too large
// for an int64 is a Float, as encoding/json would read it.
const (
	Bottom Kind = iota
	Null
	Bool
	Int
	Float
	String
	Bytes
	Struct
	List
)

// Lookup returns the field name of a struct, or nil.
func (v *Value) Lookup(name string) *Value {
	if v == nil {
		return nil
	}
	for _, f := range v.Fields {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

// readSyntax reads the spec from the syntax of its files when they are
// plain data: fields with literal labels and values of struct, list,
// string, number, bool and null literals, a struct declared in several
// places merged as CUE merges it. It says false for anything that needs
// CUE's evaluation to read (a reference, a comprehension, a disjunction,
// an interpolation, a definition, a scalar declared twice, an import...);
// then the caller evaluates the spec instead. Evaluating is the largest
// single cost of a render, and the schema check evaluates the spec anyway.
// It also returns the index it built, which holds the long lists of
// scalars it read (see shrinkLists) and, where the spec is not plain data
// because a field is declared with two kinds, the long literals of that
// conflict (cuts).
func readSyntax(files []*ast.File) (*Value, *index, bool) {
	root := &Value{Kind: Struct, OK: true}
	idx := &index{}
	for _, f := range files {
		if !idx.addDecls(root, f.Decls) {
			return nil, idx, false
		}
	}
	return root, idx, true
}

// A field declared with a struct in one place and a list or a scalar in
// another, or a list and a scalar, is a conflict whatever the elements
// hold, which CUE reports at both places without quoting them; CUE takes
// time quadratic in the length of a list, and in the fields of a struct,
// to evaluate it. The long literal of such a conflict is handed to CUE cut
// to its first element (cutConflicts): the conflict, and its message, stay.

// cutLen is the most elements or fields a literal of a conflict is handed
// to CUE with.
const cutLen = longListLen

// literalKind is the kind of a literal as the conflict rule reads it:
// Struct, List, or String for any scalar; Bottom for anything else.
func literalKind(x ast.Expr) Kind {
	switch x := x.(type) {
	case *ast.StructLit:
		return Struct
	case *ast.ListLit:
		return List
	case *ast.BasicLit:
		return String
	case *ast.UnaryExpr:
		if _, ok := x.X.(*ast.BasicLit); ok {
			return String
		}
	}
	return Bottom
}

// valueKind is literalKind of a value read.
func valueKind(v *Value) Kind {
	switch v.Kind {
	case Struct, List:
		return v.Kind
	}
	return String
}

// conflict notes the long literals of a field declared as prev and again
// as x, where their kinds conflict.
func (idx *index) conflict(prev *Value, x ast.Expr) {
	k := literalKind(x)
	if k == Bottom || k == valueKind(prev) {
		return
	}
	if lit, ok := idx.literals[prev]; ok {
		idx.cuts = append(idx.cuts, lit)
	}
	switch x := x.(type) {
	case *ast.StructLit:
		if len(x.Elts) > cutLen {
			idx.cuts = append(idx.cuts, x)
		}
	case *ast.ListLit:
		if len(x.Elts) > cutLen {
			idx.cuts = append(idx.cuts, x)
		}
	}
}

// cutConflicts cuts the long literals of conflicts to their first element.
func cutConflicts(cuts []ast.Expr) {
	for _, c := range cuts {
		switch c := c.(type) {
		case *ast.ListLit:
			c.Elts = c.Elts[:1]
		case *ast.StructLit:
			for i, d := range c.Elts {
				if _, ok := d.(*ast.Field); ok {
					c.Elts = c.Elts[i : i+1]
					break
				}
			}
		}
	}
}

// index finds the fields of the structs readSyntax builds: a struct may be
// declared in several places, and each declaration adds to it. A small
// struct is searched field by field; a large one (a collection of modules
// or environments) gets a map. It also keeps the long lists of scalars it
// reads, for the schema check (see shrinkLists).
type index struct {
	fields map[*Value]map[string]*Value
	long   []longList
	// literals are the syntax of the lists and structs of more than
	// cutLen elements or fields, by value; cuts are those of a conflict.
	literals map[*Value]ast.Expr
	cuts     []ast.Expr
}

// keep keeps the syntax of a long literal, for conflict.
func (idx *index) keep(v *Value, x ast.Expr, n int) {
	if n > cutLen {
		if idx.literals == nil {
			idx.literals = map[*Value]ast.Expr{}
		}
		idx.literals[v] = x
	}
}

// smallStruct is the most fields a struct has for a search field by field.
const smallStruct = 16

func (idx *index) lookup(parent *Value, name string) *Value {
	if len(parent.Fields) <= smallStruct {
		for _, f := range parent.Fields {
			if f.Name == name {
				return f.Value
			}
		}
		return nil
	}
	if idx.fields == nil {
		idx.fields = map[*Value]map[string]*Value{}
	}
	fields := idx.fields[parent]
	if fields == nil {
		fields = make(map[string]*Value, len(parent.Fields))
		for _, f := range parent.Fields {
			fields[f.Name] = f.Value
		}
		idx.fields[parent] = fields
	}
	return fields[name]
}

func (idx *index) add(parent *Value, name string, v *Value) {
	parent.Fields = append(parent.Fields, Field{Name: name, Value: v})
	if fields := idx.fields[parent]; fields != nil {
		fields[name] = v
	}
}

func (idx *index) addField(parent *Value, f *ast.Field) bool {
	if f.Alias != nil || f.Constraint != token.ILLEGAL || len(f.Attrs) > 0 {
		return false
	}
	name, ok := plainLabel(f.Label)
	if !ok {
		return false
	}
	if prev := idx.lookup(parent, name); prev != nil {
		// CUE unifies the declarations: structs merge, anything else
		// must be equal, which CUE checks and reports. CUE places a
		// struct declared several times at the last declaration; so
		// does this.
		s, isStruct := f.Value.(*ast.StructLit)
		if !isStruct || prev.Kind != Struct {
			idx.conflict(prev, f.Value)
			return false
		}
		prev.Pos = position(s.Pos())
		return idx.addDecls(prev, s.Elts)
	}
	v, ok := idx.fromExpr(f.Value)
	if !ok {
		return false
	}
	idx.add(parent, name, v)
	return true
}

// addDecls adds the declarations of a struct, or of a file, to v.
func (idx *index) addDecls(v *Value, decls []ast.Decl) bool {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			if !idx.addField(v, d) {
				return false
			}
		case *ast.Package, *ast.CommentGroup:
		default:
			return false
		}
	}
	return true
}

func (idx *index) fromExpr(x ast.Expr) (*Value, bool) {
	v := &Value{Pos: position(x.Pos()), OK: true}
	switch x := x.(type) {
	case *ast.StructLit:
		v.Kind = Struct
		idx.keep(v, x, len(x.Elts))
		return v, idx.addDecls(v, x.Elts)
	case *ast.ListLit:
		v.Kind = List
		v.Elems = make([]*Value, 0, len(x.Elts))
		scalars := true
		for _, e := range x.Elts {
			ev, ok := idx.fromExpr(e)
			if !ok {
				return nil, false
			}
			v.Elems = append(v.Elems, ev)
			scalars = scalars && ev.Kind != Struct && ev.Kind != List
		}
		if scalars && len(x.Elts) > longListLen {
			idx.long = append(idx.long, longList{lit: x, v: v})
		}
		idx.keep(v, x, len(x.Elts))
		return v, true
	case *ast.BasicLit:
		return v, scalar(v, x, false)
	case *ast.UnaryExpr:
		lit, ok := x.X.(*ast.BasicLit)
		if !ok || (x.Op != token.SUB && x.Op != token.ADD) || (lit.Kind != token.INT && lit.Kind != token.FLOAT) {
			return nil, false
		}
		return v, scalar(v, lit, x.Op == token.SUB)
	}
	return nil, false
}

// scalar reads a literal into v, negated if neg.
func scalar(v *Value, lit *ast.BasicLit, neg bool) bool {
	switch lit.Kind {
	case token.NULL:
		v.Kind = Null
	case token.TRUE, token.FALSE:
		v.Kind, v.Bool = Bool, lit.Kind == token.TRUE
	case token.STRING:
		s, err := literal.Unquote(lit.Value)
		if err != nil {
			return false
		}
		v.Kind, v.Str = String, s
		if strings.TrimLeft(lit.Value, "#")[0] == '\'' {
			v.Kind = Bytes
		}
	case token.INT, token.FLOAT:
		return numberLiteral(v, lit.Value, neg)
	default:
		return false
	}
	return true
}

// numberLiteral reads the number literal raw into v, negated if neg, as
// CUE reads it, and as its Int64 and Float64 would read the number.
func numberLiteral(v *Value, raw string, neg bool) bool {
	var info literal.NumInfo
	var d apd.Decimal
	if literal.ParseNum(raw, &info) != nil || info.Decimal(&d) != nil {
		return false
	}
	if neg {
		d.Neg(&d)
	}
	if info.IsInt() {
		if i, err := d.Int64(); err == nil {
			v.Kind, v.Int = Int, i
			return true
		}
	}
	f, err := d.Float64()
	if err != nil {
		return false
	}
	v.Kind, v.Float = Float, f
	return true
}

// plainLabel returns the name of a regular field, as CUE reads its label
// (ast.LabelName): not an alias, a definition, a hidden field, a pattern or
// an expression.
func plainLabel(l ast.Label) (string, bool) {
	if _, alias := l.(*ast.Alias); alias {
		return "", false
	}
	name, isIdent, err := ast.LabelName(l)
	if err != nil || isIdent && (strings.HasPrefix(name, "#") || strings.HasPrefix(name, "_")) {
		return "", false
	}
	return name, true
}

// fromCUE converts an evaluated spec, or a part of it. Defaults are taken.
// valid says v is known to be concrete and free of errors throughout (it
// fits the schema), so that no part needs checking. The fields of a struct
// are put in the order of their first declaration in decls, as readSyntax
// reads them (CUE orders the fields of a struct declared in several places
// its own way); fields no file declares come last, in CUE's order.
func fromCUE(v cue.Value, valid bool, decls map[string]diag.Pos) *Value {
	r := cueReader{valid: valid, decls: decls, above: map[string]bool{}}
	// The paths of the structs with a declared field: only their fields'
	// paths are made, to look the declarations up. A spec CUE evaluates
	// makes most of its fields in comprehensions, which declare none.
	for p := range decls {
		for p != "" {
			p = diag.ParentPath(p)
			if r.above[p] {
				break
			}
			r.above[p] = true
		}
	}
	return r.read(v, "", true)
}

// cueReader reads a CUE value into a Value (fromCUE).
type cueReader struct {
	valid bool
	decls map[string]diag.Pos
	above map[string]bool // the paths of structs with a declared field
}

// read is fromCUE for the value at path; declared says that its fields'
// declarations may be in decls (fields inside a list are not): path is
// made only then.
func (r *cueReader) read(v cue.Value, path string, declared bool) *Value {
	v, _ = v.Default()
	kind := v.IncompleteKind()
	// A value with an error is bottom, and so is every struct and list
	// above it; asking such a struct for its error would gather all those
	// below it (see validate), so its kind says it.
	out := &Value{Pos: Pos(v), OK: r.valid || kind != cue.BottomKind && usable(v)}
	switch {
	case kind&cue.StructKind != 0 || kind == cue.BottomKind:
		// A struct with an error below has an error itself, and no
		// kind: its fields are read, each with its own OK.
		it, err := v.Fields()
		if err != nil {
			out.Kind = Bottom
			break
		}
		out.Kind = Struct
		declared = declared && r.above[path]
		var at []diag.Pos
		for it.Next() {
			sel := it.Selector()
			if sel.Type()&cue.IndexLabel != 0 {
				// A list with an error below: its elements are read
				// one by one, as those of a struct.
				out.Kind = List
				out.Elems = append(out.Elems, r.read(it.Value(), "", false))
				continue
			}
			if sel.LabelType() != cue.StringLabel {
				// A definition, a pattern or a hidden field of a value
				// that failed a disjunction: not data of the spec.
				continue
			}
			name := sel.Unquoted()
			p := ""
			if declared {
				p = childPath(path, name)
				at = append(at, r.decls[p])
			}
			out.Fields = append(out.Fields, Field{Name: name, Value: r.read(it.Value(), p, declared)})
		}
		if declared && out.Kind == Struct {
			sortByDecl(out.Fields, at)
		}
	case kind&cue.ListKind != 0:
		out.Kind = List
		if it, err := v.List(); err == nil {
			out.Elems = []*Value{}
			for it.Next() {
				out.Elems = append(out.Elems, r.read(it.Value(), "", false))
			}
		}
	case !out.OK:
		out.Kind = Bottom
	case kind == cue.StringKind:
		out.Kind = String
		out.Str, _ = v.String()
	case kind == cue.BytesKind:
		b, _ := v.Bytes()
		out.Kind, out.Str = Bytes, string(b)
	case kind == cue.IntKind:
		if i, err := v.Int64(); err == nil {
			out.Kind, out.Int = Int, i
		} else {
			out.Kind = Float
			out.Float, _ = v.Float64()
		}
	case kind == cue.FloatKind:
		out.Kind = Float
		out.Float, _ = v.Float64()
	case kind == cue.BoolKind:
		out.Kind = Bool
		out.Bool, _ = v.Bool()
	case kind == cue.NullKind:
		out.Kind = Null
	}
	return out
}

// sortByDecl sorts fields by at, their declarations, those without one
// last and in the order they are in.
func sortByDecl(fields []Field, at []diag.Pos) {
	if slices.IsSortedFunc(at, compareDecl) {
		return
	}
	idx := make([]int, len(fields))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return compareDecl(at[i], at[j]) })
	sorted := make([]Field, len(fields))
	for i, k := range idx {
		sorted[i] = fields[k]
	}
	copy(fields, sorted)
}

func compareDecl(a, b diag.Pos) int {
	switch {
	case !a.IsValid() && !b.IsValid():
		return 0
	case !a.IsValid():
		return 1
	case !b.IsValid():
		return -1
	}
	return a.Compare(b)
}

// usable reports whether a value, its default taken, can be decoded: it
// has no error (the schema check reports those) and is concrete, or it is
// a struct or list whose parts are decoded one by one.
func usable(v cue.Value) bool {
	if v.Err() != nil {
		return false
	}
	switch v.IncompleteKind() {
	case cue.StructKind, cue.ListKind:
		return true
	}
	return v.IsConcrete()
}
