package load

import (
	"slices"
	"strconv"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/platc/platc/compiler/diag"
)

// CUE takes time quadratic in the length of a list to evaluate it: each
// element is added after a search of those before it (cuelang.org/go
// v0.17.1, internal/core/adt/fields.go, nodeContext.getArc). The schema
// check of a plain-data spec hands a long list of scalars to CUE without
// its elements, and checks them here instead, where the answer for an
// element depends on its kind alone: a list the schema declares as [...T]
// with T a basic type (string, int, bool...), or one the schema does not
// constrain (inside values). Each element that does not fit is reported
// with the message CUE's would be rewritten to (mismatch). A long list
// where the schema wants no list at all (modules written as a list of
// names) is handed over empty: CUE refuses it for its kind alone. A list
// of any other kind is left to CUE.

// longListLen is the most elements a list of scalars may have for the
// schema check to hand it to CUE whole.
const longListLen = 256

// longList is a list of more than longListLen scalars, as readSyntax read
// it: its syntax, and its Value.
type longList struct {
	lit *ast.ListLit
	v   *Value
}

// hasLongList reports whether v holds a list that readSyntax would keep
// as a longList: the long lists of a spec read by readPlain are found by
// reading its syntax again, which is needless in the common case.
func hasLongList(v *Value) bool {
	switch v.Kind {
	case Struct:
		for _, f := range v.Fields {
			if hasLongList(f.Value) {
				return true
			}
		}
	case List:
		scalars := true
		for _, e := range v.Elems {
			if hasLongList(e) {
				return true
			}
			scalars = scalars && e.Kind != Struct && e.Kind != List
		}
		return scalars && len(v.Elems) > longListLen
	}
	return false
}

// shrunkList is a long list whose elements the check did not hand to CUE.
type shrunkList struct {
	labels []string
	elems  []*Value // as written, OK where they fit the schema
}

// basicTypes are CUE's predeclared types, which constrain a value's kind
// and nothing else.
var basicTypes = map[string]bool{"string": true, "bytes": true, "int": true, "float": true, "number": true, "bool": true, "null": true, "_": true}

// shrinkLists takes the elements out of the long lists of files that can
// be checked by kind, reports those that do not fit, and returns the lists,
// with what they hold, for restore. It says whether it reported a problem.
func (r *reporter) shrinkLists(files []*ast.File, long []longList) ([]shrunkList, bool) {
	if len(long) == 0 {
		return nil, false
	}
	want := map[*ast.ListLit]*Value{}
	for _, l := range long {
		want[l.lit] = l.v
	}
	var out []shrunkList
	reported := false
	for lit, labels := range listPaths(files, want) {
		if r.refusesList(labels) {
			// The schema wants no list here (modules written as a list
			// of names): CUE refuses the list for its kind whatever it
			// holds, so it is handed over empty, and the elements kept
			// as written.
			lit.Elts = nil
			out = append(out, shrunkList{labels: labels, elems: slices.Clone(want[lit].Elems)})
			continue
		}
		allowed, ok := r.elementKinds(labels)
		if !ok {
			continue
		}
		elems := make([]*Value, len(lit.Elts))
		for i, x := range lit.Elts {
			v := *want[lit].Elems[i]
			w, _ := writtenValue(x)
			if w.kind&allowed == 0 {
				v.OK = false
				reported = true
				r.log.Add(r.elementMismatch(labels, i, v.Pos, w))
			}
			elems[i] = &v
		}
		lit.Elts = nil
		out = append(out, shrunkList{labels: labels, elems: elems})
	}
	return out, reported
}

// refusesList reports whether the schema declares the field at labels,
// and not as a list (or anything a list could be).
func (r *reporter) refusesList(labels []string) bool {
	v, ok := schemaAt(r.schema, labels)
	return ok && v.IncompleteKind()&cue.ListKind == 0
}

