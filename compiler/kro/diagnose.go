package kro

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/kubernetes-sigs/kro/api/v1alpha1"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/cel/ast"
	"github.com/kubernetes-sigs/kro/pkg/cel/conversion"
	"github.com/kubernetes-sigs/kro/pkg/cel/library"
	"github.com/kubernetes-sigs/kro/pkg/features"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	"github.com/kubernetes-sigs/kro/pkg/graph/crd"
	"github.com/kubernetes-sigs/kro/pkg/graph/fieldpath"
	"github.com/kubernetes-sigs/kro/pkg/graph/parser"
	kroschema "github.com/kubernetes-sigs/kro/pkg/graph/schema"
	"github.com/kubernetes-sigs/kro/pkg/graph/variable"
	"github.com/kubernetes-sigs/kro/pkg/simpleschema"

	"github.com/platc/platc/compiler/diag"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The diagnosis runs when kro's builder refuses a graph. It follows the
// builder's steps (pkg/graph/builder.go of kro) with kro's own
// pieces, one resource, field and expression at a time, so that every
// problem is found, not just the first, each with its place.

// node is what the diagnosis knows of one resource.
type node struct {
	idx                    int
	id                     string
	kind                   string       // the template's kind
	inGraph                bool         // a valid, unique id: a vertex of kro's graph
	schema                 *spec.Schema // its kind's schema; nil when it does not resolve
	vars                   []exprAt     // the template's expressions
	includeWhen, readyWhen []exprAt
	deps                   []string        // resources it depends on, in order of first use
	broken                 map[string]bool // places with a problem (template vars, conditions)
	// iterators are its forEach dimensions: a collection has some.
	iterators  []iterator
	external   bool // an externalRef: kro reads it, and its fields are schemaless
	namespaced bool // its kind is namespaced
}

// iterator is a forEach dimension.
type iterator struct {
	name, path string // path: "forEach[0]"
	expr       *krocel.Expression
}

// collection reports whether the resource is a forEach collection.
func (n *node) collection() bool { return len(n.iterators) > 0 }

// iteratorNames are the names of its iterators.
func (n *node) iteratorNames() []string {
	var out []string
	for _, it := range n.iterators {
		out = append(out, it.name)
	}
	return out
}

// exprAt is an expression of a resource, of its template or an
// includeWhen or readyWhen entry: where it is, and in a template kro's
// path of the field ("spec.x[0]").
type exprAt struct {
	path    string // Problem path: "template.spec.x[0]", "includeWhen[0]"
	kroPath string
	expr    *krocel.Expression
}

// diagnose finds every problem of a graph kro's builder refused.
func (c *checker) diagnose(obj *v1alpha1.ResourceGraphDefinition) {
	badIDs := c.names(obj)
	nodes := c.nodes(obj, badIDs)
	specSchema := c.simpleSchema(obj)
	scope := extv1.NamespaceScoped
	if obj.Spec.Schema.Scope == v1alpha1.ResourceScopeCluster {
		scope = extv1.ClusterScoped
	}
	var instanceCRD *extv1.CustomResourceDefinition
	if specSchema != nil {
		s := obj.Spec.Schema
		instanceCRD = crd.SynthesizeCRD(s.Group, s.APIVersion, s.Kind, *specSchema, extv1.JSONSchemaProps{}, false, scope, s)
	}
	insp, err := c.inspector(nodes)
	if err != nil {
		c.reportf(diag.KroCEL, -1, "", "cannot build kro's CEL environment: %v", err)
		return
	}
	c.dependencies(nodes, insp)
	env, provider, err := c.typedEnv(nodes, instanceCRD)
	if err != nil {
		c.reportf(diag.KroCEL, -1, "", "cannot build kro's typed CEL environment: %v", err)
		return
	}
	c.provider = provider
	tc := &typeContext{provider: provider, cache: kroschema.NewCache(), declTypes: map[*spec.Schema]*apiservercel.DeclType{}}
	for _, n := range nodes {
		c.typeCheck(n, env, tc, insp)
	}
	status := c.status(obj, nodes, env, tc, insp)
	if instanceCRD != nil && status != nil {
		crd.SetCRDStatus(instanceCRD, *status, true)
		c.crdChecks(instanceCRD)
	}
}

// probeRGD is a graph of one resource (or none), to ask kro's builder
// about one part of a graph.
func probeRGD(kind string, resources ...*v1alpha1.Resource) *v1alpha1.ResourceGraphDefinition {
	obj := &v1alpha1.ResourceGraphDefinition{}
	obj.Name = "probe"
	obj.Spec.Schema = &v1alpha1.Schema{Kind: kind, APIVersion: "v1alpha1", Group: "kro.run", Scope: v1alpha1.ResourceScopeNamespaced, Spec: runtime.RawExtension{Raw: []byte("{}")}}
	obj.Spec.Resources = resources
	return obj
}

// probeID is the id a probe gives a resource whose own id kro refuses.
const probeID = "probe"

