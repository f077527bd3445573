package kro

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/proto"
)

// typeNamePrefix prefixes the CEL type names of schemas, as kro does
// ("__type_schema", "__type_lokiBucket.status"); nested types append
// ".field", list items ".@idx" and map values ".@elem".
const typeNamePrefix = "__type_"

// typeProvider is a cel-go types.Provider that exposes Schema trees as CEL
// struct types, so that the checker resolves field selections against the
// schemas and reports a missing field as "undefined field". Everything else
// (the standard and well-known types) comes from the embedded registry.
type typeProvider struct {
	*types.Registry
	structs map[string]*Schema // struct type name -> object schema
}

// newTypeProvider returns a provider with no schema types yet.
func newTypeProvider() (*typeProvider, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	return &typeProvider{Registry: reg, structs: map[string]*Schema{}}, nil
}

// celType returns the CEL type of s, naming struct types name (and their
// nested types after it) and registering them with the provider:
// an object with Properties is a struct; a map is map(string, T); an array is
// list(T); preserve-unknown, int-or-string and untyped schemas are dyn;
// number is double and integer is int.
func (p *typeProvider) celType(s *Schema, name string) *types.Type {
	switch {
	case s == nil:
		return types.DynType
	case s.IntOrString:
		return types.DynType
	case len(s.Properties) > 0 && (s.Type == "object" || s.Type == ""):
		p.structs[name] = s
		return types.NewObjectType(name)
	case s.AdditionalProperties != nil && (s.Type == "object" || s.Type == ""):
		return types.NewMapType(types.StringType, p.celType(s.AdditionalProperties, name+".@elem"))
	case s.PreserveUnknown:
		return types.DynType
	}
	switch s.Type {
	case "object":
		// No fields and no map values: a struct without fields, so that any
		// field selection is an undefined field, as in kro.
		p.structs[name] = s
		return types.NewObjectType(name)
	case "array":
		return types.NewListType(p.celType(s.Items, name+".@idx"))
	case "string":
		return types.StringType
	case "integer":
		return types.IntType
	case "number":
		return types.DoubleType
	case "boolean":
		return types.BoolType
	}
	return types.DynType
}

