package load

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/schemas"
)

// TestSchemaAddsNoValue guards what Load relies on when it hands over the
// spec as written: the schema constrains and adds no value. A default in it
// (*x | y), or a regular field (neither optional? nor required!), would add
// one that the spec as written lacks; defaults belong in package model.
func TestSchemaAddsNoValue(t *testing.T) {
	f, err := parser.ParseFile(schemas.PlatformFile, schemas.PlatformCUE)
	if err != nil {
		t.Fatal(err)
	}
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.MUL {
				t.Errorf("%s: the schema marks a default; apply it in package model instead (load reads the spec as written, without the schema's values)", n.Pos())
			}
		case *ast.Field:
			name, _, err := ast.LabelName(n.Label)
			if err == nil && !strings.HasPrefix(name, "#") && n.Constraint == token.ILLEGAL {
				t.Errorf("%s: field %s is neither optional (?) nor required (!): the schema would add it to the spec", n.Pos(), name)
			}
		}
		return true
	}, nil)
}
