package importer

import (
	"fmt"
	"strconv"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/compiler/object"
)

// writeCUE writes the fields of top as a CUE file of package pkg,
// formatted as cue fmt formats it.
func writeCUE(pkg string, top *object.Map) []byte {
	f := &ast.File{Decls: append([]ast.Decl{&ast.Package{Name: ast.NewIdent(pkg)}}, expr(top).(*ast.StructLit).Elts...)}
	b, err := format.Node(f)
	if err != nil {
		// The tree is made here of labels and literals only.
		panic(fmt.Sprintf("importer: formatting the spec: %v", err))
	}
	return b
}

// expr is the CUE expression of a value read from YAML or built here.
func expr(v any) ast.Expr {
	switch x := v.(type) {
	case nil:
		return ast.NewNull()
	case *object.Map:
		s := &ast.StructLit{}
		x.Each(func(k string, v any) {
			s.Elts = append(s.Elts, &ast.Field{Label: ast.NewStringLabel(k), Value: expr(v)})
		})
		return s
	case map[string]any:
		return expr(ordered(x))
	case []any:
		l := &ast.ListLit{}
		for _, e := range x {
			l.Elts = append(l.Elts, expr(e))
		}
		return l
	case []string:
		return expr(toAny(x))
	case string:
		return ast.NewString(x)
	case bool:
		return ast.NewBool(x)
	case int, int64, uint64:
		return ast.NewLit(token.INT, fmt.Sprint(x))
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if x == float64(int64(x)) && len(s) < 16 {
			s = strconv.FormatFloat(x, 'f', 1, 64) // 2.0, a float as YAML said
		}
		return ast.NewLit(token.FLOAT, s)
	}
	return ast.NewString(fmt.Sprint(v))
}
