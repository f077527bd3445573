package kro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	celparser "github.com/google/cel-go/parser"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/internal/cache"
)

// A problem of one name inside an expression (a field or an identifier
// that does not exist) is placed at that name in the string the
// expression is written in: Problem.Str and Offset.

// exprString is the string value an expression was written in: its
// template, or the standalone ${...}.
func exprString(e *krocel.Expression) string {
	if e.OriginalTemplate != "" {
		return e.OriginalTemplate
	}
	return "${" + e.Original + "}"
}

// part is one ${...} expression of a string value, and the offset of its
// first character (after "${") in the string.
type part struct {
	text string
	at   int
}

// exprParts are the expressions of a string value, as kro's parser
// extracts them, each with its offset.
func exprParts(str string) []part {
	segs, err := Segments(str)
	if err != nil {
		return nil
	}
	var out []part
	at := 0
	for _, s := range segs {
		if s.Expr {
			out = append(out, part{text: s.Text, at: at + 2})
			at += len("${}")
		}
		at += len(s.Text)
	}
	return out
}

// byteOffset turns an offset in code points (CEL's) into one in bytes.
func byteOffset(text string, runes int32) int {
	n := int32(0)
	for i := range text {
		if n == runes {
			return i
		}
		n++
	}
	return len(text)
}

// fieldProblems type-checks each expression of e's string alone, and
// reports the problems of each at its place, a field that does not exist
// with the fields that do; it says whether it reported any.
func (c *checker) fieldProblems(idx int, path string, e *krocel.Expression, env *cel.Env) bool {
	str := exprString(e)
	found := false
	for _, p := range exprParts(str) {
		// Checking rewrites the AST it is given: the names are read from
		// a parse of their own.
		checked, iss := env.Parse(p.text)
		if iss.Err() != nil {
			continue // the whole expression's syntax error is reported
		}
		if _, iss = env.Check(checked); iss.Err() == nil {
			continue
		}
		found = true
		ast, _ := env.Parse(p.text)
		info := ast.NativeRep().SourceInfo()
		for _, ce := range iss.Errors() {
			field, undefined := strings.CutPrefix(ce.Message, "undefined field '")
			field = strings.TrimSuffix(field, "'")
			sel := findExpr(ast.NativeRep().Expr(), ce.ExprID)
			if !undefined || sel == nil || sel.Kind() != celast.SelectKind {
				// Placed at the expression: cel-go places a call at
				// its parenthesis, an operator at its symbol.
				c.addAt(diag.KroCEL, idx, path, fmt.Sprintf("expression %q does not type-check: %s: %s", p.text, ce.Message, checkHint(ce.Message)), str, p.at)
				continue
			}
			// A selection is placed at its dot; the field follows it.
			at := p.at
			if r, ok := info.GetOffsetRange(ce.ExprID); ok {
				at += byteOffset(p.text, r.Start)
			}
			if i := strings.Index(str[at:], field); i >= 0 {
				at += i
			}
			c.addAt(diag.KroCEL, idx, path, c.noFieldMessage(sel.AsSelect().Operand(), info, field, env), str, at)
		}
	}
	return found
}

// noFieldMessage says that the value of operand has no field, and which
// it has.
func (c *checker) noFieldMessage(operand celast.Expr, info *celast.SourceInfo, field string, env *cel.Env) string {
	name, err := celparser.Unparse(operand, info)
	if err != nil {
		name = "the value"
	}
	var fields []string
	if ast, iss := env.Compile(name); iss.Err() == nil && c.provider != nil {
		if t, ok := c.provider.FindDeclType(ast.OutputType().TypeName()); ok {
			for f := range t.Fields {
				fields = append(fields, f)
			}
		}
	}
	slices.Sort(fields)
	switch s := diag.Suggest(field, fields); {
	case s != "":
		return fmt.Sprintf("%s has no field %q: did you mean %q?", name, field, s)
	case len(fields) > 0:
		return fmt.Sprintf("%s has no field %q: use one of %s", name, field, strings.Join(fields, ", "))
	}
	return fmt.Sprintf("%s has no field %q: use a field that its schema declares", name, field)
}

// findExpr is the expression of id in e.
func findExpr(e celast.Expr, id int64) celast.Expr {
	var found celast.Expr
	celast.PreOrderVisit(e, celast.NewExprVisitor(func(x celast.Expr) {
		if x.ID() == id && found == nil {
			found = x
		}
	}))
	return found
}

// identOffset is the offset in str, the string value of an expression, of
// the first use of the identifier name, or -1.
func identOffset(str, name string) int {
	env, err := parseEnv()
	if err != nil {
		return -1
	}
	for _, p := range exprParts(str) {
		ast, iss := env.Parse(p.text)
		if iss.Err() != nil {
			continue
		}
		info := ast.NativeRep().SourceInfo()
		best := int32(-1)
		celast.PreOrderVisit(ast.NativeRep().Expr(), celast.NewExprVisitor(func(x celast.Expr) {
			if x.Kind() == celast.IdentKind && x.AsIdent() == name {
				if r, ok := info.GetOffsetRange(x.ID()); ok && (best < 0 || r.Start < best) {
					best = r.Start
				}
			}
		}))
		if best >= 0 {
			return p.at + byteOffset(p.text, best)
		}
	}
	return -1
}

// CheckOverSchema type-checks each ${...} of s, a template over the schema
// alone (the instance's spec and metadata), as kro's builder would: for
// platc's stack outputs, which kro does not see. Problems have no Resource
// or Path and are placed in s (Str and Offset).
func (r *Result) CheckOverSchema(s string) []Problem {
	if r.cache == nil {
		return r.checkOverSchema(s)
	}
	// The result depends on the RGD and s alone: cache it, so unchanged
	// stacks build no environment.
	return readThrough(r.cache, cache.KroOverSchema.Key(r.key, s), decodeOverSchema, encodeOverSchema, func() []Problem {
		return r.checkOverSchema(s)
	})
}

func (r *Result) checkOverSchema(s string) []Problem {
	r.schemaOnce.Do(func() {
		sch, err := schemaWithoutStatus(r.crd)
		if err != nil {
			r.schemaErr = err
			return
		}
		r.schemaEnv, r.schemaProvider, r.schemaErr = krocel.TypedEnvironmentWithProvider(map[string]*spec.Schema{graph.SchemaVarName: sch})
	})
	if r.schemaErr != nil {
		return []Problem{{ID: diag.KroCEL, Msg: fmt.Sprintf("cannot build kro's typed CEL environment of schema: %v", r.schemaErr)}}
	}
	c := &checker{rgd: &RGD{}, provider: r.schemaProvider}
	for _, p := range exprParts(s) {
		if _, iss := r.schemaEnv.Parse(p.text); iss.Err() != nil {
			c.addAt(diag.KroCEL, -1, "", syntaxMessage(p.text, iss.Err()), s, p.at)
		}
	}
	c.fieldProblems(-1, "", &krocel.Expression{OriginalTemplate: s}, r.schemaEnv)
	return c.sorted()
}