// names checks the kind and the resource ids as kro's builder does first
// (validateResourceGraphDefinition), asking the builder about each one
// alone. It returns the indexes of the resources whose id is refused.
func (c *checker) names(obj *v1alpha1.ResourceGraphDefinition) map[int]bool {
	const naming = "failed to validate resourcegraphdefinition: naming convention violation: "
	if !c.has(-1, "kind") {
		_, err := c.kinds.build(probeRGD(obj.Spec.Schema.Kind), c.rgd.Gates)
		if err != nil && strings.HasPrefix(err.Error(), naming+"kind") {
			c.add(diag.KroSchema, -1, "kind", kindMessage(obj.Spec.Schema.Kind, "kro: "+strings.TrimPrefix(err.Error(), naming)))
		}
	}
	bad := map[int]bool{}
	first := map[string]int{}
	for i, r := range obj.Spec.Resources {
		_, err := c.kinds.build(probeRGD("Probe", &v1alpha1.Resource{ID: r.ID}), c.rgd.Gates)
		if err != nil && strings.HasPrefix(err.Error(), naming) {
			bad[i] = true
			c.add(diag.KroGraph, i, "id", idMessage(r.ID, "kro: "+strings.TrimPrefix(err.Error(), naming)))
			continue
		}
		if j, dup := first[r.ID]; dup {
			bad[i] = true
			c.reportf(diag.KroGraph, i, "id", "id %q is already the id of resources[%d]: give each resource its own id (kro: found duplicate resource IDs %s)", r.ID, j, r.ID)
			continue
		}
		first[r.ID] = i
	}
	return bad
}

// nodes checks each resource as the builder's buildRGResource does (the
// template's structure, kind, schema and scope, then its fields and
// expressions, then includeWhen and readyWhen), and returns what it found.
func (c *checker) nodes(obj *v1alpha1.ResourceGraphDefinition, bad map[int]bool) []*node {
	var nodes []*node
	for i, r := range obj.Spec.Resources {
		n := &node{idx: i, id: r.ID, inGraph: !bad[i], broken: map[string]bool{}}
		nodes = append(nodes, n)
		c.conditions(n, r)
		c.forEach(n, r)
		id := r.ID
		if bad[i] {
			id = probeID
		}
		probe := &v1alpha1.Resource{ID: id, Template: r.Template, ExternalRef: r.ExternalRef}
		_, err := c.kinds.build(probeRGD("Probe", probe), c.rgd.Gates)
		prefix := fmt.Sprintf("failed to build resource %q: ", id)
		if err != nil && strings.HasPrefix(err.Error(), prefix) {
			cause := strings.TrimPrefix(err.Error(), prefix)
			if !strings.HasPrefix(cause, "failed to extract CEL expressions from schema") {
				c.resourceProblem(n, r, cause)
				continue
			}
		}
		tmpl, ok := c.template(n, r)
		if !ok {
			continue
		}
		apiVersion, _ := tmpl["apiVersion"].(string)
		kindName, _ := tmpl["kind"].(string)
		n.kind = kindName
		gv, _ := schema.ParseGroupVersion(apiVersion)
		n.schema, _ = c.kinds.ResolveSchema(gv.WithKind(kindName))
		if n.schema == nil {
			continue // the probe reported it
		}
		if k, ok := c.kinds.Kind(apiVersion, kindName); ok {
			n.namespaced = k.Namespaced
		}
		body := "template"
		var descs []variable.FieldDescriptor
		if n.external {
			// kro reads an externalRef's synthetic template schemaless
			// (buildRGResource).
			body = "externalRef"
			if descs, _, err = parser.ParseSchemalessResource(tmpl); err != nil {
				c.reportf(diag.KroTemplate, i, "externalRef", "kro cannot read the externalRef's expressions: %v: write each of name and namespace as one string", err)
				continue
			}
		} else {
			p := parser.New(kroschema.NewCache())
			if descs, err = p.ParseResource(tmpl, n.schema); err != nil {
				descs = c.isolate(n, p, tmpl, nil)
			}
		}
		for _, d := range descs {
			n.vars = append(n.vars, exprAt{path: body + dotted(kroPathSegments(d.Path)), kroPath: d.Path, expr: d.Expression})
		}
	}
	return nodes
}

// template is the resource's object as kro's builder reads it: its
// template, or the object an externalRef makes (buildExternalRefResource).
func (c *checker) template(n *node, r *v1alpha1.Resource) (map[string]any, bool) {
	if r.ExternalRef != nil {
		n.external = true
		tmpl, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r.ExternalRef)
		if err != nil {
			c.reportf(diag.KroTemplate, n.idx, "externalRef", "the externalRef does not convert: %v", err)
			return nil, false
		}
		return tmpl, true
	}
	tmpl := map[string]any{}
	if err := yaml.UnmarshalStrict(r.Template.Raw, &tmpl); err != nil {
		c.reportf(diag.KroTemplate, n.idx, "template", "the template does not decode: %v", err)
		return nil, false
	}
	return tmpl, true
}

// forEach checks the iterators' names as the builder's
// validateForEachDimensions does (asking it about each name alone), and
// unwraps the dimensions as its parseForEachDimensions does, one at a
// time.
func (c *checker) forEach(n *node, r *v1alpha1.Resource) {
	seen := map[string]bool{}
	for j, dim := range r.ForEach {
		// RGD.plain writes one iterator per entry (Dimension), as kro
		// requires.
		path := fmt.Sprintf("forEach[%d]", j)
		for name, expr := range dim {
			probe := &v1alpha1.Resource{ID: probeID, ForEach: []v1alpha1.ForEachDimension{{name: "${[]}"}}}
			_, err := c.kinds.build(probeRGD("Probe", probe), c.rgd.Gates)
			const prefix = "failed to validate resourcegraphdefinition: resource \"" + probeID + "\": forEach iterator name"
			// A refused name is still the template's iterator: what reads
			// it is not reported again, and not type-checked.
			switch {
			case err != nil && strings.HasPrefix(err.Error(), prefix):
				cause := strings.TrimPrefix(err.Error(), "failed to validate resourcegraphdefinition: ")
				c.reportf(diag.KroForEach, n.idx, path, "forEach iterator name %q is refused: name it in lowerCamelCase, not a reserved word, such as \"region\" (kro: %s)", name, strings.Replace(cause, probeID, r.ID, 1))
				n.broken[path] = true
			case slices.ContainsFunc(c.rgd.Resources, func(x Resource) bool { return x.ID == name }):
				c.reportf(diag.KroForEach, n.idx, path, "forEach iterator %q has the name of a resource: rename the iterator (kro: resource %q: forEach iterator name %q conflicts with resource ID)", name, r.ID, name)
				n.broken[path] = true
			case seen[name]:
				c.reportf(diag.KroForEach, n.idx, path, "forEach iterator %q is declared twice: give each dimension its own name (kro: resource %q: duplicate forEach iterator name %q)", name, r.ID, name)
				n.broken[path] = true
			}
			seen[name] = true
			exprs, err := parser.UnwrapExpressions([]string{expr})
			if err != nil || len(exprs) != 1 {
				c.reportf(diag.KroForEach, n.idx, path, "forEach iterator %q iterates %q, which is not one ${...} expression: write the list as \"${schema.spec.items}\" (kro: invalid forEach expression for dimension %q)", name, expr, name)
				continue
			}
			n.iterators = append(n.iterators, iterator{name: name, path: path, expr: exprs[0]})
		}
	}
}