// elementKinds returns the kinds of element the list at labels may hold,
// when the schema decides by kind alone; ok is false otherwise.
func (r *reporter) elementKinds(labels []string) (cue.Kind, bool) {
	v := r.schema
	for i, l := range labels {
		next, ok := schemaAt(v, []string{l})
		if !ok {
			// Nothing below a field that an open struct admits (or
			// that a closed one refuses, which CUE reports on the
			// field) constrains the list.
			return cue.TopKind, v.IncompleteKind() == cue.StructKind
		}
		if i == len(labels)-1 && !isListOfBasic(next) {
			return 0, false
		}
		v = next
	}
	elem, ok := schemaAt(v, []string{"0"})
	if !ok {
		return 0, false
	}
	return elem.IncompleteKind(), true
}

// isListOfBasic reports whether the schema value v is declared as [...T],
// T a basic type (or [...]).
func isListOfBasic(v cue.Value) bool {
	var x ast.Node = v.Source()
	if f, ok := x.(*ast.Field); ok {
		x = f.Value
	}
	list, ok := x.(*ast.ListLit)
	if !ok || len(list.Elts) != 1 {
		return false
	}
	e, ok := list.Elts[0].(*ast.Ellipsis)
	if !ok || e.Type == nil {
		return ok // [...] takes any element
	}
	id, ok := e.Type.(*ast.Ident)
	return ok && basicTypes[id.Name]
}

// elementMismatch is the problem of element i of the list at labels, which
// the schema does not allow: the message mismatch would give.
func (r *reporter) elementMismatch(labels []string, i int, pos diag.Pos, w written) diag.Problem {
	el := append(labels[:len(labels):len(labels)], strconv.Itoa(i))
	info := r.schemaInfo(el)
	what := kindPhrase(w.kind)
	if w.text != "" {
		what += " (" + w.text + ")"
	}
	return diag.Problem{ID: diag.SpecType, Pos: pos, Path: specPath(el), Msg: mismatchMsg(what, info)}
}

// listPaths finds the spec paths of the lists want in files.
func listPaths(files []*ast.File, want map[*ast.ListLit]*Value) map[*ast.ListLit][]string {
	out := map[*ast.ListLit][]string{}
	var walk func(labels []string, x ast.Expr)
	walk = func(labels []string, x ast.Expr) {
		switch x := x.(type) {
		case *ast.StructLit:
			for _, d := range x.Elts {
				if f, ok := d.(*ast.Field); ok {
					walkField(labels, f, walk)
				}
			}
		case *ast.ListLit:
			if want[x] != nil {
				out[x] = labels
				return
			}
			for i, e := range x.Elts {
				walk(append(labels[:len(labels):len(labels)], strconv.Itoa(i)), e)
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				walkField(nil, fd, walk)
			}
		}
	}
	return out
}

// walkField walks the value of f, a field of a plain-data spec, with its
// label: quoted where it is made of digits, as CUE's error paths write it.
func walkField(labels []string, f *ast.Field, walk func([]string, ast.Expr)) {
	name, ok := plainLabel(f.Label)
	if !ok {
		return
	}
	if isIndex(name) {
		name = strconv.Quote(name)
	}
	walk(append(labels[:len(labels):len(labels)], name), f.Value)
}

// restore puts the elements of the shrunk lists back into data, the spec
// unified with the schema, which has the lists as CUE saw them: empty.
func restore(data *Value, lists []shrunkList) {
	for _, l := range lists {
		v := data
		for _, label := range l.labels {
			switch {
			case v == nil:
			case v.Kind == List:
				i, err := strconv.Atoi(label)
				if err != nil || i < 0 || i >= len(v.Elems) {
					v = nil
				} else {
					v = v.Elems[i]
				}
			default:
				v = v.Lookup(unquoted(label))
			}
		}
		if v != nil && v.Kind == List {
			v.Elems = l.elems
		}
	}
}
