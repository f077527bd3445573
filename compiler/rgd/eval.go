package rgd

import (
	"fmt"
	"strings"

	"github.com/platc/platc/compiler/kro"
)

// evalOutput evaluates a stack output, a ${...} template over schema
// alone, in kro's typed environment of the stack.
func evalOutput(r *kro.Result, template string, schemaVar map[string]any) (any, error) {
	return evalTemplate(r, template, map[string]any{"schema": schemaVar}, nil)
}

// evalTemplate evaluates every ${...} of s in kro's typed environment of
// the stack, r. A string that is one expression has that expression's
// value; otherwise every expression must give a string, and the parts are
// joined. pending, when set, decides which expressions cannot be evaluated
// offline (they read what only the cluster knows); they are written as
// placeholders instead.
func evalTemplate(r *kro.Result, s string, vars map[string]any, pending func(refs []string) bool) (any, error) {
	segs, err := kro.Segments(s)
	if err != nil {
		return nil, err
	}
	standalone := kro.IsStandalone(segs)
	var b strings.Builder
	for _, seg := range segs {
		if !seg.Expr {
			b.WriteString(seg.Text)
			continue
		}
		p, err := r.Program(seg.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", seg.Text, err)
		}
		if pending != nil && pending(p.Refs()) {
			if standalone {
				// A list or a map stays one, empty, so that a chart
				// that ranges over it renders (loki's extraEnvFrom).
				switch {
				case p.IsList():
					return []any{}, nil
				case p.IsMap():
					return map[string]any{}, nil
				}
				return Placeholder(seg.Text), nil
			}
			b.WriteString(Placeholder(seg.Text))
			continue
		}
		v, err := p.Eval(vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", seg.Text, err)
		}
		if standalone {
			return v, nil
		}
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: in a string template every expression must be a string, this one is %s", seg.Text, kindOf(v))
		}
		b.WriteString(str)
	}
	return b.String(), nil
}

// Placeholder marks a value only the cluster knows.
func Placeholder(expr string) string { return placeholderPrefix + expr + ">" }

const placeholderPrefix = "<from the cluster: "

// HasPlaceholder reports whether s holds a Placeholder.
func HasPlaceholder(s string) bool { return strings.Contains(s, placeholderPrefix) }

func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case int64:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("number %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