// conditions unwraps includeWhen and readyWhen as the builder does, one
// entry at a time.
func (c *checker) conditions(n *node, r *v1alpha1.Resource) {
	for _, list := range []struct {
		name    string
		entries []string
		into    *[]exprAt
	}{{"includeWhen", r.IncludeWhen, &n.includeWhen}, {"readyWhen", r.ReadyWhen, &n.readyWhen}} {
		for j, w := range list.entries {
			path := fmt.Sprintf("%s[%d]", list.name, j)
			exprs, err := parser.UnwrapExpressions([]string{w})
			if err != nil {
				c.add(diag.KroCEL, n.idx, path, conditionShapeMessage(list.name, w, err))
				continue
			}
			*list.into = append(*list.into, exprAt{path: path, expr: exprs[0]})
		}
	}
}

// resourceProblem reports why kro cannot build a resource before reading
// its fields: its structure, kind, schema or scope.
func (c *checker) resourceProblem(n *node, r *v1alpha1.Resource, cause string) {
	body, apiVersion, kindName := "template", "", ""
	if e := r.ExternalRef; e != nil {
		body, apiVersion, kindName = "externalRef", e.APIVersion, e.Kind
	} else {
		tmpl := map[string]any{}
		_ = yaml.UnmarshalStrict(r.Template.Raw, &tmpl)
		apiVersion, _ = tmpl["apiVersion"].(string)
		kindName, _ = tmpl["kind"].(string)
	}
	path, msg := resourceMessage(cause, body, apiVersion, kindName, c.kinds)
	c.add(diag.KroTemplate, n.idx, path, msg)
}

// isolate finds every place of a template kro's parser refuses by asking
// about each part alone (the template reduced to the path to it, earlier
// list items null, which the parser skips). It reports each and returns
// the expressions of the parts it takes.
func (c *checker) isolate(n *node, p *parser.Parser, tmpl map[string]any, segs []fieldpath.Segment) []variable.FieldDescriptor {
	v := valueAt(tmpl, segs)
	descs, err := p.ParseResource(spine(segs, v), n.schema)
	if err == nil {
		return descs
	}
	report := func() {
		path := "template" + dotted(segs)
		c.add(diag.KroTemplate, n.idx, path, templateMessage(v, err))
		n.broken[path] = true
	}
	var out []variable.FieldDescriptor
	switch v := v.(type) {
	case map[string]any:
		shallow := map[string]any{}
		for k := range v {
			shallow[k] = nil
		}
		var unknown map[string]bool
		if _, err := p.ParseResource(spine(segs, shallow), n.schema); err != nil {
			// The object itself, or some of its field names.
			if unknown = c.unknownFields(n, p, segs, v); len(unknown) == 0 {
				report()
				return nil
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !unknown[k] {
				out = append(out, c.isolate(n, p, tmpl, append(slices.Clone(segs), fieldpath.NewNamedSegment(k)))...)
			}
		}
	case []any:
		shallow := make([]any, len(v))
		if _, err := p.ParseResource(spine(segs, shallow), n.schema); err != nil {
			report()
			return nil
		}
		for i := range v {
			out = append(out, c.isolate(n, p, tmpl, append(slices.Clone(segs), fieldpath.NewIndexedSegment(i)))...)
		}
	default:
		report()
	}
	return out
}

// unknownFields reports each field of the object at segs that the parser
// finds no schema for, and returns them.
func (c *checker) unknownFields(n *node, p *parser.Parser, segs []fieldpath.Segment, v map[string]any) map[string]bool {
	found := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(v)) {
		one := map[string]any{k: nil}
		_, err := p.ParseResource(spine(segs, one), n.schema)
		if err == nil || !strings.Contains(err.Error(), "schema not found for field") {
			continue
		}
		found[k] = true
		fieldSegs := append(slices.Clone(segs), fieldpath.NewNamedSegment(k))
		path := "template" + dotted(fieldSegs)
		c.add(diag.KroTemplate, n.idx, path, unknownFieldMessage(k, n, segs, err))
		n.broken[path] = true
	}
	return found
}

// valueAt returns the value of tmpl at segs.
func valueAt(tmpl map[string]any, segs []fieldpath.Segment) any {
	var v any = tmpl
	for _, s := range segs {
		switch x := v.(type) {
		case map[string]any:
			v = x[s.Name]
		case []any:
			v = x[s.Index]
		default:
			return nil
		}
	}
	return v
}

