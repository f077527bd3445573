// Package kro checks a kro ResourceGraphDefinition (RGD) offline, as strictly
// as kro v0.9 does when it accepts one: the instance schema written in
// SimpleSchema, the resource ids, the ${...} expressions of the templates,
// includeWhen, readyWhen and status (parsed and type-checked with cel-go
// against the schemas of the instance and of each resource), and the
// dependency graph. It derives the instance schema, the dependencies and kro's
// topological order.
//
// It does not talk to a cluster, resolve schemas (the caller gives the
// OpenAPI schema of each resource's kind), evaluate expressions, render YAML,
// or support forEach collections and externalRef resources. CEL functions
// that cel-go does not have (the Kubernetes URL, regex, quantity, IP and CIDR
// libraries, kro's index-mutation lists) are unknown here.
package kro

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/platc/platc/compiler/diag"
)

// Resource is one resource of an RGD.
type Resource struct {
	ID          string
	Template    map[string]any // apiVersion, kind, metadata, spec...; any string may hold ${...}
	IncludeWhen []string
	ReadyWhen   []string
	Schema      *Schema // the OpenAPI schema of the template's kind (status included), from the caller
}

// RGD is the part of a ResourceGraphDefinition's spec that Check reads.
type RGD struct {
	APIVersion string         // spec.schema.apiVersion, e.g. v1alpha1
	Kind       string         // spec.schema.kind
	Group      string         // spec.schema.group ("" means kro.run)
	Spec       map[string]any // spec.schema.spec, SimpleSchema tree
	Types      map[string]any // spec.schema.types
	Status     map[string]any // spec.schema.status, tree whose leaves are "${...}" strings
	Resources  []Resource
}

// Problem is one finding. Resource is the id ("" for the schema or status); Path says where inside: "template.spec.sources[0].helm.valuesObject.x", "includeWhen[0]", "readyWhen[1]", "id", "status.lokiEndpoint", "spec.loki.enabled", "kind", "apiVersion".
type Problem struct {
	Resource, Path, Msg string
}

// Result is what checking derives: the instance schema, the dependencies of each resource and a topological order.
type Result struct {
	Instance *Schema             // the generated instance schema: spec from SimpleSchema, status typed from the CEL output types
	Deps     map[string][]string // resource id -> ids it references (sorted)
	Order    []string            // topological order (kro's: declaration order within each layer)
}

