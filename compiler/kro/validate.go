package kro

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/platc/platc/compiler/diag"
)

// objectValidator validates objects of one CRD version as the API server
// does when they are created.
type objectValidator struct {
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *schemacel.Validator
}

// objectValidator returns the validator of the kind, made once.
func (kd *kind) objectValidator() (*objectValidator, error) {
	kd.validateMu.Lock()
	defer kd.validateMu.Unlock()
	if kd.validator != nil {
		return kd.validator, nil
	}
	if kd.version.Schema == nil || kd.version.Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("the CRD of %s has no schema", kd.gvk)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := extv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(kd.version.Schema, internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	kd.validator = &objectValidator{
		structural: ss,
		schema:     sv,
		cel:        schemacel.NewValidator(ss, true, celconfig.PerCallLimit),
	}
	return kd.validator, nil
}

// objectProblem is what the API server refuses in an object: an unknown
// field (Err nil) or a field error.
type objectProblem struct {
	path string // JoinPath's form: "spec.retentionDays"
	err  *field.Error
	cel  bool // from an x-kubernetes-validations rule
}

// validate validates obj (plain data) as the API server does on create
// with strict field validation (kubectl's default): decode, prune unknown
// fields (each a problem), default, then schema, embedded metadata, list
// types and x-kubernetes-validations rules. It returns the stored object.
func (kd *kind) validate(ctx context.Context, obj map[string]any) (map[string]any, []objectProblem, error) {
	v, err := kd.objectValidator()
	if err != nil {
		return obj, nil, err
	}
	// A copy as the API server decodes it: integers are int64, other
	// numbers float64.
	data, err := json.Marshal(obj)
	if err != nil {
		return obj, nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return obj, nil, err
	}
	var probs []objectProblem
	for _, p := range structuralpruning.PruneWithOptions(u, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		probs = append(probs, objectProblem{path: fieldPath(p)})
	}
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, v.structural)
	structuraldefaulting.Default(u, v.structural)
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, v.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, u)...)
	for _, e := range errs {
		probs = append(probs, objectProblem{path: errorPath(e), err: e})
	}
	if !slices.ContainsFunc(errs, func(e *field.Error) bool {
		return e.Type == field.ErrorTypeTypeInvalid || e.Type == field.ErrorTypeRequired
	}) {
		// The API server skips the rules after a type or required error
		// (a blocking error).
		celErrs, _ := v.cel.Validate(ctx, nil, v.structural, u, nil, celconfig.RuntimeCELCostBudget)
		for _, e := range celErrs {
			probs = append(probs, objectProblem{path: fieldPath(e.Field), err: e, cel: true})
		}
	}
	return u, probs, nil
}

// errorPath is the path of a field error. A kube-openapi error that is not
// about a value (a minimum its type cannot hold) has no field ("<nil>")
// and names it at the end of its detail: "... in spec.half".
func errorPath(e *field.Error) string {
	if e.Field == "<nil>" || e.Field == "" {
		if i := strings.LastIndex(e.Detail, " in "); i >= 0 && !strings.Contains(e.Detail[i+4:], " ") {
			return fieldPath(e.Detail[i+4:])
		}
	}
	return fieldPath(e.Field)
}

// fieldPath rewrites a path of k8s.io/apimachinery's field package
// ("spec.a[0].b", "spec.labels[x.y]") or of pruning (".spec.a") as
// JoinPath writes it.
func fieldPath(p string) string {
	p = strings.TrimPrefix(p, ".")
	out := ""
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return JoinPath(out, p)
			}
			key := p[1:end]
			if _, err := strconv.Atoi(key); err == nil {
				out += p[:end+1]
			} else {
				out = JoinPath(out, key)
			}
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = JoinPath(out, p[:end])
			p = p[end:]
		}
	}
	return out
}

// fieldErrorText is a field error without its path, as the API server
// words it ("Invalid value: 0: should be greater than or equal to 1").
func fieldErrorText(e *field.Error) string {
	s := e.ErrorBody()
	// kube-openapi repeats the path in the detail: "spec.x in body should...".
	if e.Field != "" {
		s = strings.ReplaceAll(s, e.Field+" in body ", "")
	}
	return s
}