// FindStructType returns the type of a schema struct, or a registry type.
func (p *typeProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.structs[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

// FindStructFieldNames returns the CEL field names of a schema struct, or
// those of a registry type.
func (p *typeProvider) FindStructFieldNames(name string) ([]string, bool) {
	s, ok := p.structs[name]
	if !ok {
		return p.Registry.FindStructFieldNames(name)
	}
	var names []string
	for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
		if f, ok := celFieldName(prop); ok {
			names = append(names, f)
		}
	}
	return names, true
}

// FindStructFieldType returns the type of a field of a schema struct, or of
// a registry type. A field the schema does not declare is not found, which
// the checker reports as "undefined field".
func (p *typeProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	s, ok := p.structs[name]
	if !ok {
		return p.Registry.FindStructFieldType(name, field)
	}
	prop, fs := propertyForField(s, field)
	if fs == nil {
		return nil, false
	}
	t := p.celType(fs, name+"."+prop)
	return &types.FieldType{
		Type:    t,
		IsSet:   func(any) bool { return false },
		GetFrom: func(any) (any, error) { return nil, fmt.Errorf("schema types hold no values") },
	}, true
}

// NewValue cannot build values of schema structs: the checker never needs to.
func (p *typeProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.structs[name]; ok {
		return types.NewErr("cannot create a value of schema type %s", name)
	}
	return p.Registry.NewValue(name, fields)
}

// celReserved are CEL's reserved words. Kubernetes escapes a property with
// such a name as __name__ and kro also accepts it unescaped.
var celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
	"function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}

// celFieldEscaper escapes a property name as Kubernetes does for CEL.
var celFieldEscaper = strings.NewReplacer("__", "__underscores__", ".", "__dot__", "-", "__dash__", "/", "__slash__")

// celFieldName returns the CEL field name of a schema property, escaped the
// way Kubernetes does ("__" as "__underscores__", "." as "__dot__", "-" as
// "__dash__", "/" as "__slash__"); false when it cannot be a CEL field.
func celFieldName(prop string) (string, bool) {
	if prop == "" {
		return "", false
	}
	f := celFieldEscaper.Replace(prop)
	for i, c := range f {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return f, true
}

// propertyForField finds the property of s that the CEL field name denotes.
func propertyForField(s *Schema, field string) (string, *Schema) {
	if fs, ok := s.Properties[field]; ok {
		if f, ok := celFieldName(field); ok && f == field {
			return field, fs
		}
	}
	for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
		f, ok := celFieldName(prop)
		if !ok {
			continue
		}
		if f == field || slices.Contains(celReserved, prop) && field == "__"+prop+"__" {
			return prop, s.Properties[prop]
		}
	}
	return "", nil
}

// objectMeta is the subset of Kubernetes ObjectMeta that kro types the
// metadata of the instance (schema.metadata) and of every resource with.
func objectMeta() *Schema {
	str := func() *Schema { return &Schema{Type: "string"} }
	strMap := func() *Schema { return &Schema{Type: "object", AdditionalProperties: str()} }
	return &Schema{Type: "object", Properties: map[string]*Schema{
		"name":                       str(),
		"namespace":                  str(),
		"generateName":               str(),
		"uid":                        str(),
		"resourceVersion":            str(),
		"creationTimestamp":          str(),
		"deletionTimestamp":          str(),
		"generation":                 {Type: "integer"},
		"deletionGracePeriodSeconds": {Type: "integer"},
		"labels":                     strMap(),
		"annotations":                strMap(),
		"finalizers":                 {Type: "array", Items: str()},
		"ownerReferences": {Type: "array", Items: &Schema{Type: "object", Properties: map[string]*Schema{
			"apiVersion":         str(),
			"kind":               str(),
			"name":               str(),
			"uid":                str(),
			"controller":         {Type: "boolean"},
			"blockOwnerDeletion": {Type: "boolean"},
		}}},
	}}
}

// withMetadata returns a copy of the object schema s whose metadata is
// ObjectMeta and which has apiVersion and kind strings, as kro types a
// resource or the instance.
func withMetadata(s *Schema) *Schema {
	c := s.clone()
	if c == nil {
		c = &Schema{Type: "object"}
	}
	if c.Properties == nil {
		c.Properties = map[string]*Schema{}
	}
	c.Type = "object"
	c.Properties["metadata"] = objectMeta()
	for _, f := range []string{"apiVersion", "kind"} {
		if c.Properties[f] == nil {
			c.Properties[f] = &Schema{Type: "string"}
		}
	}
	return c
}

// newEnv returns the CEL environment of kro v0.9 as far as cel-go has it:
// the standard library, ext.Strings, ext.Lists, ext.Encoders, ext.Bindings,
// ext.TwoVarComprehensions and optional types, kro's own json, hash and
// random functions (declared for checking only), and one variable per name
// of vars.
func newEnv(p *typeProvider, vars map[string]*types.Type) (*cel.Env, error) {
	opts := append(Libraries(), Functions()...)
	opts = append(opts, cel.CustomTypeProvider(p))
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		opts = append(opts, cel.Variable(name, vars[name]))
	}
	return cel.NewEnv(opts...)
}

// ownFunctions are the functions kro v0.9 adds to CEL, with their
// signatures. platc declares them, so that expressions using them
// type-check, but does not evaluate them: a preview shows their result as
// known only in the cluster.
var ownFunctions = []ownFunction{
	{"json.unmarshal", "json.unmarshal_string", []*cel.Type{cel.StringType}, cel.DynType},
	{"json.marshal", "json.marshal_dyn", []*cel.Type{cel.DynType}, cel.StringType},
	{"hash.fnv64a", "hash.fnv64a_string", []*cel.Type{cel.StringType}, cel.BytesType},
	{"hash.sha256", "hash.sha256_string", []*cel.Type{cel.StringType}, cel.BytesType},
	{"hash.md5", "hash.md5_string", []*cel.Type{cel.StringType}, cel.BytesType},
	{"random.seededString", "random.seededString_int_string", []*cel.Type{cel.IntType, cel.StringType}, cel.StringType},
}

