package kro

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apiserver/pkg/cel/common"

	celunstructured "github.com/kubernetes-sigs/kro/pkg/cel/unstructured"
	"k8s.io/apiserver/pkg/cel/openapi"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/cel/conversion"
	"github.com/kubernetes-sigs/kro/pkg/cel/sentinels"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	"github.com/kubernetes-sigs/kro/pkg/graph/parser"
	kroschema "github.com/kubernetes-sigs/kro/pkg/graph/schema"
)

// Segment is a piece of a string value: literal text, or a ${...}
// expression (Text is then the CEL between "${" and its "}").
type Segment struct {
	Text string
	Expr bool
}

// Segments splits a string of a template into literal text and the
// expressions kro's parser extracts from it (pkg/graph/parser).
// A string without an expression is one literal segment.
func Segments(s string) ([]Segment, error) {
	exprs, err := parser.ExtractExpressions(s)
	if err != nil {
		return nil, err
	}
	var out []Segment
	pos := 0
	for _, e := range exprs {
		i := strings.Index(s[pos:], "${"+e+"}")
		if i < 0 {
			return nil, fmt.Errorf("cannot locate expression %q in %q", e, s)
		}
		if i > 0 {
			out = append(out, Segment{Text: s[pos : pos+i]})
		}
		out = append(out, Segment{Text: e, Expr: true})
		pos += i + len(e) + 3
	}
	if pos < len(s) || len(out) == 0 {
		out = append(out, Segment{Text: s[pos:]})
	}
	return out, nil
}

// IsStandalone reports whether segs is exactly one expression with no
// text around it: the value is then the expression's, of any type.
func IsStandalone(segs []Segment) bool { return len(segs) == 1 && segs[0].Expr }

// evalEnv is kro's CEL environment with a graph's variables, and the
// programs compiled in it.
type evalEnv struct {
	env *cel.Env
	ids map[string]bool
	// spec is the instance spec's schema, through which kro's runtime
	// reads the spec (a number field gives a double even when whole).
	spec  common.Schema
	mu    sync.Mutex
	progs map[string]*Program
}

// Program is one expression compiled in kro's CEL environment (pkg/cel's,
// with kro's and the Kubernetes libraries) with a graph's variables.
type Program struct {
	env  *evalEnv
	refs []string
	ast  *cel.Ast
	prg  cel.Program
	err  error
}

// Refs are the variables the expression reads: schema and resource ids.
func (p *Program) Refs() []string { return p.refs }

// Program compiles expr (the CEL inside ${...}), once. kro's builder has
// already type-checked it, so the variables are declared dynamic, as kro's
// inspector does, sparing a rebuild of the schemas' CEL types.
func (r *Result) Program(expr string) (*Program, error) {
	r.envOnce.Do(func() {
		ids := append([]string{graph.SchemaVarName}, slices.Sorted(maps.Keys(r.Deps))...)
		ids = append(ids, r.Iterators...)
		// A collection is a list, as kro's runtime declares it
		// (WithListVariables), so that map() and the like compile.
		var single []string
		for _, id := range ids {
			if !slices.Contains(r.Collections, id) {
				single = append(single, id)
			}
		}
		env, err := krocel.DefaultEnvironment(krocel.WithResourceIDs(single), krocel.WithListVariables(r.Collections))
		if err != nil {
			r.envErr = err
			return
		}
		e := &evalEnv{env: env, ids: map[string]bool{}, progs: map[string]*Program{}}
		if v := r.crd.Spec.Versions; len(v) == 1 && v[0].Schema != nil && v[0].Schema.OpenAPIV3Schema != nil {
			props := v[0].Schema.OpenAPIV3Schema.Properties["spec"]
			if s, err := kroschema.ConvertJSONSchemaPropsToSpecSchema(&props); err == nil {
				e.spec = newMemoSchema(&openapi.Schema{Schema: s})
			}
		}
		for _, id := range ids {
			e.ids[id] = true
		}
		r.env = e
	})
	if r.envErr != nil {
		return nil, r.envErr
	}
	e := r.env
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.progs[expr]; ok {
		return p, p.err
	}
	p := &Program{env: e}
	e.progs[expr] = p
	ast, iss, err := r.parses.Parse(expr)
	if err == nil && iss.Err() != nil {
		err = iss.Err()
	}
	if err == nil {
		ast, iss = e.env.Check(ast)
		err = iss.Err()
	}
	if err != nil {
		p.err = err
		return p, err
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if e.ids[ref.Name] && ref.Value == nil && !slices.Contains(p.refs, ref.Name) {
			p.refs = append(p.refs, ref.Name)
		}
	}
	slices.Sort(p.refs)
	p.ast = ast
	p.prg, p.err = e.env.Program(ast)
	return p, p.err
}

