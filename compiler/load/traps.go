package load

import (
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/platc/platc/compiler/diag"
)

// The traps of CUE: what CUE accepts without a word but a spec's author
// rarely means, found in the spec's syntax.

// frame is a struct of the syntax a reference is resolved in: its
// declarations, its spec path, and the field whose value it is (nil for
// the package's top).
type frame struct {
	decls []ast.Decl
	path  string
	field *ast.Field
}

// syntax is what traps reads of the spec's syntax: the fields whose value
// a definition closes (closedBy: spec path -> the definition's name).
type syntax struct {
	closedBy map[string]string
	found    int // the problems traps reported
}

// traps reports the comprehensions whose source is the field they are
// written in (selfComprehension), and returns the fields a definition
// closes, for the schema check's messages.
func traps(files []*ast.File, log *diag.Log) syntax {
	s := syntax{closedBy: map[string]string{}}
	var top []ast.Decl
	for _, f := range files {
		top = append(top, f.Decls...)
	}
	var walkDecls func(frames []frame)
	var walkExpr func(frames []frame, path string, field *ast.Field, e ast.Expr)
	walkExpr = func(frames []frame, path string, field *ast.Field, e ast.Expr) {
		switch e := e.(type) {
		case *ast.StructLit:
			walkDecls(append(frames[:len(frames):len(frames)], frame{decls: e.Elts, path: path, field: field}))
		case *ast.BinaryExpr:
			walkExpr(frames, path, field, e.X)
			walkExpr(frames, path, field, e.Y)
		case *ast.ParenExpr:
			walkExpr(frames, path, field, e.X)
		}
	}
	walkDecls = func(frames []frame) {
		in := frames[len(frames)-1]
		for _, d := range in.decls {
			switch d := d.(type) {
			case *ast.Field:
				name, ok := labelName(d.Label)
				if !ok || in.path == undeclared {
					continue
				}
				p := childPath(in.path, name)
				if def := closingDefinition(d.Value); def != "" && p != undeclared {
					if _, seen := s.closedBy[p]; !seen {
						s.closedBy[p] = def
					}
				}
				walkExpr(frames, p, d, d.Value)
			case *ast.Comprehension:
				s.found += selfComprehension(frames, d, log)
				// What it adds has labels known only once evaluated.
				walkExpr(frames, undeclared, nil, d.Value)
			case *ast.EmbedDecl:
				walkExpr(frames, in.path, in.field, d.Expr)
			}
		}
	}
	walkDecls([]frame{{decls: top}})
	return s
}

// closingDefinition is the name of the definition a field's value is, or
// is unified with (#web, #web & {...}), or "".
func closingDefinition(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if strings.HasPrefix(e.Name, "#") {
			return e.Name
		}
	case *ast.SelectorExpr:
		if name, _, err := ast.LabelName(e.Sel); err == nil && strings.HasPrefix(name, "#") {
			return name
		}
	case *ast.BinaryExpr:
		if e.Op.String() == "&" {
			if d := closingDefinition(e.X); d != "" {
				return d
			}
			return closingDefinition(e.Y)
		}
	case *ast.ParenExpr:
		return closingDefinition(e.X)
	}
	return ""
}

// selfComprehension reports a comprehension whose for clause runs over
// a field that encloses it: written inside environments.lab.modules,
// `for name, m in modules` runs over environments.lab.modules itself
// (CUE resolves a name in the innermost struct that declares it), not
// over the platform's modules, and so adds only to the fields written
// beside it.
func selfComprehension(frames []frame, c *ast.Comprehension, log *diag.Log) (found int) {
	for _, cl := range c.Clauses {
		fc, ok := cl.(*ast.ForClause)
		if !ok {
			continue
		}
		id, ok := fc.Source.(*ast.Ident)
		if !ok {
			continue
		}
		for i := len(frames) - 1; i >= 0; i-- {
			f := binding(frames[i].decls, id.Name)
			if f == nil {
				continue
			}
			field, ok := f.(*ast.Field)
			if !ok {
				break // a let clause or an alias: what it names is meant
			}
			for _, inner := range frames[i+1:] {
				if inner.field != field {
					continue
				}
				self := inner.path
				if self == undeclared || self == "" || log == nil {
					break
				}
				adds := "nothing"
				for _, d := range inner.decls {
					if _, ok := d.(*ast.Field); ok {
						adds = "only to the fields written beside it"
					}
				}
				msg := "the comprehension runs over %s, the struct it is written in (CUE resolves %s in the innermost struct that declares it), so it adds %s"
				args := []any{self, id.Name, adds}
				if i > 0 && binding(frames[0].decls, id.Name) != nil {
					title := strings.ToUpper(id.Name[:1]) + id.Name[1:]
					msg += "; to run over the top-level %s, bind them at the top of the file (let all%s = %s) and write `for ... in all%s`"
					args = append(args, id.Name, title, id.Name, title)
				} else {
					msg += "; name the struct meant through a let at the top of the file"
				}
				log.Reportf(diag.SelfComprehension, position(id.Pos()), self, msg, args...)
				found++
				break
			}
			break
		}
	}
	return found
}

// binding is the declaration among decls that binds name: a field of
// that label, a let clause or an alias, or nil.
func binding(decls []ast.Decl, name string) ast.Node {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			if a, ok := d.Label.(*ast.Alias); ok && a.Ident.Name == name {
				return a
			}
			if l, ok := labelName(d.Label); ok && l == name {
				if _, isIdent := d.Label.(*ast.Ident); isIdent {
					return d
				}
			}
		case *ast.LetClause:
			if d.Ident.Name == name {
				return d
			}
		}
	}
	return nil
}