type ownFunction struct {
	name, overload string
	args           []*cel.Type
	result         *cel.Type
}

// Functions declares kro's own functions.
func Functions() []cel.EnvOption {
	var opts []cel.EnvOption
	for _, f := range ownFunctions {
		opts = append(opts, cel.Function(f.name, cel.Overload(f.overload, f.args, f.result)))
	}
	return opts
}

// CallsOwnFunction reports whether the checked expression e calls one of
// kro's own functions.
func CallsOwnFunction(e ast.Expr) bool {
	found := false
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() == ast.CallKind {
			name := x.AsCall().FunctionName()
			found = found || slices.ContainsFunc(ownFunctions, func(f ownFunction) bool { return f.name == name })
		}
	}))
	return found
}

// Libraries are the cel-go libraries of kro v0.9's environment: they set
// the syntax (macros such as cel.bind, optional types) and most functions.
func Libraries() []cel.EnvOption {
	return []cel.EnvOption{
		ext.Strings(),
		ext.Lists(),
		ext.Encoders(),
		ext.Bindings(),
		ext.TwoVarComprehensions(),
		cel.OptionalTypes(),
	}
}

// parseEnv parses as every environment built on Libraries does: variables
// and functions matter to checking, not to parsing.
var parseEnv = sync.OnceValues(func() (*cel.Env, error) { return cel.NewEnv(Libraries()...) })

// parses holds each distinct expression parsed in this process, by its
// source: a parse (cel-go's parser is generated by ANTLR, and slow until it
// has warmed up) costs ten times a copy of its result, and stacks and their
// instances repeat expressions. ReadParses adds those of earlier runs.
var parses sync.Map

// parsesNew says that Parse has parsed an expression ReadParses did not
// give.
var parsesNew atomic.Bool

type parsed struct {
	// expr is the parse, in the protocol buffer form that cel-go turns
	// into a new AST cheaply; nil where src does not parse.
	expr *exprpb.ParsedExpr
	iss  *cel.Issues
	// uncopied says the parse has no protocol buffer form: Parse parses
	// src again at each use.
	uncopied bool
}

// Parse parses the CEL expression src as environments built on Libraries
// do, returning an AST of the caller's own (checking rewrites it), or the
// parse errors.
func Parse(src string) (*cel.Ast, *cel.Issues) {
	p, ok := parses.Load(src)
	if !ok {
		p, _ = parses.LoadOrStore(src, parse(src))
	}
	pp := p.(*parsed)
	if pp.uncopied {
		env, _ := parseEnv() // parse built it
		return env.Parse(src)
	}
	if pp.expr == nil {
		return nil, pp.iss
	}
	return cel.ParsedExprToAst(pp.expr), pp.iss
}

func parse(src string) *parsed {
	env, err := parseEnv()
	if err != nil {
		// The libraries are cel-go's and fixed; this is a bug.
		panic(fmt.Sprintf("platc: the CEL parse environment does not build: %v", err))
	}
	ast, iss := env.Parse(src)
	if iss.Err() != nil {
		return &parsed{iss: iss}
	}
	pe, err := cel.AstToParsedExpr(ast)
	if err != nil {
		// Every AST cel-go parses converts; one that did not would be
		// parsed again at each use rather than kept.
		return &parsed{iss: iss, uncopied: true}
	}
	parsesNew.Store(true)
	return &parsed{expr: pe, iss: iss}
}

// ReadParses adds the parses WriteParses wrote (in an earlier run) to those
// Parse knows. Data that does not decode is ignored: it only costs parses.
func ReadParses(data []byte) {
	var stored map[string][]byte
	if json.Unmarshal(data, &stored) != nil {
		return
	}
	for src, b := range stored {
		pe := &exprpb.ParsedExpr{}
		if proto.Unmarshal(b, pe) != nil {
			continue
		}
		parses.LoadOrStore(src, &parsed{expr: pe})
	}
}

