package load

import (
	"strconv"
	"sync"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/schemas"
)

// A shape is what #Spec requires of a value, read once from the syntax of
// the embedded schema (schemas/platform.cue, the one statement of the
// spec's language): closed structs of required, optional and regular
// fields, pattern constraints ([string]: T), open structs ({...}), lists
// ([...T]), basic kinds and bounded integers (int & >=0), and references
// to the schema's definitions. It is a fast and conservative check of a
// spec written as plain data: fits says true only where unifying the spec
// with #Spec and validating it concrete would find nothing, and false
// wherever it is not sure (a construct it does not know, a value that is
// not plain data, anything that does not fit). CUE's check is the
// authority: it runs whenever fits says false, and reports the problems in
// the schema's words; its unification costs many times what fits does.
type shape struct {
	kind     shapeKind
	min, max *int64 // an integer's bounds
	elem     *shape // a list's elements
	fields   map[string]field
	pattern  *shape // [string]: pattern, for the fields of a struct
	open     bool   // a struct that allows other fields ({...}, or ...)
	def      string // a reference to this definition, resolved on use
}

type shapeKind uint8

const (
	unknownShape shapeKind = iota // a construct fits does not know: never fits
	anyShape                      // _ : any concrete value
	stringShape
	boolShape
	intShape
	listShape
	structShape
	refShape
)

// field is a struct's field in the schema: required (!), optional (?), or
// regular (neither: it must be there too, since Validate wants every
// regular field concrete).
type field struct {
	shape    *shape
	optional bool
}

// specShape is #Spec's shape, with the schema's other definitions, read
// once per process.
var specShape = sync.OnceValue(func() *shapes {
	f, err := parser.ParseFile(schemas.PlatformFile, schemas.PlatformCUE)
	if err != nil {
		return &shapes{} // never happens: the schema is tested; CUE's check then reports
	}
	s := &shapes{defs: map[string]*shape{}}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.Field); ok {
			if name, ok := labelName(fd.Label); ok && len(name) > 1 && name[0] == '#' {
				s.defs[name] = shapeOf(fd.Value)
			}
		}
	}
	return s
})

// shapes are the schema's definitions, by name (#Spec, #Module...).
type shapes struct {
	defs map[string]*shape
}

// fits reports whether spec, the whole spec as plain data, fits #Spec.
func (s *shapes) fits(spec *Value) bool {
	root, ok := s.defs["#Spec"]
	return ok && s.fit(spec, root, 0)
}

// maxDepth bounds the references followed at one place: the schema's
// definitions refer to one another, but a value is finite.
const maxDepth = 64

func (s *shapes) fit(v *Value, sh *shape, depth int) bool {
	if v == nil || !v.OK || depth > maxDepth {
		return false
	}
	switch sh.kind {
	case anyShape:
		return concrete(v, depth)
	case stringShape:
		return v.Kind == String
	case boolShape:
		return v.Kind == Bool
	case intShape:
		return v.Kind == Int && (sh.min == nil || v.Int >= *sh.min) && (sh.max == nil || v.Int <= *sh.max)
	case listShape:
		if v.Kind != List {
			return false
		}
		for _, e := range v.Elems {
			if !s.fit(e, sh.elem, depth+1) {
				return false
			}
		}
		return true
	case structShape:
		return s.fitStruct(v, sh, depth)
	case refShape:
		def, ok := s.defs[sh.def]
		return ok && s.fit(v, def, depth+1)
	}
	return false
}

func (s *shapes) fitStruct(v *Value, sh *shape, depth int) bool {
	if v.Kind != Struct {
		return false
	}
	seen := 0
	for _, f := range v.Fields {
		fs, declared := sh.fields[f.Name]
		if declared {
			seen++
			if !s.fit(f.Value, fs.shape, depth+1) {
				return false
			}
		}
		switch {
		case sh.pattern != nil:
			// A pattern constrains the declared fields it matches too.
			if !s.fit(f.Value, sh.pattern, depth+1) {
				return false
			}
		case declared:
		case sh.open:
			if !concrete(f.Value, depth+1) {
				return false
			}
		default:
			return false // not allowed: the struct is closed
		}
	}
	if seen == len(sh.fields) {
		return true
	}
	for name, fs := range sh.fields {
		if !fs.optional && v.Lookup(name) == nil {
			return false // a required or regular field missing
		}
	}
	return true
}

// concrete reports whether v is data all the way down.
func concrete(v *Value, depth int) bool {
	if v == nil || !v.OK || depth > maxDepth*4 {
		return false
	}
	switch v.Kind {
	case Bottom:
		return false
	case Struct:
		for _, f := range v.Fields {
			if !concrete(f.Value, depth+1) {
				return false
			}
		}
	case List:
		for _, e := range v.Elems {
			if !concrete(e, depth+1) {
				return false
			}
		}
	}
	return true
}