// spine is a template holding only v at segs: the objects on the way have
// that one field, the lists on the way null items before it.
func spine(segs []fieldpath.Segment, v any) map[string]any {
	for _, s := range slices.Backward(segs) {
		if s.Index >= 0 {
			l := make([]any, s.Index+1)
			l[s.Index] = v
			v = l
		} else {
			v = map[string]any{s.Name: v}
		}
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// kroPathSegments parses a path kro's parser wrote ("spec.a[0][\"b.c\"]").
func kroPathSegments(p string) []fieldpath.Segment {
	segs, err := fieldpath.Parse(p)
	if err != nil {
		return []fieldpath.Segment{fieldpath.NewNamedSegment(p)}
	}
	return segs
}

// dotted writes segments as a Problem path suffix: ".a[0][\"b.c\"]".
func dotted(segs []fieldpath.Segment) string {
	out := ""
	for _, s := range segs {
		if s.Index >= 0 {
			out += "[" + strconv.Itoa(s.Index) + "]"
			continue
		}
		out += strings.TrimPrefix(JoinPath("x", s.Name), "x")
	}
	return out
}

// simpleSchema builds the instance spec's schema with kro's SimpleSchema
// transformer, and when it refuses it, finds every custom type and field it
// refuses, one at a time.
func (c *checker) simpleSchema(obj *v1alpha1.ResourceGraphDefinition) *extv1.JSONSchemaProps {
	spec := map[string]any{}
	types := map[string]any{}
	if err := yaml.UnmarshalStrict(obj.Spec.Schema.Spec.Raw, &spec); err != nil {
		c.reportf(diag.KroSchema, -1, "spec", "the spec schema does not decode: %v", err)
		return nil
	}
	if err := yaml.UnmarshalStrict(obj.Spec.Schema.Types.Raw, &types); err != nil && len(obj.Spec.Schema.Types.Raw) > 0 {
		c.reportf(diag.KroSchema, -1, "types", "the types do not decode: %v", err)
		return nil
	}
	s, err := simpleschema.ToOpenAPISpec(spec, types)
	if err == nil {
		return s
	}
	good := c.customTypes(types)
	fixed := c.schemaFields(spec, good, "spec")
	// The rest of the diagnosis reads the schema with every refused type
	// and field taken as object, which holds anything: what they hold is
	// unknown, not wrong.
	s, err = simpleschema.ToOpenAPISpec(fixed, good)
	if err != nil {
		return nil
	}
	return s
}

// customTypes finds the custom types kro's transformer refuses, alone or
// in a cycle, and returns the types with each refused one replaced by
// object, so fields using them are not reported again.
func (c *checker) customTypes(types map[string]any) map[string]any {
	if len(types) == 0 {
		return types
	}
	if _, err := simpleschema.ToOpenAPISpec(map[string]any{}, types); err == nil {
		return types
	}
	deps := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(types)) {
		deps[name] = typeDeps(types[name], types)
	}
	good := maps.Clone(types)
	for _, cycle := range cycles(slices.Sorted(maps.Keys(types)), deps) {
		c.reportf(diag.KroSchema, -1, "types."+cycle[0], "type %q is part of a cycle: %s: break the cycle (kro: cyclic dependency in type %s)", cycle[0], strings.Join(cycle, " -> "), cycle[0])
		for _, t := range cycle {
			good[t] = "object"
		}
	}
	// A type fails alone if kro refuses it while its dependencies load;
	// dependencies are tried first.
	for _, name := range typeOrder(types, deps) {
		if good[name] == "object" && types[name] != "object" {
			continue // in a cycle
		}
		_, err := simpleschema.ToOpenAPISpec(map[string]any{}, good)
		if err == nil {
			break
		}
		trial := map[string]any{name: types[name]}
		for _, d := range deps[name] {
			if v, ok := good[d]; ok {
				trial[d] = v
			}
		}
		if _, err := simpleschema.ToOpenAPISpec(map[string]any{}, trial); err != nil {
			c.add(diag.KroSchema, -1, "types."+name, typeMessage(name, types[name], err, good))
			good[name] = "object"
		}
	}
	return good
}

// typeDeps are the custom types a type's definition uses.
func typeDeps(def any, types map[string]any) []string {
	var out []string
	var walk func(def any)
	walk = func(def any) {
		switch d := def.(type) {
		case string:
			if t, err := simpleschema.ParseTypeString(d); err == nil {
				for _, dep := range t.Deps() {
					if _, ok := types[dep]; ok && !slices.Contains(out, dep) {
						out = append(out, dep)
					}
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(d)) {
				walk(d[k])
			}
		}
	}
	walk(def)
	return out
}

// typeOrder orders types so that each comes after the types it uses
// (cycles broken at their first type), by name otherwise.
func typeOrder(types map[string]any, deps map[string][]string) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, d := range deps[n] {
			visit(d)
		}
		out = append(out, n)
	}
	for _, n := range slices.Sorted(maps.Keys(types)) {
		visit(n)
	}
	return out
}

// schemaFields finds every spec field kro's transformer refuses, each one
// given alone (with the custom types that load), and returns the tree with
// each of them taken as object.
func (c *checker) schemaFields(tree map[string]any, types map[string]any, path string) map[string]any {
	out := make(map[string]any, len(tree))
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		fp := path + "." + name
		v := tree[name]
		if sub, ok := v.(map[string]any); ok {
			out[name] = c.schemaFields(sub, types, fp)
			continue
		}
		out[name] = v
		if _, err := simpleschema.ToOpenAPISpec(map[string]any{name: v}, types); err != nil {
			c.add(diag.KroSchema, -1, fp, fieldMessage(name, v, err, types))
			out[name] = "object"
		}
	}
	return out
}