// WriteParses returns the expressions this process has parsed without
// error, for ReadParses in a later run, and whether any is new since
// ReadParses or the last WriteParses.
func WriteParses() ([]byte, bool) {
	stored := map[string][]byte{}
	parses.Range(func(k, v any) bool {
		if pe := v.(*parsed).expr; pe != nil {
			if b, err := (proto.MarshalOptions{Deterministic: true}).Marshal(pe); err == nil {
				stored[k.(string)] = b
			}
		}
		return true
	})
	data, err := json.Marshal(stored)
	return data, err == nil && parsesNew.Swap(false)
}

// FreeIdents returns the identifiers that e refers to from outside: not the
// variables of an enclosing comprehension (macros, cel.bind), not the
// namespace of a function such as strings.quote. Each name appears once,
// in order of first use.
func FreeIdents(env *cel.Env, e ast.Expr) []string {
	var out []string
	var walk func(e ast.Expr, bound []string)
	walk = func(e ast.Expr, bound []string) {
		switch e.Kind() {
		case ast.IdentKind:
			name := e.AsIdent()
			if slices.Contains(bound, name) || slices.Contains(out, name) {
				return
			}
			out = append(out, name)
		case ast.SelectKind:
			walk(e.AsSelect().Operand(), bound)
		case ast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				if q, ok := qualifiedName(c.Target()); !ok || !env.HasFunction(q+"."+c.FunctionName()) {
					walk(c.Target(), bound)
				}
			}
			for _, a := range c.Args() {
				walk(a, bound)
			}
		case ast.ListKind:
			for _, el := range e.AsList().Elements() {
				walk(el, bound)
			}
		case ast.MapKind:
			for _, en := range e.AsMap().Entries() {
				walk(en.AsMapEntry().Key(), bound)
				walk(en.AsMapEntry().Value(), bound)
			}
		case ast.StructKind:
			for _, f := range e.AsStruct().Fields() {
				walk(f.AsStructField().Value(), bound)
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange(), bound)
			walk(c.AccuInit(), bound)
			inner := append(slices.Clone(bound), c.IterVar(), c.AccuVar())
			if c.HasIterVar2() {
				inner = append(inner, c.IterVar2())
			}
			walk(c.LoopCondition(), inner)
			walk(c.LoopStep(), inner)
			walk(c.Result(), append(slices.Clone(bound), c.AccuVar()))
		}
	}
	walk(e, nil)
	return out
}

// qualifiedName returns "a.b.c" for the select chain a.b.c.
func qualifiedName(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		return e.AsIdent(), true
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return "", false
		}
		q, ok := qualifiedName(s.Operand())
		return q + "." + s.FieldName(), ok
	}
	return "", false
}

// typeString names a CEL type for messages: kro's names for scalars and
// lists and maps, "object" for a schema struct.
func typeString(t *types.Type) string {
	switch t.Kind() {
	case types.StructKind:
		return "object"
	case types.ListKind:
		return "list(" + typeString(t.Parameters()[0]) + ")"
	case types.MapKind:
		return "map(" + typeString(t.Parameters()[0]) + ", " + typeString(t.Parameters()[1]) + ")"
	case types.OpaqueKind:
		if inner, ok := isOptional(t); ok {
			return "optional_type(" + typeString(inner) + ")"
		}
	}
	return t.String()
}

// isOptional reports whether t is optional_type(T), and returns T.
func isOptional(t *types.Type) (*types.Type, bool) {
	if t.Kind() == types.OpaqueKind && t.TypeName() == "optional_type" && len(t.Parameters()) == 1 {
		return t.Parameters()[0], true
	}
	return nil, false
}