// The patterns kro v0.9 and its CRD check names against.
var (
	kindRe    = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]{0,62}$`)
	versionRe = regexp.MustCompile(`^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$`)
	idRe      = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	celIdent  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	dnsLabel  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// schemaVar is the CEL variable of the instance.
const schemaVar = "schema"

// reservedIDs are the words kro v0.9 does not allow as resource ids: its own
// keywords ("graphengine" is reserved only from v0.10) and CEL's reserved words.
var reservedIDs = append([]string{"apiVersion", "context", "dependency", "dependencies", "each", "externalRef",
	"externalReference", "externalRefs", "externalReferences", "graph", "instance", "item", "items", "kind",
	"kro", "metadata", "namespace", "object", "resource", "resourcegraphdefinition", "resourceGraphDefinition",
	"resources", "root", "runtime", "schema", "self", "serviceAccountName", "spec", "status", "this",
	"variables", "vars", "version"}, celReserved...)

// reservedStatus are the status fields kro sets itself.
var reservedStatus = []string{"conditions", "state"}

// Check checks rgd the way kro v0.9 does when it accepts an RGD, and returns every problem found (not just the first), sorted by resource order then path.
func Check(rgd *RGD) (*Result, []Problem) {
	c := &checker{rgd: rgd, deps: map[string]map[string]bool{}, first: map[string]int{}}
	c.checkMeta()
	spec, probs := ParseSimpleSchema(rgd.Spec, rgd.Types)
	for _, p := range probs {
		c.add(-1, p)
	}
	c.checkIDs()
	if err := c.buildEnv(spec); err != nil {
		c.errorf(-1, "", "cannot build the CEL environment: %v", err)
		return &Result{Instance: instanceSchema(spec, nil)}, c.sorted()
	}
	for i := range rgd.Resources {
		c.checkResource(i)
	}
	status := c.checkStatus()
	res := &Result{Instance: instanceSchema(spec, status)}
	res.Deps, res.Order = c.graph()
	return res, c.sorted()
}

// instanceSchema is the schema of the instance's CRD: apiVersion, kind,
// metadata, spec and (when given) status.
func instanceSchema(spec, status *Schema) *Schema {
	s := &Schema{Type: "object", Properties: map[string]*Schema{
		"apiVersion": {Type: "string"},
		"kind":       {Type: "string"},
		"metadata":   {Type: "object"},
		"spec":       spec,
	}}
	if status != nil {
		s.Properties["status"] = status
	}
	return s
}

// checker holds the state of one Check.
type checker struct {
	rgd   *RGD
	probs []indexed
	first map[string]int // resource id -> index of its first declaration
	known map[string]int // ids declared as CEL variables -> index
	prov  *typeProvider
	env   *cel.Env
	deps  map[string]map[string]bool
	self  map[string]bool // resources that reference themselves
}

// indexed is a problem with the index of its resource, for sorting.
type indexed struct {
	idx int // resource index, -1 for the schema and status
	Problem
}

// add records a problem of resource idx (-1: the schema or status).
func (c *checker) add(idx int, p Problem) {
	c.probs = append(c.probs, indexed{idx, p})
}

// errorf records a problem of resource idx (-1: the schema or status) at path.
func (c *checker) errorf(idx int, path, format string, args ...any) {
	res := ""
	if idx >= 0 {
		res = c.rgd.Resources[idx].ID
	}
	c.add(idx, Problem{Resource: res, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// sorted returns the problems in resource order, then by path and message,
// without duplicates.
func (c *checker) sorted() []Problem {
	slices.SortStableFunc(c.probs, func(a, b indexed) int {
		return cmp.Or(cmp.Compare(a.idx, b.idx), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
	})
	var out []Problem
	for i, p := range c.probs {
		if i > 0 && p == c.probs[i-1] {
			continue
		}
		out = append(out, p.Problem)
	}
	return out
}

// checkMeta checks spec.schema's kind, apiVersion and group.
func (c *checker) checkMeta() {
	r := c.rgd
	switch {
	case r.Kind == "":
		c.errorf(-1, "kind", "kind is required: set an UpperCamelCase kind, such as WebApplication")
	case !kindRe.MatchString(r.Kind):
		c.errorf(-1, "kind", "kind %q is not a valid kro kind: use UpperCamelCase of 1 to 63 letters and digits%s (kro: kind '%s' is not a valid KRO kind name: must be UpperCamelCase)",
			r.Kind, suggest(camel(r.Kind, true), kindRe), r.Kind)
	}
	switch {
	case r.APIVersion == "":
		c.errorf(-1, "apiVersion", "apiVersion is required: set a version such as v1alpha1")
	case !versionRe.MatchString(r.APIVersion):
		hint := "use a Kubernetes version such as v1alpha1, v1beta1 or v1"
		if g, v, ok := strings.Cut(r.APIVersion, "/"); ok && versionRe.MatchString(v) {
			hint = fmt.Sprintf("write only the version, %q, and put the group %q in group", v, g)
		}
		c.errorf(-1, "apiVersion", "apiVersion %q is not a valid Kubernetes version: %s (kro: version %s is not a valid Kubernetes version)", r.APIVersion, hint, r.APIVersion)
	}
	if r.Group != "" && !isDNSSubdomain(r.Group) {
		c.errorf(-1, "group", "group %q is not a DNS subdomain: use lower-case labels of letters, digits and '-' joined by dots, such as platform.example.com", r.Group)
	}
}

// isDNSSubdomain reports whether s is an RFC 1123 DNS subdomain.
func isDNSSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for l := range strings.SplitSeq(s, ".") {
		if len(l) > 63 || !dnsLabel.MatchString(l) {
			return false
		}
	}
	return true
}

// camel turns s into lowerCamelCase (or UpperCamelCase): "my_db" -> "myDb".
func camel(s string, upper bool) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var b strings.Builder
	for i, p := range parts {
		rs := []rune(p)
		if i == 0 && !upper {
			rs[0] = unicode.ToLower(rs[0])
		} else {
			rs[0] = unicode.ToUpper(rs[0])
		}
		b.WriteString(string(rs))
	}
	return b.String()
}

// suggest returns `, such as "x"` when x is valid, else "".
func suggest(x string, re *regexp.Regexp) string {
	if x == "" || !re.MatchString(x) {
		return ""
	}
	return fmt.Sprintf(", such as %q", x)
}

// checkIDs checks each resource id in kro's order: reserved word, then
// lowerCamelCase, then uniqueness; and decides which ids are CEL variables.
func (c *checker) checkIDs() {
	c.known = map[string]int{}
	for i, r := range c.rgd.Resources {
		switch {
		case r.ID == "":
			c.errorf(i, "id", "id is required: give the resource a lowerCamelCase id, such as database")
		case slices.Contains(reservedIDs, r.ID):
			c.errorf(i, "id", "id %q is a reserved word in kro: choose another lowerCamelCase id (kro: id %s is a reserved keyword in KRO)", r.ID, r.ID)
		case !idRe.MatchString(r.ID):
			c.errorf(i, "id", "id %q is not a valid kro resource id: use lowerCamelCase%s", r.ID, suggest(camel(r.ID, false), idRe))
		}
		if j, dup := c.first[r.ID]; dup {
			if r.ID != "" {
				c.errorf(i, "id", "id %q is already the id of resources[%d]: give each resource its own id (kro: found duplicate resource IDs %s)", r.ID, j, r.ID)
			}
			continue
		}
		c.first[r.ID] = i
		if celIdent.MatchString(r.ID) && !slices.Contains(reservedIDs, r.ID) {
			c.known[r.ID] = i
		}
	}
}

// buildEnv declares schema (the instance without status, as in kro v0.9)
// and every known resource id.
func (c *checker) buildEnv(spec *Schema) error {
	p, err := newTypeProvider()
	if err != nil {
		return err
	}
	c.prov = p
	vars := map[string]*types.Type{
		schemaVar: p.celType(withMetadata(instanceSchema(spec, nil)), typeNamePrefix+schemaVar),
	}
	for id, i := range c.known {
		r := c.rgd.Resources[i]
		if r.Schema == nil {
			vars[id] = types.DynType
			continue
		}
		vars[id] = p.celType(withMetadata(r.Schema), typeNamePrefix+id)
	}
	c.env, err = newEnv(p, vars)
	return err
}

// use says where an expression sits, which decides what it may reference.
type use int

// Where an expression can sit.
const (
	inTemplate use = iota
	inIncludeWhen
	inReadyWhen
	inStatus
)

// expr parses and type-checks the CEL expression src found at idx/path. It
// returns its type and the resource ids it references; ok is false when a
// problem was reported.
func (c *checker) expr(idx int, path string, u use, src string) (t *types.Type, refs []string, ok bool) {
	parsed, iss := Parse(src)
	if iss.Err() != nil {
		for _, e := range iss.Errors() {
			c.errorf(idx, path, "expression %q has a CEL syntax error at column %d: %s: fix the syntax", src, e.Location.Column()+1, e.Message)
		}
		return nil, nil, false
	}
	self := ""
	if idx >= 0 {
		self = c.rgd.Resources[idx].ID
	}
	ok = true
	for _, name := range FreeIdents(c.env, parsed.NativeRep().Expr()) {
		_, isRes := c.known[name]
		switch {
		case name == schemaVar && (u == inReadyWhen || u == inStatus):
			ok = false
			if u == inStatus {
				c.errorf(idx, path, "status expression %q references schema: status may reference only resources, so read the value from a resource (kro: references unknown identifiers: [schema])", src)
			} else {
				c.errorf(idx, path, "readyWhen expression %q references schema: readyWhen may reference only its own resource, %q (kro: references unknown identifiers: [schema])", src, self)
			}
		case name == schemaVar:
		case isRes && u == inReadyWhen && name != self:
			ok = false
			c.errorf(idx, path, "readyWhen expression %q references %q: readyWhen may reference only its own resource, %q; check %q in its own readyWhen instead (kro: references unknown identifiers: [%s])", src, name, self, name, name)
		case isRes && name == self && (u == inTemplate || u == inIncludeWhen):
			c.errorf(idx, path, "expression %q references its own resource %q: a resource cannot depend on itself; take the value from schema or another resource (kro: self references are not allowed)", src, name)
			if c.self == nil {
				c.self = map[string]bool{}
			}
			c.self[name] = true
		case isRes:
			refs = append(refs, name)
		case c.isTypeName(name):
		default:
			ok = false
			allowed := "schema or the id of a resource"
			if u == inStatus {
				allowed = "the id of a resource"
			} else if u == inReadyWhen {
				allowed = fmt.Sprintf("the resource's own id, %q", self)
			}
			c.errorf(idx, path, "expression %q references unknown identifier %q%s: use %s (kro: references unknown identifiers: [%s])",
				src, name, diag.DidYouMean(name, c.identifiers()), allowed, name)
		}
	}
	if !ok {
		return nil, refs, false
	}
	checked, iss := c.env.Check(parsed)
	if iss.Err() != nil {
		for _, e := range iss.Errors() {
			c.errorf(idx, path, "expression %q does not type-check: %s: %s", src, e.Message, checkHint(e.Message))
		}
		return nil, refs, false
	}
	return checked.OutputType(), refs, true
}

// isTypeName reports whether name is a CEL type name, such as string.
func (c *checker) isTypeName(name string) bool {
	_, ok := c.prov.FindIdent(name)
	return ok
}

// identifiers are the names an expression may use, for "did you mean".
func (c *checker) identifiers() []string {
	return append([]string{schemaVar}, slices.Sorted(maps.Keys(c.known))...)
}

// checkHint says what to do about a cel-go type-check error.
func checkHint(msg string) string {
	switch {
	case strings.Contains(msg, "undefined field"):
		return "use a field that the schema declares"
	case strings.Contains(msg, "undeclared reference"):
		return "use a declared function or variable"
	case strings.Contains(msg, "no matching overload"):
		return "use operands of the types that the function or operator takes"
	}
	return "fix the expression"
}

// addDeps records that resource idx references refs.
func (c *checker) addDeps(idx int, refs []string) {
	id := c.rgd.Resources[idx].ID
	if _, ok := c.known[id]; !ok || c.first[id] != idx {
		return // a resource with a bad or duplicate id is not part of the graph
	}
	if c.deps[id] == nil {
		c.deps[id] = map[string]bool{}
	}
	for _, r := range refs {
		c.deps[id][r] = true
	}
}

// checkResource checks one resource: its template against its schema, then
// includeWhen and readyWhen.
func (c *checker) checkResource(i int) {
	r := c.rgd.Resources[i]
	if r.Template == nil {
		c.errorf(i, "template", "template is required: write the Kubernetes object the resource creates")
	} else {
		for _, f := range []string{"apiVersion", "kind"} {
			v, has := r.Template[f]
			s, isStr := v.(string)
			switch {
			case !has:
				c.errorf(i, "template."+f, "template has no %s: set it (kro: %s field not found)", f, f)
			case !isStr || s == "":
				c.errorf(i, "template."+f, "template %s must be a non-empty string: set it", f)
			case strings.Contains(s, "${"):
				c.errorf(i, "template."+f, "template %s %q holds an expression: write it literally, kro reads it before evaluating expressions", f, s)
			}
		}
		if m, has := r.Template["metadata"]; !has {
			c.errorf(i, "template.metadata", "template has no metadata: set metadata, with at least a name (kro: metadata field not found)")
		} else if _, ok := m.(map[string]any); !ok {
			c.errorf(i, "template.metadata", "template metadata must be a map: set metadata.name and the like (kro: metadata field is not a map)")
		}
		var s *Schema
		if r.Schema == nil {
			kind, _ := r.Template["kind"].(string)
			apiVersion, _ := r.Template["apiVersion"].(string)
			c.errorf(i, "template.kind", "no schema is known for %s %s: give the schema of the kind so that the template can be checked", apiVersion, kind)
		} else {
			s = withMetadata(r.Schema)
		}
		c.walk(i, r.Template, s, "template")
	}
	for j, w := range r.IncludeWhen {
		c.condition(i, fmt.Sprintf("includeWhen[%d]", j), inIncludeWhen, w)
	}
	for j, w := range r.ReadyWhen {
		c.condition(i, fmt.Sprintf("readyWhen[%d]", j), inReadyWhen, w)
	}
}

// condition checks an includeWhen or readyWhen entry: one standalone
// expression returning bool or optional_type(bool).
func (c *checker) condition(i int, path string, u use, src string) {
	what := "includeWhen"
	if u == inReadyWhen {
		what = "readyWhen"
	}
	segs, err := Scan(src)
	if err != nil {
		c.nested(i, path, src)
		return
	}
	if !IsStandalone(segs) {
		c.errorf(i, path, "%s entry %q is not one standalone expression: write the whole entry as a single ${...}, with nothing around it (kro: only standalone expressions are allowed)", what, src)
		return
	}
	e := segs[0].Text
	t, refs, ok := c.expr(i, path, u, e)
	if u == inIncludeWhen {
		c.addDeps(i, refs)
	}
	if !ok {
		return
	}
	if types.BoolType.IsAssignableType(t) || types.NewOptionalType(types.BoolType).IsAssignableType(t) {
		return
	}
	c.errorf(i, path, "%s expression %q returns %s, not bool: make it a condition, such as a comparison with == (kro: %s expression %q in resource %q must return bool or optional_type(bool), but returns %q)",
		what, e, typeString(t), what, e, c.rgd.Resources[i].ID, t.String())
}

// nested reports a "${" nested in an expression outside a string literal.
func (c *checker) nested(i int, path, src string) {
	c.errorf(i, path, "%q has a \"${\" inside an expression, outside a string literal: remove it or quote it, as in ${\"${VAR}\"} (kro: nested expressions are not allowed unless inside string literals)", src)
}

// expectedTypes lists the value types a field of schema s takes, as kro
// does; "any" means the field takes anything.
func expectedTypes(s *Schema) []string {
	switch {
	case s == nil || s.PreserveUnknown:
		return []string{"any"}
	case s.IntOrString:
		return []string{"string", "integer"}
	case s.Type != "":
		return []string{s.Type}
	case len(s.Properties) > 0 || s.AdditionalProperties != nil:
		return []string{"object"}
	}
	return []string{"any"}
}

// takes reports whether a field of the expected types exp takes values of type t.
func takes(exp []string, t string) bool {
	return slices.Contains(exp, t) || slices.Contains(exp, "any")
}

// JoinPath appends a field to a path of kro's (a Problem's Path), as kro
// writes it: ["a.b"] for a name with a dot.
func JoinPath(path, field string) string {
	if field == "" || strings.ContainsAny(field, ".[]\"") {
		return path + "[" + strconv.Quote(field) + "]"
	}
	if path == "" {
		return field
	}
	return path + "." + field
}

// walk checks the template value v against schema s (nil: any). Under
// x-kubernetes-preserve-unknown-fields nothing is checked but expressions.
func (c *checker) walk(i int, v any, s *Schema, path string) {
	exp := expectedTypes(s)
	switch v := v.(type) {
	case map[string]any:
		if !takes(exp, "object") {
			c.static(i, path, exp, v)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			var fs *Schema
			if !slices.Contains(exp, "any") {
				fs = s.Properties[k]
				if fs == nil {
					fs = s.AdditionalProperties
				}
				if fs == nil {
					kind, _ := c.rgd.Resources[i].Template["kind"].(string)
					c.errorf(i, JoinPath(path, k), "field %q is not in the schema of %s%s: remove it or fix its name (kro: schema not found for field %s)",
						k, kind, diag.DidYouMean(k, slices.Sorted(maps.Keys(s.Properties))), k)
					continue
				}
			}
			c.walk(i, v[k], fs, JoinPath(path, k))
		}
	case []any:
		if !takes(exp, "array") {
			c.static(i, path, exp, v)
			return
		}
		var items *Schema
		if !slices.Contains(exp, "any") {
			items = s.Items
		}
		for j, e := range v {
			c.walk(i, e, items, fmt.Sprintf("%s[%d]", path, j))
		}
	case string:
		if !slices.Contains(exp, "any") {
			c.str(i, path, v, s, exp)
		} else {
			c.str(i, path, v, nil, exp)
		}
	case nil:
	default:
		if slices.Contains(exp, "any") {
			return
		}
		_, isInt := asInt(v)
		_, isNum := asFloat(v)
		_, isBool := v.(bool)
		if isInt && slices.Contains(exp, "integer") || isNum && slices.Contains(exp, "number") || isBool && slices.Contains(exp, "boolean") {
			return
		}
		c.static(i, path, exp, v)
	}
}

// static reports a static value whose type the field does not take.
func (c *checker) static(i int, path string, exp []string, v any) {
	c.errorf(i, path, "value %s does not fit the field, which takes %s: change the value (kro: expected %s type for path %s, got %s)",
		short(valueKind(v)), strings.Join(exp, " or "), strings.Join(exp, " or "), strings.TrimPrefix(path, "template."), goKind(v))
}

// short cuts a long value for a message.
func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// str checks a string value of a template (or status, with idx -1): a
// static string, a standalone expression typed against target (nil: any),
// or a string template whose expressions must all return strings.
func (c *checker) str(i int, path, v string, target *Schema, exp []string) {
	segs, err := Scan(v)
	if err != nil {
		c.nested(i, path, v)
		return
	}
	if IsStandalone(segs) {
		e := segs[0].Text
		t, refs, ok := c.expr(i, path, inTemplate, e)
		c.addDeps(i, refs)
		if !ok || target == nil {
			return
		}
		if r := c.prov.compatible(t, target); r != "" {
			if !strings.Contains(r, ": ") {
				r += ": make it return " + schemaTypeString(target)
			}
			c.errorf(i, path, "expression %q %s (kro: type mismatch at path %q: expression %q returns type %q but expected %q)",
				e, r, strings.TrimPrefix(path, "template."), e, t.String(), schemaTypeString(target))
		}
		return
	}
	hasExpr := slices.ContainsFunc(segs, func(s Segment) bool { return s.Expr })
	if !takes(exp, "string") {
		if hasExpr {
			c.errorf(i, path, "%q is a string template, but the field takes %s: write the whole value as one ${...} expression (kro: expected %s type for path %s, got string)",
				v, strings.Join(exp, " or "), strings.Join(exp, " or "), strings.TrimPrefix(path, "template."))
		} else {
			c.static(i, path, exp, v)
		}
		return
	}
	for _, s := range segs {
		if !s.Expr {
			continue
		}
		t, refs, ok := c.expr(i, path, inTemplate, s.Text)
		c.addDeps(i, refs)
		if ok {
			c.stringPart(i, path, s.Text, t)
		}
	}
}

// stringPart reports an expression of a string template that does not return a string.
func (c *checker) stringPart(i int, path, e string, t *types.Type) {
	if k := t.Kind(); k != types.StringKind && k != types.DynKind {
		c.errorf(i, path, "expression %q in a string template returns %s: every expression in a string template must return a string; wrap it in string(...) or write it as the whole value", e, typeString(t))
	}
}

// checkStatus checks spec.schema.status and derives its schema.
func (c *checker) checkStatus() *Schema {
	s := &Schema{Type: "object", Properties: map[string]*Schema{}}
	for _, k := range slices.Sorted(maps.Keys(c.rgd.Status)) {
		path := JoinPath("status", k)
		if slices.Contains(reservedStatus, k) {
			c.errorf(-1, path, "status field %q is reserved: kro sets status.%s itself; rename the field", k, k)
			continue
		}
		s.Properties[k] = c.statusValue(c.rgd.Status[k], path)
	}
	return s
}

// statusValue checks a value of the status tree at path and derives its schema.
func (c *checker) statusValue(v any, path string) *Schema {
	switch v := v.(type) {
	case map[string]any:
		s := &Schema{Type: "object", Properties: map[string]*Schema{}}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			s.Properties[k] = c.statusValue(v[k], JoinPath(path, k))
		}
		return s
	case []any:
		s := &Schema{Type: "array", Items: &Schema{Type: "object", PreserveUnknown: true}}
		for j, e := range v {
			item := c.statusValue(e, fmt.Sprintf("%s[%d]", path, j))
			if j == 0 {
				s.Items = item
			}
		}
		return s
	case string:
		return c.statusString(v, path)
	}
	c.errorf(-1, path, "status value %s is not an expression: write a ${...} expression that reads a resource (kro: status fields without expressions are not supported)", short(valueKind(v)))
	return &Schema{Type: "object", PreserveUnknown: true}
}

// statusString checks a status leaf: it must hold an expression referencing
// at least one resource and nothing else; its schema comes from the
// expression's CEL type (string for a string template).
func (c *checker) statusString(v, path string) *Schema {
	unknown := &Schema{Type: "object", PreserveUnknown: true}
	segs, err := Scan(v)
	if err != nil {
		c.nested(-1, path, v)
		return unknown
	}
	var exprs []Segment
	for _, s := range segs {
		if s.Expr {
			exprs = append(exprs, s)
		}
	}
	if len(exprs) == 0 {
		c.errorf(-1, path, "status value %q has no expression: write a ${...} expression that reads a resource, or remove the field (kro: status fields without expressions are not supported)", v)
		return unknown
	}
	var all []string
	out := unknown
	clean := true
	for _, s := range exprs {
		t, refs, ok := c.expr(-1, path, inStatus, s.Text)
		all = append(all, refs...)
		if !ok {
			clean = false
			continue
		}
		if IsStandalone(segs) {
			out = c.prov.schemaFromCEL(t)
		} else {
			c.stringPart(-1, path, s.Text, t)
			out = &Schema{Type: "string"}
		}
	}
	if clean && len(all) == 0 {
		c.errorf(-1, path, "status value %q does not refer to a resource: read the value from a resource, such as ${deployment.status.readyReplicas} (kro: instance status field must refer to a resource)", v)
	}
	return out
}