// inspector is kro's expression inspector over the graph's identifiers.
func (c *checker) inspector(nodes []*node) (*ast.Inspector, error) {
	ids := []string{graph.SchemaVarName, graph.EachVarName, library.RuntimeVarName}
	for _, n := range nodes {
		if n.inGraph {
			ids = append(ids, n.id)
		}
	}
	env, err := krocel.DefaultEnvironment(krocel.WithResourceIDs(ids))
	if err != nil {
		return nil, err
	}
	return ast.NewInspectorWithEnv(env, ids), nil
}

// dependencies finds what each expression references, as the builder's
// buildDependencyGraph does, reporting unknown identifiers and functions,
// omit() (off by default in kro), and self references; then reports each
// cycle of the dependencies once.
func (c *checker) dependencies(nodes []*node, insp *ast.Inspector) {
	var ids []string // the graph's vertices
	index := map[string]int{}
	badID := map[string]bool{}
	for _, n := range nodes {
		index[n.id] = n.idx
		if n.inGraph {
			ids = append(ids, n.id)
		} else {
			badID[n.id] = true
		}
	}
	deps := map[string][]string{}
	for _, n := range nodes {
		// identity are the iterators the object's name (and a namespaced
		// object's namespace) use: kro's extractTemplateDependencies.
		var identity []string
		check := func(path string, e *krocel.Expression, iterators []string) []string {
			deps, iters, ok := c.references(n.idx, path, e, insp, badID, iterators)
			if !ok {
				n.broken[path] = true
			}
			for _, d := range deps {
				if d == n.id {
					c.reportf(diag.KroGraph, n.idx, path, "expression %q references its own resource %q: a resource cannot depend on itself; take the value from schema or another resource (kro: self references are not allowed)", e.UserExpression(), n.id)
					n.broken[path] = true
					continue
				}
				if !slices.Contains(n.deps, d) {
					n.deps = append(n.deps, d)
				}
			}
			return iters
		}
		for _, v := range n.vars {
			iters := check(v.path, v.expr, n.iteratorNames())
			if v.kroPath == "metadata.name" || (v.kroPath == "metadata.namespace" && n.namespaced) {
				identity = append(identity, iters...)
			}
		}
		for _, it := range n.iterators {
			// A dimension's list may read schema and other resources, not
			// another iterator (the dimensions are independent).
			if iters := check(it.path, it.expr, n.iteratorNames()); len(iters) > 0 {
				c.reportf(diag.KroForEach, n.idx, it.path, "forEach iterator %q reads iterator %s: the dimensions of a forEach are independent (kro iterates their cartesian product); iterate a list of schema or of a resource (kro: node %q: forEach iterator %q cannot reference other iterators %v - forEach iterators are independent (cartesian product))",
					it.name, strings.Join(iters, ", "), n.id, it.name, iters)
				n.broken[it.path] = true
			}
		}
		for _, w := range n.includeWhen {
			check(w.path, w.expr, nil)
		}
		if n.inGraph && n.collection() {
			var missing []string
			for _, it := range n.iterators {
				if !slices.Contains(identity, it.name) && !n.broken[it.path] {
					missing = append(missing, it.name)
				}
			}
			if len(missing) > 0 {
				where := "metadata.name"
				if n.namespaced {
					where = "metadata.name or metadata.namespace"
				}
				c.reportf(diag.KroForEach, n.idx, "template.metadata.name", "%s does not use forEach iterator %s: every element would make an object of the same name, and the API server keeps only one; put ${%s} in the name (kro: node %q: all forEach dimensions must be used to produce a unique resource identity, missing: %v)",
					where, strings.Join(missing, ", "), missing[0], n.id, missing)
			}
		}
		if n.inGraph {
			deps[n.id] = slices.DeleteFunc(slices.Clone(n.deps), func(d string) bool { return !slices.Contains(ids, d) })
		}
	}
	// kro's DAG finds a cycle in map order; the one reported is the
	// shortest through the resource declared first, for the same message
	// every time.
	for _, cycle := range cycles(ids, deps) {
		c.reportf(diag.KroGraph, index[cycle[0]], "", "graph contains a cycle: %s: remove one of these references", strings.Join(cycle, " -> "))
	}
}

