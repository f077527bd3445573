package rgd

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"

	"github.com/platc/platc/compiler/kro"
)

// evalEnv is the CEL environment platc evaluates instance expressions in
// offline: `schema` (the instance) and the stack's resource ids, all
// dynamic. kro's typed environment has checked the expressions already;
// this one only computes values.
func evalEnv(ids []string) (*cel.Env, error) {
	opts := append(kro.Libraries(), kro.Functions()...)
	opts = append(opts, cel.Variable("schema", cel.DynType))
	for _, id := range ids {
		opts = append(opts, cel.Variable(id, cel.DynType))
	}
	return cel.NewEnv(opts...)
}

// evaluator is a CEL environment with its compiled programs, kept so that
// an expression every instance shares is compiled once.
type evaluator struct {
	env   *cel.Env
	mu    sync.Mutex
	progs map[string]program
}

type program struct {
	prg  cel.Program
	refs []string
	// kroOnly says the expression calls a function of kro's own
	// (kro.Functions), which platc does not evaluate.
	kroOnly bool
	err     error
}

func newEvaluator(ids []string) (*evaluator, error) {
	env, err := evalEnv(ids)
	if err != nil {
		return nil, err
	}
	return &evaluator{env: env, progs: map[string]program{}}, nil
}

// program compiles expr once.
func (e *evaluator) program(expr string) program {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.progs[expr]; ok {
		return p
	}
	var p program
	checked, iss := kro.Parse(expr)
	if iss.Err() == nil {
		checked, iss = e.env.Check(checked)
	}
	if iss.Err() != nil {
		p.err = iss.Err()
	} else {
		p.refs = kro.FreeIdents(e.env, checked.NativeRep().Expr())
		p.kroOnly = kro.CallsOwnFunction(checked.NativeRep().Expr())
		if !p.kroOnly {
			p.prg, p.err = e.env.Program(checked)
		}
	}
	e.progs[expr] = p
	return p
}

var (
	schemaOnlyOnce sync.Once
	schemaOnly     *evaluator
	schemaOnlyErr  error
)

// evalOutput evaluates a stack output, a ${...} template over schema alone.
func evalOutput(template string, schemaVar map[string]any) (any, error) {
	schemaOnlyOnce.Do(func() { schemaOnly, schemaOnlyErr = newEvaluator(nil) })
	if schemaOnlyErr != nil {
		return nil, schemaOnlyErr
	}
	return evalTemplate(schemaOnly, template, map[string]any{"schema": schemaVar}, nil)
}

// evalTemplate evaluates every ${...} of s. A string that is one expression
// has that expression's value; otherwise every expression must give a
// string, and the parts are joined. pending, when set, decides which
// expressions cannot be evaluated offline (they read what only the cluster
// knows); they are written as placeholders instead, as are the expressions
// that call kro's own functions.
func evalTemplate(e *evaluator, s string, vars map[string]any, pending func(refs []string) bool) (any, error) {
	segs, err := kro.Scan(s)
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
		p := e.program(seg.Text)
		if p.err != nil {
			return nil, fmt.Errorf("%s: %v", seg.Text, p.err)
		}
		if p.kroOnly || pending != nil && pending(p.refs) {
			if standalone {
				return Placeholder(seg.Text), nil
			}
			b.WriteString(Placeholder(seg.Text))
			continue
		}
		val, _, err := p.prg.Eval(vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", seg.Text, err)
		}
		v, err := native(val)
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

// native converts a CEL value into plain Go data.
func native(v ref.Val) (any, error) {
	x, err := v.ConvertToNative(reflect.TypeFor[any]())
	if err != nil {
		return nil, err
	}
	return normalize(x), nil
}

// normalize turns what CEL gives back into the plain data the rest of platc
// uses: int64, float64, map[string]any, []any.
func normalize(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case uint64:
		return int64(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = normalize(x)
		}
		return out
	case map[ref.Val]ref.Val:
		out := make(map[string]any, len(v))
		for k, x := range v {
			nv, _ := native(x)
			out[fmt.Sprint(k.Value())] = nv
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = normalize(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	case []ref.Val:
		out := make([]any, len(v))
		for i, x := range v {
			out[i], _ = native(x)
		}
		return out
	}
	return v
}