// instanceMessage places a problem of an instance and says what to
// change: at the field, or for a missing field at the object that lacks it.
func (kd *kind) instanceMessage(p objectProblem, obj map[string]any) (path, msg string) {
	parent, name := splitPath(p.path)
	value := valueAtPath(obj, p.path)
	if p.err == nil {
		var names []string
		if s := kd.structuralAt(parent); s != nil {
			names = slices.Sorted(maps.Keys(s.Properties))
		}
		if sug := diag.Suggest(name, names); sug != "" {
			return p.path, fmt.Sprintf("unknown field %q: did you mean %q? (the CRD kro generates has no field %q here)", name, sug, name)
		}
		return p.path, fmt.Sprintf("unknown field %q: the stack's spec has %s", name, diag.OrNone(names))
	}
	e := p.err
	switch {
	case strings.Contains(e.Detail, " boundary value must be of type "):
		bound := strings.ToLower(strings.TrimSuffix(e.Detail[:strings.Index(e.Detail, " value must")], " boundary"))
		return p.path, fmt.Sprintf("the CRD kro generates refuses every value of this field: its %s is not of the field's type (the API server: %s): give the stack's field a %s of its type", bound, e.Detail, bound)
	case p.cel:
		return p.path, fmt.Sprintf("%s breaks the stack's validation rule %s: change the value (the API server: %s)", valueText(value), kd.rulesAt(p.path), fieldErrorText(e))
	case e.Type == field.ErrorTypeRequired:
		return parent, fmt.Sprintf("required field %q is missing: set it", name)
	case e.Type == field.ErrorTypeTypeInvalid:
		want := strings.TrimPrefix(typeWanted().FindString(e.Detail), "must be of type ")
		return p.path, fmt.Sprintf("got %s, want %s", valueText(value), article(want))
	case e.Type == field.ErrorTypeNotSupported:
		return p.path, fmt.Sprintf("%s is not one of %s", valueText(value), strings.TrimPrefix(e.Detail, "supported values: "))
	case e.Type == field.ErrorTypeDuplicate:
		return p.path, fmt.Sprintf("%s appears twice in a list whose items must be unique (x-kubernetes-list-type: set): remove the duplicate", valueText(e.BadValue))
	}
	detail := e.Detail
	if i := strings.Index(detail, " in body "); i >= 0 {
		detail = detail[i+len(" in body "):]
	}
	return p.path, fmt.Sprintf("%s is invalid: %s: change the value (the CRD kro generates refuses it)", valueText(value), detail)
}

var typeWanted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`must be of type \w+`) })

// article names a type with its article: "an integer".
func article(t string) string {
	switch t {
	case "integer", "object":
		return "an " + t
	case "array":
		return "a list"
	case "":
		return "another type"
	}
	return "a " + t
}

// splitPath splits a JoinPath path into its parent and last field name.
func splitPath(p string) (parent, name string) {
	if strings.HasSuffix(p, `"]`) {
		if i := strings.LastIndex(p, `["`); i >= 0 {
			var n string
			if json.Unmarshal([]byte(p[i+1:len(p)-1]), &n) == nil {
				return p[:i], n
			}
		}
	}
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i], p[i:]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// pathLabels splits a JoinPath path into its labels ("[0]" for an index).
func pathLabels(p string) []string {
	var out []string
	for p != "" {
		parent, name := splitPath(p)
		out = append([]string{name}, out...)
		p = parent
	}
	return out
}

// valueAtPath is the value of obj at a JoinPath path, or nil.
func valueAtPath(obj any, p string) any {
	v := obj
	for _, l := range pathLabels(p) {
		switch x := v.(type) {
		case map[string]any:
			v = x[l]
		case []any:
			i, err := strconv.Atoi(strings.Trim(l, "[]"))
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// structuralAt is the structural schema of the kind at a JoinPath path.
func (kd *kind) structuralAt(p string) *structuralschema.Structural {
	v, err := kd.objectValidator()
	if err != nil {
		return nil
	}
	s := v.structural
	for _, l := range pathLabels(p) {
		switch {
		case s == nil:
			return nil
		case strings.HasPrefix(l, "["):
			s = s.Items
		default:
			if f, ok := s.Properties[l]; ok {
				s = &f
			} else if s.AdditionalProperties != nil {
				s = s.AdditionalProperties.Structural
			} else {
				return nil
			}
		}
	}
	return s
}

// rulesAt quotes the x-kubernetes-validations rules at a path.
func (kd *kind) rulesAt(p string) string {
	s := kd.structuralAt(p)
	if s == nil || len(s.XValidations) == 0 {
		return "(x-kubernetes-validations)"
	}
	var rules []string
	for _, r := range s.XValidations {
		rules = append(rules, strconv.Quote(r.Rule))
	}
	return strings.Join(rules, " and ")
}