// references inspects an expression at path of resource idx as the
// builder's extractDependencies does, and returns the resources it
// references; ok is false when a problem was reported.
func (c *checker) references(idx int, path string, e *krocel.Expression, insp *ast.Inspector, badID map[string]bool, iterators []string) (deps, iters []string, ok bool) {
	shown := e.UserExpression()
	res, err := insp.Inspect(e.Original)
	if err != nil {
		c.add(diag.KroCEL, idx, path, syntaxMessage(shown, err))
		return nil, nil, false
	}
	ok = true
	if !c.rgd.Gates.On(string(features.CELOmitFunction)) && res.UsesOmit() {
		hint := "leave the field out, or give the resource an includeWhen, or turn the gate on in platform.kro.featureGates where the platform's kro runs with it"
		if !strings.HasPrefix(path, "template") {
			hint = "write the condition without it"
		}
		c.reportf(diag.KroCEL, idx, path, "expression %q calls omit(), which kro refuses unless its CELOmitFunction feature gate is on (it is off by default): %s (kro: omit() requires the CELOmitFunction feature gate to be enabled)", shown, hint)
		ok = false
	}
	for _, r := range res.ResourceDependencies {
		switch r.ID {
		case graph.SchemaVarName:
		case library.RuntimeVarName:
			c.reportf(diag.KroCEL, idx, path, "expression %q reads runtime, which only status.conditions may: remove it (kro: runtime is only available in status.conditions expressions)", shown)
			ok = false
		default:
			if !slices.Contains(deps, r.ID) {
				deps = append(deps, r.ID)
			}
		}
	}
	var names []string
	for _, u := range res.UnknownResources {
		switch {
		case slices.Contains(iterators, u.ID):
			if !slices.Contains(iters, u.ID) {
				iters = append(iters, u.ID)
			}
		case !slices.Contains(names, u.ID):
			names = append(names, u.ID)
			ok = false
			if !badID[u.ID] { // a refused id is reported already
				c.unknownIdent(idx, path, e, fmt.Sprintf("expression %q references unknown identifier %q", shown, u.ID), u.ID, c.identifiers(), "schema or the id of a resource: ")
			}
		}
	}
	for _, f := range res.UnknownFunctions {
		ok = false
		c.reportf(diag.KroCEL, idx, path, "expression %q calls %s, which kro's CEL environment does not have: use a function of kro's environment (CEL's standard library, its extensions, the Kubernetes libraries and kro's own) (kro: uses unknown functions: [%s])", shown, f.Name, f.Name)
	}
	return deps, iters, ok
}

// unknownIdent reports an identifier of e that names nothing, said in
// what, at its first use in e's string, with the likely intended one of
// known or else all of them (after use).
func (c *checker) unknownIdent(idx int, path string, e *krocel.Expression, what, name string, known []string, use string) {
	suggested := diag.Suggest(name, known)
	hint := "did you mean " + strconv.Quote(suggested) + "?"
	if suggested == "" {
		hint = "use " + use + strings.Join(known, ", ")
	}
	msg := fmt.Sprintf("%s: %s (kro: references unknown identifiers: [%s])", what, hint, name)
	str := exprString(e)
	if at := identOffset(str, name); at >= 0 {
		c.addAt(diag.KroCEL, idx, path, msg, str, at)
		return
	}
	c.add(diag.KroCEL, idx, path, msg)
}

// identifiers are the names an expression may use, for "did you mean".
func (c *checker) identifiers() []string {
	out := []string{graph.SchemaVarName}
	for _, r := range c.rgd.Resources {
		if r.ID != "" && !slices.Contains(out, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// anyObject types what the diagnosis could not resolve: an object with any
// fields, so expressions reading it do not repeat the reported cause.
var anyObject = &spec.Schema{
	SchemaProps:      spec.SchemaProps{Type: []string{"object"}},
	VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{krocel.XKubernetesPreserveUnknownFields: true}},
}

// typedEnv is kro's typed environment of the graph, as the builder makes
// it: each resource typed by its kind's schema, schema by the instance's
// spec and metadata.
func (c *checker) typedEnv(nodes []*node, instanceCRD *extv1.CustomResourceDefinition) (*cel.Env, *krocel.DeclTypeProvider, error) {
	schemas := map[string]*spec.Schema{}
	for _, n := range nodes {
		if !n.inGraph {
			continue
		}
		switch {
		case n.schema == nil:
			schemas[n.id] = anyObject
		case n.collection():
			// Others read a collection as a list of its objects
			// (collectNodeSchemas).
			schemas[n.id] = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: n.schema}}}
		default:
			schemas[n.id] = n.schema
		}
	}
	schemas[graph.SchemaVarName] = anyObject
	if instanceCRD != nil {
		if s, err := schemaWithoutStatus(instanceCRD); err == nil {
			schemas[graph.SchemaVarName] = s
		}
	}
	return krocel.TypedEnvironmentWithProvider(schemas)
}

// typeCheck compiles each expression of a resource in kro's typed
// environment and checks its type against its field's, as the builder's
// validateAndCompileNode does.
func (c *checker) typeCheck(n *node, env *cel.Env, tc *typeContext, insp *ast.Inspector) {
	if !n.inGraph {
		return
	}
	tmplEnv, iterOK := c.iteratorEnv(n, env)
	for _, v := range n.vars {
		if n.broken[v.path] || !iterOK {
			continue
		}
		out, ok := c.compile(n.idx, v.path, v.expr, tmplEnv)
		if !ok || n.schema == nil {
			continue
		}
		want := tc.expectedType(v.kroPath, n.schema, n.id)
		if err := validateExpressionType(out, want, v.expr.UserExpression(), n.id, v.kroPath, tc.provider); err != nil {
			c.add(diag.KroCEL, n.idx, v.path, typeMismatchMessage(v.expr, out, want, err))
		}
	}
	for _, w := range n.includeWhen {
		if !n.broken[w.path] {
			c.condition(n, w, "includeWhen", env)
		}
	}
	// A collection's readyWhen reads each object as each: one environment
	// for all its entries.
	self, readyEnv := n.id, env
	var readyErr error
	if n.collection() {
		self = graph.EachVarName
		if n.schema != nil && len(n.readyWhen) > 0 {
			readyEnv, readyErr = extendTyped(env, graph.EachVarName, n.schema)
		}
	}
	for _, w := range n.readyWhen {
		res, err := insp.Inspect(w.expr.Original)
		if err != nil {
			c.add(diag.KroCEL, n.idx, w.path, syntaxMessage(w.expr.Original, err))
			continue
		}
		if n.collection() {
			other := false
			for _, d := range res.ResourceDependencies {
				if d.ID != graph.EachVarName {
					other = true
					c.reportf(diag.KroCEL, n.idx, w.path, "readyWhen expression %q of collection %q references %q: a collection's readyWhen reads each of its objects as each, such as ${each.status.ready} (kro: references unknown identifiers: [%s])", w.expr.Original, n.id, d.ID, d.ID)
				}
			}
			if other {
				continue
			}
		}
		if readyErr != nil {
			c.reportf(diag.KroCEL, n.idx, w.path, "cannot type each for readyWhen: %v", readyErr)
			continue
		}
		if !c.restricted(n.idx, w.path, w.expr, res, []string{self}, "readyWhen") {
			continue
		}
		c.condition(n, w, "readyWhen", readyEnv)
	}
}

