package kro

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/proto"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// parseEnv parses as all kro's environments do: they extend one base, and
// variables and functions matter to checking, not parsing.
var parseEnv = sync.OnceValues(func() (*cel.Env, error) { return krocel.DefaultEnvironment() })

// Parses keeps each distinct expression parsed, by source: cel-go's ANTLR
// parser costs far more than copying a result, and stacks repeat
// expressions. Pass one to Check in RGD.Parses; Read and Write keep it
// between runs. It is safe for concurrent use; a nil *Parses always parses.
type Parses struct {
	m sync.Map // source -> *parsed; an entry is replaced, never changed
}

// NewParses returns an empty set of parses.
func NewParses() *Parses { return &Parses{} }

type parsed struct {
	// expr is the parse as a protocol buffer, cheap to turn into an AST;
	// nil where src does not parse.
	expr *exprpb.ParsedExpr
	iss  *cel.Issues
	// uncopied says the parse has no protocol buffer form: Parse parses
	// src again at each use.
	uncopied bool
	// fresh says Parse made it and neither Read nor Write has seen it
	// since, so Write has something new.
	fresh bool
}

// Parse parses the CEL expression src as kro does, returning an AST the
// caller owns (checking rewrites it), or the parse errors.
func (ps *Parses) Parse(src string) (*cel.Ast, *cel.Issues, error) {
	env, err := parseEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("kro's CEL environment: %w", err)
	}
	if ps == nil {
		ast, iss := env.Parse(src)
		return ast, iss, nil
	}
	p, ok := ps.m.Load(src)
	if !ok {
		p, _ = ps.m.LoadOrStore(src, parse(env, src))
	}
	pp := p.(*parsed)
	if pp.uncopied {
		ast, iss := env.Parse(src)
		return ast, iss, nil
	}
	if pp.expr == nil {
		return nil, pp.iss, nil
	}
	return cel.ParsedExprToAst(pp.expr), pp.iss, nil
}

func parse(env *cel.Env, src string) *parsed {
	ast, iss := env.Parse(src)
	if iss.Err() != nil {
		return &parsed{iss: iss}
	}
	pe, err := cel.AstToParsedExpr(ast)
	if err != nil {
		// Should never fail; if it did, src is reparsed at each use.
		return &parsed{iss: iss, uncopied: true}
	}
	return &parsed{expr: pe, iss: iss, fresh: true}
}

// Read adds the parses an earlier Write wrote. Data that does not decode
// is ignored whole: it only costs parses.
func (ps *Parses) Read(data []byte) {
	var stored []storedParse
	if ps == nil || object.ReadEntry(cache.CELParses.Layout(), data, &stored) != nil {
		return
	}
	for _, st := range stored {
		pe := &exprpb.ParsedExpr{}
		if proto.Unmarshal(st.PB, pe) != nil {
			continue
		}
		if p, loaded := ps.m.LoadOrStore(st.Src, &parsed{expr: pe}); loaded && p.(*parsed).fresh {
			ps.m.CompareAndSwap(st.Src, p, &parsed{expr: p.(*parsed).expr, iss: p.(*parsed).iss}) // the data has it
		}
	}
}

// storedParse is a parse as Write keeps it: source and ParsedExpr.
type storedParse struct {
	Src string
	PB  []byte
}

// Write returns the expressions parsed without error, for Read in a later
// run, and whether any is new since Read or the last Write.
func (ps *Parses) Write() ([]byte, bool) {
	stored := []storedParse{}
	fresh := false
	if ps != nil {
		ps.m.Range(func(k, v any) bool {
			p := v.(*parsed)
			if p.expr == nil {
				return true
			}
			if b, err := (proto.MarshalOptions{Deterministic: true}).Marshal(p.expr); err == nil {
				stored = append(stored, storedParse{k.(string), b})
				if p.fresh && ps.m.CompareAndSwap(k, p, &parsed{expr: p.expr, iss: p.iss}) {
					fresh = true
				}
			}
			return true
		})
	}
	slices.SortFunc(stored, func(a, b storedParse) int { return strings.Compare(a.Src, b.Src) })
	data, _ := object.Entry(cache.CELParses.Layout(), stored) // strings and bytes only
	return data, fresh
}
