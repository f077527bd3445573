package rgd

import (
	"fmt"
	"maps"
	"strings"

	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/object"
)

// evalTemplate evaluates every ${...} of s in kro's typed environment of
// the stack, r. A string that is one expression has that expression's
// value; otherwise every expression must give a string, and the parts are
// joined. pending, when set, decides which expressions cannot be evaluated
// offline (they read what only the cluster knows); they are written as
// placeholders instead, but for one that makes a list or a map (kro sets
// the field to that list or map, and a chart's templates read it as one):
// it is evaluated with a placeholder for each field it reads that only
// the cluster knows (standIn), where it can be.
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
				if v, ok := standIn(p, vars, pending); ok {
					return v, nil
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

// standIn evaluates an expression that makes a list or a map and reads
// what only the cluster knows, with each field it reads of a resource the
// cluster knows a placeholder naming that field
// (lokiBucket.status.credentialsSecretRef.name): the list or map kro will
// make, its values from the cluster marked. It does not where the
// expression reads such a resource otherwise than by plain field paths,
// or fails on the placeholders (it computes with them: a number, a
// comparison); the whole expression is then the placeholder.
func standIn(p *kro.Program, vars map[string]any, pending func(refs []string) bool) (any, bool) {
	if !p.Aggregate() {
		return nil, false
	}
	with := maps.Clone(vars)
	for _, ref := range p.Refs() {
		if !pending([]string{ref}) {
			continue
		}
		paths, ok := p.Selections(ref)
		if !ok {
			return nil, false
		}
		obj := map[string]any{}
		for _, path := range paths {
			obj = object.SetPath(obj, path, Placeholder(ref+"."+strings.Join(path, ".")))
		}
		with[ref] = obj
	}
	v, err := p.Eval(with)
	if err != nil || v == kro.Omit {
		return nil, false
	}
	return v, true
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