// iteratorEnv compiles a collection's forEach lists, each of which must
// return a list, as validateAndCompileForEach does, and returns env with
// the iterators typed by their elements; ok is false if one has no type.
func (c *checker) iteratorEnv(n *node, env *cel.Env) (*cel.Env, bool) {
	if !n.collection() {
		return env, true
	}
	var opts []cel.EnvOption
	ok := true
	for _, it := range n.iterators {
		if n.broken[it.path] {
			ok = false
			continue
		}
		out, compiled := c.compile(n.idx, it.path, it.expr, env)
		if !compiled {
			ok = false
			continue
		}
		elem, err := krocel.ListElementType(out)
		if err != nil {
			c.reportf(diag.KroForEach, n.idx, it.path, "forEach iterator %q iterates %q, which returns %s, not a list: iterate a list, such as a []string field of the spec (kro: node %q: forEach iterator %q must return a list, got %q: %v)",
				it.name, it.expr.Original, typeString(out), n.id, it.name, out.String(), err)
			ok = false
			continue
		}
		opts = append(opts, cel.Variable(it.name, elem))
	}
	if !ok {
		return env, false
	}
	extended, err := env.Extend(opts...)
	if err != nil {
		c.reportf(diag.KroForEach, n.idx, "forEach", "cannot declare the forEach iterators: %v", err)
		return env, false
	}
	return extended, true
}

// restricted checks, as the builder's inspectExpressionRestricted does,
// that an inspected expression references only allowed identifiers, no
// unknown function and no omit().
func (c *checker) restricted(idx int, path string, e *krocel.Expression, res ast.ExpressionInspection, allowed []string, where string) bool {
	expr := e.UserExpression()
	ok := true
	for _, d := range res.ResourceDependencies {
		if slices.Contains(allowed, d.ID) {
			continue
		}
		ok = false
		c.add(diag.KroCEL, idx, path, restrictedMessage(where, expr, d.ID, allowed, c.rgd.Resources, idx))
	}
	for _, u := range res.UnknownResources {
		ok = false
		c.unknownIdent(idx, path, e, fmt.Sprintf("%s expression %q references unknown identifier %q", where, expr, u.ID), u.ID, allowed, "")
	}
	for _, f := range res.UnknownFunctions {
		ok = false
		c.reportf(diag.KroCEL, idx, path, "%s expression %q calls %s, which kro's CEL environment does not have: use a function of kro's environment (kro: uses unknown functions: [%s])", where, expr, f.Name, f.Name)
	}
	if res.UsesOmit() {
		ok = false
		c.reportf(diag.KroCEL, idx, path, "%s expression %q calls omit(), which only a resource's template may use: remove it (kro: omit() can only be used in resource template expressions)", where, expr)
	}
	return ok
}

// condition compiles an includeWhen or readyWhen expression and checks it
// returns bool or optional_type(bool).
func (c *checker) condition(n *node, w exprAt, what string, env *cel.Env) {
	out, ok := c.compile(n.idx, w.path, w.expr, env)
	if !ok || conversion.IsBoolOrOptionalBool(out) {
		return
	}
	c.reportf(diag.KroCEL, n.idx, w.path, "%s expression %q returns %s, not bool: make it a condition, such as a comparison with == (kro: %s expression %q in resource %q must return bool or optional_type(bool), but returns %q)",
		what, w.expr.Original, typeString(out), what, w.expr.Original, n.id, out.String())
}

// compile parses and type-checks an expression in env and returns its
// type; each issue is a problem, placed at the ${...} that has it.
func (c *checker) compile(idx int, path string, e *krocel.Expression, env *cel.Env) (*cel.Type, bool) {
	shown := e.UserExpression()
	parsed, iss := env.Parse(e.Original)
	if iss.Err() != nil {
		c.add(diag.KroCEL, idx, path, syntaxMessage(shown, iss.Err()))
		return nil, false
	}
	checked, iss := env.Check(parsed)
	if iss.Err() != nil {
		if c.fieldProblems(idx, path, e, env) {
			return nil, false
		}
		for _, e := range iss.Errors() {
			c.reportf(diag.KroCEL, idx, path, "expression %q does not type-check: %s: %s", shown, e.Message, checkHint(e.Message))
		}
		return nil, false
	}
	return checked.OutputType(), true
}