// compatible says why a value of CEL type out cannot go into a field of
// schema target, or "" when it can. It follows kro: dyn fits anything, kinds
// must match (an int does not go into a number field), lists and maps are
// compared element by element, and a struct fits a struct field when every
// field it has exists in the target with a compatible type.
func (p *typeProvider) compatible(out *types.Type, target *Schema) string {
	if target == nil || out.Kind() == types.DynKind {
		return ""
	}
	if target.IntOrString {
		if k := out.Kind(); k == types.IntKind || k == types.StringKind {
			return ""
		}
		return fmt.Sprintf("returns %s but the field takes an integer or a string", typeString(out))
	}
	want := p.celType(target, typeNamePrefix+"@target") // "@": no resource id can clash
	if want.Kind() == types.DynKind {
		return ""
	}
	if out.Kind() != want.Kind() {
		msg := fmt.Sprintf("returns %s but the field takes %s", typeString(out), schemaTypeString(target))
		if want.Kind() == types.StructKind && out.Kind() == types.MapKind {
			msg += ": set the object's fields one by one, each with its own expression"
		}
		if inner, ok := isOptional(out); ok && p.compatible(inner, target) == "" {
			msg += `: unwrap the optional with .orValue(...), such as .orValue("")`
		}
		return msg
	}
	switch out.Kind() {
	case types.ListKind:
		if r := p.compatible(out.Parameters()[0], target.Items); r != "" {
			return "list element " + r
		}
	case types.MapKind:
		if r := p.compatible(out.Parameters()[1], target.AdditionalProperties); r != "" {
			return "map value " + r
		}
	case types.StructKind:
		os := p.structs[out.TypeName()]
		if os == nil {
			return ""
		}
		for _, prop := range slices.Sorted(maps.Keys(os.Properties)) {
			ts := target.Properties[prop]
			if ts == nil {
				return fmt.Sprintf("returns an object with field %q, which the field does not take: set the object's fields one by one, each with its own expression", prop)
			}
			ft := p.celType(os.Properties[prop], out.TypeName()+"."+prop)
			if r := p.compatible(ft, ts); r != "" {
				return fmt.Sprintf("field %q %s", prop, r)
			}
		}
	}
	return ""
}

// schemaTypeString names the type of a schema for messages.
func schemaTypeString(s *Schema) string {
	switch {
	case s == nil:
		return "any"
	case s.IntOrString:
		return "integer or string"
	case s.Type == "array":
		return "array of " + schemaTypeString(s.Items)
	case s.AdditionalProperties != nil:
		return "map of " + schemaTypeString(s.AdditionalProperties)
	case s.Type == "object" || len(s.Properties) > 0:
		return "object"
	case s.Type == "":
		return "any"
	}
	return s.Type
}

// schemaFromCEL derives the OpenAPI schema of a status field from the CEL
// type of its expression, as kro's GenerateSchemaFromCELTypes does on a best
// effort basis: dyn and unknown types preserve unknown fields.
func (p *typeProvider) schemaFromCEL(t *types.Type) *Schema {
	if inner, ok := isOptional(t); ok {
		return p.schemaFromCEL(inner)
	}
	switch t.Kind() {
	case types.StringKind:
		return &Schema{Type: "string"}
	case types.IntKind, types.UintKind:
		return &Schema{Type: "integer"}
	case types.DoubleKind:
		return &Schema{Type: "number"}
	case types.BoolKind:
		return &Schema{Type: "boolean"}
	case types.BytesKind:
		return &Schema{Type: "string"}
	case types.TimestampKind, types.DurationKind:
		return &Schema{Type: "string"}
	case types.ListKind:
		return &Schema{Type: "array", Items: p.schemaFromCEL(t.Parameters()[0])}
	case types.MapKind:
		return &Schema{Type: "object", AdditionalProperties: p.schemaFromCEL(t.Parameters()[1])}
	case types.StructKind:
		if s := p.structs[t.TypeName()]; s != nil {
			c := s.clone()
			c.Type = "object"
			return c
		}
	}
	return &Schema{Type: "object", PreserveUnknown: true}
}