// basicShapes are the shapes of the predeclared types fits knows.
var basicShapes = map[string]shapeKind{"_": anyShape, "string": stringShape, "bool": boolShape, "int": intShape}

// shapeOf reads the shape of a schema expression; what it does not know is
// an unknownShape.
func shapeOf(x ast.Expr) *shape {
	switch x := x.(type) {
	case *ast.Ident:
		if k, ok := basicShapes[x.Name]; ok {
			return &shape{kind: k}
		}
		if len(x.Name) > 1 && x.Name[0] == '#' {
			return &shape{kind: refShape, def: x.Name}
		}
	case *ast.StructLit:
		return structShapeOf(x)
	case *ast.ListLit:
		// [...T], or [...] for any elements.
		if len(x.Elts) == 1 {
			if e, ok := x.Elts[0].(*ast.Ellipsis); ok {
				if e.Type == nil {
					return &shape{kind: listShape, elem: &shape{kind: anyShape}}
				}
				return &shape{kind: listShape, elem: shapeOf(e.Type)}
			}
		}
	case *ast.BinaryExpr:
		// int & >=n & <=m
		if x.Op == token.AND {
			return boundedInt(x)
		}
	}
	return &shape{kind: unknownShape}
}

// structShapeOf reads a struct literal of the schema: fields, at most one
// pattern [string]: T, and ... for an open struct.
func structShapeOf(x *ast.StructLit) *shape {
	sh := &shape{kind: structShape, fields: map[string]field{}}
	for _, d := range x.Elts {
		switch d := d.(type) {
		case *ast.CommentGroup, *ast.Attribute:
		case *ast.Ellipsis:
			if d.Type != nil {
				return &shape{kind: unknownShape}
			}
			sh.open = true
		case *ast.Field:
			if l, ok := d.Label.(*ast.ListLit); ok {
				// A pattern: [string]: T.
				if len(l.Elts) != 1 || !isIdent(l.Elts[0], "string") || sh.pattern != nil || d.Constraint != token.ILLEGAL {
					return &shape{kind: unknownShape}
				}
				sh.pattern = shapeOf(d.Value)
				continue
			}
			name, ok := labelName(d.Label)
			if !ok || name == "" || name[0] == '#' || name[0] == '_' {
				return &shape{kind: unknownShape} // a definition or hidden field inside a struct: not known here
			}
			if _, dup := sh.fields[name]; dup {
				return &shape{kind: unknownShape} // a field declared twice: CUE unifies the two
			}
			switch d.Constraint {
			case token.OPTION:
				sh.fields[name] = field{shape: shapeOf(d.Value), optional: true}
			case token.NOT, token.ILLEGAL:
				sh.fields[name] = field{shape: shapeOf(d.Value)}
			default:
				return &shape{kind: unknownShape}
			}
		default:
			return &shape{kind: unknownShape} // an embedding, a comprehension, a let...
		}
	}
	return sh
}

// boundedInt reads int & >=n & <=m (in any order, each bound at most once).
func boundedInt(x *ast.BinaryExpr) *shape {
	sh := &shape{kind: intShape}
	isInt := false
	var walk func(e ast.Expr) bool
	walk = func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BinaryExpr:
			return e.Op == token.AND && walk(e.X) && walk(e.Y)
		case *ast.Ident:
			if e.Name != "int" || isInt {
				return false
			}
			isInt = true
			return true
		case *ast.UnaryExpr:
			lit, ok := e.X.(*ast.BasicLit)
			if !ok || lit.Kind != token.INT {
				return false
			}
			n, err := strconv.ParseInt(lit.Value, 10, 64)
			if err != nil {
				return false
			}
			switch {
			case e.Op == token.GEQ && sh.min == nil:
				sh.min = &n
			case e.Op == token.LEQ && sh.max == nil:
				sh.max = &n
			default:
				return false
			}
			return true
		}
		return false
	}
	if !walk(x) || !isInt {
		return &shape{kind: unknownShape}
	}
	return sh
}

// isIdent reports whether x is the identifier name.
func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// onlyRegularFields reports whether the spec's files declare no optional
// (?) or required (!) field. Of such a spec that evaluates without an error
// (cue.Value.Validate: in its hidden fields and definitions too), the
// regular fields its evaluation yields (the data, fromCUE) are all that
// unifying it with #Spec checks: a closed definition of the schema allows
// hidden fields and definitions beside its own, and pattern constraints,
// references and comprehensions are evaluated into the data. A field of
// another kind is not in the data, and is left to CUE's check.
func onlyRegularFields(files []*ast.File) bool {
	regular := true
	for _, f := range files {
		ast.Walk(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.Field); ok && fd.Constraint != token.ILLEGAL {
				regular = false
			}
			return regular
		}, nil)
	}
	return regular
}