// status checks the instance's status as buildStatusSchema and
// buildInstanceNode do, and returns its schema inferred from the
// expressions; nil with conditions, left to the builder.
func (c *checker) status(obj *v1alpha1.ResourceGraphDefinition, nodes []*node, env *cel.Env, tc *typeContext, insp *ast.Inspector) *extv1.JSONSchemaProps {
	status := map[string]any{}
	if err := yaml.UnmarshalStrict(obj.Spec.Schema.Status.Raw, &status); err != nil && len(obj.Spec.Schema.Status.Raw) > 0 {
		c.reportf(diag.KroSchema, -1, "status", "the status does not decode: %v", err)
		return nil
	}
	if _, ok := status["conditions"]; ok {
		return nil
	}
	allowed := []string{graph.SchemaVarName}
	for _, n := range nodes {
		if n.inGraph {
			allowed = append(allowed, n.id)
		}
	}
	types := map[string]*cel.Type{}
	for _, k := range slices.Sorted(maps.Keys(status)) {
		descs, plain, err := parser.ParseSchemalessResource(map[string]any{k: status[k]})
		if err != nil {
			c.add(diag.KroSchema, -1, JoinPath("status", k), nestedMessage(fmt.Sprint(status[k]), err))
			continue
		}
		for _, p := range plain {
			path := "status" + dotted(kroPathSegments(p))
			c.add(diag.KroSchema, -1, path, statusPlainMessage(valueAt(status, kroPathSegments(p)), p))
		}
		for _, d := range descs {
			path := "status" + dotted(kroPathSegments(d.Path))
			shown := d.Expression.UserExpression()
			res, err := insp.Inspect(d.Expression.Original)
			if err != nil {
				c.add(diag.KroCEL, -1, path, syntaxMessage(shown, err))
				continue
			}
			if !c.restricted(-1, path, d.Expression, res, allowed, "status") {
				continue
			}
			// restricted has refused what is not allowed.
			if len(res.ResourceDependencies) == 0 {
				c.reportf(diag.KroSchema, -1, path, "status value %q does not read a resource or schema: read the value from a resource, such as ${deployment.status.readyReplicas} (kro: instance status field must refer to a resource or schema: %s)", shown, d.Path)
				continue
			}
			if out, ok := c.compile(-1, path, d.Expression, env); ok {
				types[d.Path] = out
			}
		}
	}
	s, err := kroschema.GenerateSchemaFromCELTypes(types, tc.provider)
	if err != nil {
		c.reportf(diag.KroSchema, -1, "status", "kro cannot derive the status schema from the expressions' types: %v: change the status expressions", err)
		return nil
	}
	return s
}

// schemaWithoutStatus is the instance's schema as CEL's schema variable
// sees it: spec and metadata (ObjectMeta), no status. Ported from kro
// pkg/graph/builder.go (getSchemaWithoutStatus), unexported there.
func schemaWithoutStatus(instanceCRD *extv1.CustomResourceDefinition) (*spec.Schema, error) {
	if len(instanceCRD.Spec.Versions) != 1 || instanceCRD.Spec.Versions[0].Schema == nil {
		return nil, errors.New("the instance CRD has no single schema")
	}
	openAPISchema := instanceCRD.Spec.Versions[0].Schema.OpenAPIV3Schema.DeepCopy()
	delete(openAPISchema.Properties, "status")
	s, err := kroschema.ConvertJSONSchemaPropsToSpecSchema(openAPISchema)
	if err != nil {
		return nil, err
	}
	if s.Properties == nil {
		s.Properties = map[string]spec.Schema{}
	}
	meta := kroschema.ObjectMetaSchema
	if instanceCRD.Spec.Scope == extv1.ClusterScoped {
		meta = kroschema.NamespacelessObjectMetaSchema
	}
	s.Properties["metadata"] = meta
	return s, nil
}

// cycles returns each dependency cycle once: for every strongly connected
// group of vertices that reference each other, the shortest cycle through
// the one first in ids, in kro's form [a b a] (a depends on b).
func cycles(ids []string, deps map[string][]string) [][]string {
	reach := map[string]map[string]bool{} // the vertices each one reaches
	reaches := func(from, to string) bool {
		if reach[from] == nil {
			seen := map[string]bool{}
			stack := []string{from}
			for len(stack) > 0 {
				id := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, d := range deps[id] {
					if !seen[d] {
						seen[d] = true
						stack = append(stack, d)
					}
				}
			}
			reach[from] = seen
		}
		return reach[from][to]
	}
	var out [][]string
	var starts []string // the first vertex of each group reported
	for _, start := range ids {
		if !reaches(start, start) || slices.ContainsFunc(starts, func(s string) bool { return reaches(s, start) && reaches(start, s) }) {
			continue // on no cycle, or in a group reported already
		}
		starts = append(starts, start)
		// A breadth-first search back to start: every vertex on the way
		// is in start's group.
		prev := map[string]string{}
		queue := []string{start}
		var last string
		for last == "" {
			id := queue[0]
			queue = queue[1:]
			for _, d := range deps[id] {
				if d == start {
					last = id
					break
				}
				if _, seen := prev[d]; !seen {
					prev[d] = id
					queue = append(queue, d)
				}
			}
		}
		cycle := []string{start}
		for id := last; id != start; id = prev[id] {
			cycle = append(cycle, id)
		}
		slices.Reverse(cycle[1:])
		out = append(out, append(cycle, start))
	}
	return out
}

// extendTyped extends env with the variable name typed by schema s.
// Ported from kro pkg/graph/build_context.go (extendWithTypedVar),
// unexported there, without its cache.
func extendTyped(env *cel.Env, name string, s *spec.Schema) (*cel.Env, error) {
	declType := krocel.SchemaDeclTypeWithMetadata(&openapi.Schema{Schema: s}, false)
	if declType == nil {
		return nil, errors.New("failed to build DeclType for schema")
	}
	declType = declType.MaybeAssignTypeName(krocel.TypeNamePrefix + name)
	provider := krocel.NewDeclTypeProvider(declType)
	provider.SetRecognizeKeywordAsFieldName(true)
	wrapped, err := provider.WithTypeProvider(types.NewEmptyRegistry())
	if err != nil {
		return nil, err
	}
	return env.Extend(cel.Variable(name, declType.CelType()), cel.CustomTypeProvider(wrapped))
}