// Aggregate reports whether the expression's value is a list or a map,
// as CEL's checker types it (the variables are dynamic: a field of one is
// of no known kind).
func (p *Program) Aggregate() bool {
	if p.ast == nil {
		return false
	}
	k := p.ast.OutputType().Kind()
	return k == types.ListKind || k == types.MapKind
}

// Selections are the field paths the expression reads of the variable
// ref (ref.a.b as [a b]), and whether it reads ref only so: not whole,
// not by index, not in a presence test, no path a prefix of another.
func (p *Program) Selections(ref string) ([][]string, bool) {
	if p.ast == nil {
		return nil, false
	}
	native := p.ast.NativeRep()
	refs := native.ReferenceMap()
	var paths [][]string
	for _, id := range celast.MatchDescendants(celast.NavigateAST(native), celast.KindMatcher(celast.IdentKind)) {
		if r := refs[id.ID()]; r == nil || r.Name != ref || r.Value != nil {
			continue
		}
		var path []string
		var e celast.NavigableExpr = id
		for {
			parent, ok := e.Parent()
			if !ok || parent.Kind() != celast.SelectKind || parent.AsSelect().Operand().ID() != e.ID() {
				break
			}
			if parent.AsSelect().IsTestOnly() {
				return nil, false
			}
			path = append(path, parent.AsSelect().FieldName())
			e = parent
		}
		if len(path) == 0 {
			return nil, false
		}
		paths = append(paths, path)
	}
	for i, a := range paths {
		for j, b := range paths {
			if i != j && len(a) < len(b) && slices.Equal(a, b[:len(a)]) {
				return nil, false
			}
		}
	}
	return paths, len(paths) > 0
}

// Eval evaluates the program with vars (plain data by variable name:
// "schema" is the instance, whose status it does not see) and returns the
// value as plain data, as kro's runtime converts it (pkg/cel/conversion);
// a value left out with omit() is Omit.
func (p *Program) Eval(vars map[string]any) (any, error) {
	act := map[string]any{}
	for _, ref := range p.refs {
		v, ok := vars[ref]
		if !ok {
			return nil, fmt.Errorf("no value for %s", ref)
		}
		if obj, isObj := v.(map[string]any); isObj && ref == graph.InstanceNodeID {
			v = p.env.instance(obj)
		}
		act[ref] = v
	}
	out, _, err := p.prg.Eval(act)
	if err != nil {
		return nil, err
	}
	v, err := conversion.GoNativeType(out)
	if _, omitted := v.(sentinels.Omit); omitted {
		return Omit, nil
	}
	return v, err
}

// Omit is the value of an expression that calls omit().
var Omit = omitted{}

type omitted struct{}

// instance is the instance as kro's runtime gives it to CEL: without its
// status, the spec read through its schema.
func (e *evalEnv) instance(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		switch {
		case k == "status":
		case k == "spec" && e.spec != nil && v != nil:
			out[k] = celunstructured.UnstructuredToVal(v, e.spec)
		default:
			out[k] = v
		}
	}
	return out
}

// memoSchema wraps k8s.io/apiserver's OpenAPI adaptor to make each child
// once: the adaptor remakes them per call, and kro's unstructured values
// ask at every field read.
type memoSchema struct {
	common.Schema
	once  sync.Once
	props map[string]common.Schema
	items common.Schema
	add   common.SchemaOrBool
}

func newMemoSchema(s common.Schema) *memoSchema { return &memoSchema{Schema: s} }

func (m *memoSchema) children() {
	m.once.Do(func() {
		if p := m.Schema.Properties(); p != nil {
			m.props = make(map[string]common.Schema, len(p))
			for k, v := range p {
				m.props[k] = newMemoSchema(v)
			}
		}
		if it := m.Schema.Items(); it != nil {
			m.items = newMemoSchema(it)
		}
		if ap := m.Schema.AdditionalProperties(); ap != nil {
			var s common.Schema
			if as, ok := ap.Schema().(*openapi.Schema); !ok || as.Schema != nil {
				s = newMemoSchema(ap.Schema())
			}
			m.add = memoSchemaOrBool{ap, s}
		}
	})
}

func (m *memoSchema) Properties() map[string]common.Schema { m.children(); return m.props }
func (m *memoSchema) Items() common.Schema                 { m.children(); return m.items }
func (m *memoSchema) AdditionalProperties() common.SchemaOrBool {
	m.children()
	return m.add
}

type memoSchemaOrBool struct {
	common.SchemaOrBool
	schema common.Schema
}

func (m memoSchemaOrBool) Schema() common.Schema { return m.schema }
