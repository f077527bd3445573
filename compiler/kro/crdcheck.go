package kro

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/platc/platc/compiler/diag"
)

// crdChecks checks the generated CRD as kro's client and the API server
// do on creation: it must encode as JSON, pass new-CRD validation, and not
// take the name of a CRD of Kinds (kro will not update a CRD it does not
// own) or names its group already serves.
func (c *checker) crdChecks(crd *extv1.CustomResourceDefinition) {
	crd = c.defaults(crd)
	// The API server validates the CRD as it decodes it from kro's JSON.
	crd, err := decodeCRD(crd)
	if err != nil {
		c.reportf(diag.KroCRD, -1, "spec", "kro's CRD does not encode as JSON: %v: change the SimpleSchema", err)
		return
	}
	internal := &apiextensions.CustomResourceDefinition{}
	if err := extv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		c.reportf(diag.KroCRD, -1, "", "kro's CRD does not convert: %v", err)
		return
	}
	errs := validateCRD(context.Background(), internal)
	// The API server compiles no validation rule of a schema whose
	// defaults it refuses: once the defaults are fixed, it would refuse
	// the rules next. Both are said at once.
	if fixed := withoutDefaultsAt(internal, errs); fixed != nil {
		for _, e := range validateCRD(context.Background(), fixed) {
			if !slices.ContainsFunc(errs, func(x *field.Error) bool { return x.Field == e.Field && x.Detail == e.Detail }) {
				errs = append(errs, e)
			}
		}
	}
	// One problem is said per field, the cause first: a rule that reads
	// oldSelf where the API server cannot correlate it (immutable=true in
	// a list's items) costs too much there too, and goes with the marker.
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return errorRank(a) - errorRank(b)
	})
	ruleCost := slices.ContainsFunc(errs, func(e *field.Error) bool { return strings.Contains(e.Detail, "estimated rule cost exceeds") })
	for _, e := range errs {
		if ruleCost && strings.Contains(e.Detail, "estimated rule cost total") {
			continue // the expensive rule, reported, is the cause
		}
		path, msg := crdProblem(e, c.rgd, internal)
		if !c.has(-1, path) {
			c.add(diag.KroCRD, -1, path, msg)
		}
	}
	c.nameConflicts(crd)
}

// errorRank orders the API server's errors of one field: causes first.
func errorRank(e *field.Error) int {
	if strings.Contains(e.Detail, "oldSelf cannot be used") {
		return 0
	}
	return 1
}

// defaults reports each string default kro writes unescaped, as "%s": a
// quote makes the CRD's JSON unparsable, so kro cannot send it; a
// backslash starts a JSON escape, so the API server stores another default
// (a warning: both accept it). It returns the CRD without the unparsable
// defaults, for the checks that follow.
func (c *checker) defaults(crd *extv1.CustomResourceDefinition) *extv1.CustomResourceDefinition {
	crd = crd.DeepCopy()
	var walk func(s *extv1.JSONSchemaProps, path string)
	walk = func(s *extv1.JSONSchemaProps, path string) {
		if s == nil {
			return
		}
		if s.Default != nil && s.Type == "string" && len(s.Default.Raw) >= 2 {
			raw := s.Default.Raw
			written := string(raw[1 : len(raw)-1])
			var got string
			if err := json.Unmarshal(raw, &got); err != nil {
				c.reportf(diag.KroCRD, -1, path, "default `%s` holds a quote or a backslash: kro writes a string default into its CRD between quotes without escaping it, so the CRD is not JSON and never reaches the API server; remove them from the default (kro's CRD: %v)", written, err)
				s.Default = nil
			} else if got != written {
				i := strings.IndexByte(written, '\\')
				esc := written[i:min(i+2, len(written))]
				c.reportf(diag.KroDefault, -1, path, "default `%s` holds a backslash: kro writes a string default into its CRD between quotes without escaping it, so the API server reads `%s` as a JSON escape%s and stores another default; remove the backslash from the default", written, esc, jsonEscapes[esc])
			}
		}
		if s.Type == "integer" {
			// kube-openapi checks that a bound fits the field's type
			// only when it validates a value (IsValueValidAgainstRange).
			for _, b := range []struct {
				name, upstream string
				value          *float64
				round          func(float64) float64
			}{{"minimum", "Minimum", s.Minimum, math.Ceil}, {"maximum", "Maximum", s.Maximum, math.Floor}} {
				if v := b.value; v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) && *v != math.Trunc(*v) {
					c.reportf(diag.KroDefault, -1, path, "%s=%v is not an integer: kro and the API server accept it in the CRD, but the API server refuses every value of this integer field (%s boundary value must be of type integer): write an integer, such as %s=%v", b.name, *b.value, b.upstream, b.name, b.round(*b.value))
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[k]
			walk(&p, JoinPath(path, k))
			s.Properties[k] = p
		}
		if s.Items != nil {
			walk(s.Items.Schema, path)
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema, path)
		}
	}
	if v := crd.Spec.Versions; len(v) > 0 && v[0].Schema != nil && v[0].Schema.OpenAPIV3Schema != nil {
		spec := v[0].Schema.OpenAPIV3Schema.Properties["spec"]
		walk(&spec, "spec")
		v[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	return crd
}

// decodeCRD is crd as the API server receives it: JSON-encoded, as kro's
// client sends it, then decoded (some schemas only apply once decoded).
func decodeCRD(crd *extv1.CustomResourceDefinition) (*extv1.CustomResourceDefinition, error) {
	c := crd.DeepCopy()
	c.APIVersion, c.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	return fromJSON[extv1.CustomResourceDefinition](c)
}

// fromJSON is v (plain data or an API type) encoded as JSON and decoded
// as T.
func fromJSON[T any](v any) (*T, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := new(T)
	return out, json.Unmarshal(data, out)
}

// jsonEscapes name what a JSON escape stands for.
var jsonEscapes = map[string]string{`\t`: " (a tab)", `\n`: " (a new line)", `\r`: " (a carriage return)", `\b`: " (a backspace)", `\f`: " (a form feed)", `\/`: " (a slash)", `\u`: " (a character by its code)"}

// nameConflicts reports a CRD name that a CRD of Kinds already has, and
// names (plural, singular, kind, list kind) another CRD of the group
// serves, which the API server's naming controller does not accept.
func (c *checker) nameConflicts(crd *extv1.CustomResourceDefinition) {
	crds := c.kinds.loaded().crds
	if i := slices.IndexFunc(crds, func(x *extv1.CustomResourceDefinition) bool { return x.Name == crd.Name }); i >= 0 {
		c.reportf(diag.KroCRD, -1, "kind", "the CRD of kind %s would be %s, which is the CRD of %s already: kro does not update a CRD it does not own; choose another kind or group (kro: failed to update CRD %s: CRD already exists and is not owned by KRO)",
			crd.Spec.Names.Kind, crd.Name, crds[i].Spec.Names.Kind, crd.Name)
		return
	}
	n := crd.Spec.Names
	for _, other := range crds {
		if !strings.EqualFold(other.Spec.Group, crd.Spec.Group) {
			continue
		}
		on := other.Spec.Names
		taken := map[string]bool{on.Plural: true, on.Singular: true, on.Kind: true, on.ListKind: true}
		for _, s := range on.ShortNames {
			taken[s] = true
		}
		for _, mine := range []struct{ what, name string }{{"plural", n.Plural}, {"singular", n.Singular}, {"kind", n.Kind}, {"listKind", n.ListKind}} {
			if mine.name != "" && taken[mine.name] {
				c.reportf(diag.KroCRD, -1, "kind", "the CRD of kind %s would serve %s %q, which CRD %s of group %s serves already: the API server does not accept the names of the second CRD; choose another kind or group",
					n.Kind, mine.what, mine.name, other.Name, crd.Spec.Group)
				return
			}
		}
	}
}

// crdProblem places an error of the CRD's validation: at the kind, group
// or version, or at the spec field or status field of the schema.
func crdProblem(e *field.Error, rgd *RGD, internal *apiextensions.CustomResourceDefinition) (path, msg string) {
	f := e.Field
	text := e.Error()
	switch {
	case strings.HasPrefix(f, "spec.names"):
		return "kind", fmt.Sprintf("kind %q makes CRD names the API server refuses: use a shorter kind, whose plural in lower case is a DNS label of at most 63 characters (the API server: %s)", rgd.Kind, text)
	case f == "metadata.name":
		return "kind", fmt.Sprintf("kind %q and group %q make a CRD name the API server refuses: use a shorter kind or group, so that plural.group is a DNS subdomain of at most 253 characters (the API server: %s)", rgd.Kind, rgd.Group, text)
	case f == "spec.group":
		group := cmp.Or(rgd.Group, "kro.run")
		if strings.Contains(text, "at least one dot") {
			return "group", fmt.Sprintf("group %q has no dot: the API server requires a CRD's group to be a domain, such as platform.example.com (the API server: %s)", group, text)
		}
		return "group", fmt.Sprintf("group %q is not a DNS subdomain: use lower-case labels of letters, digits and '-' joined by dots, such as platform.example.com (the API server: %s)", group, text)
	case strings.HasPrefix(f, "spec.version"), regexp.MustCompile(`^spec\.versions\[\d+\]\.name$`).MatchString(f):
		if !strings.Contains(f, "schema") && !strings.Contains(f, "validation") {
			return "apiVersion", fmt.Sprintf("apiVersion %q is not a version the API server accepts: use one such as v1alpha1 (the API server: %s)", rgd.APIVersion, text)
		}
	}
	p, ok := schemaFieldPath(f)
	if !ok && strings.HasSuffix(f, "openAPIV3Schema") {
		p, ok = "spec", true // the schema as a whole
	}
	if ok {
		return p, schemaMessage(e, internal)
	}
	return "", fmt.Sprintf("the API server refuses the CRD kro generates: %s: change the stack's schema", text)
}

var ruleIndexRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`x-kubernetes-validations\[(\d+)\]\.rule$`) })

// schemaMessage says why the API server refuses a field's schema in the
// CRD kro generates, and what to change in its SimpleSchema.
func schemaMessage(e *field.Error, internal *apiextensions.CustomResourceDefinition) string {
	detail := e.Detail
	if m := ruleIndexRe().FindStringSubmatch(e.Field); m != nil {
		rule := ruleAt(internal, e.Field)
		first, _, _ := strings.Cut(detail, "\n")
		first = celErrorRe().ReplaceAllString(strings.TrimPrefix(first, "compilation failed: ERROR: "), "column $2: $3")
		if i := strings.Index(first, "<input>:"); i >= 0 {
			first = first[i:]
		}
		switch {
		case strings.Contains(detail, "cost exceeds budget"):
			cost, _, _ := strings.Cut(detail, " (try simplifying")
			return fmt.Sprintf("validation rule %q costs more than the API server allows (%s): bound what it iterates, with maxItems on lists and maxLength on strings, or simplify the rule", rule, cost)
		case strings.Contains(detail, "oldSelf cannot be used"):
			return fmt.Sprintf("rule %q compares with oldSelf (immutable=true does), which the API server refuses inside a list or map whose items it cannot match from one version to the next: remove immutable from the field, or put it on the list itself (the API server: %s)", rule, detail)
		case strings.HasPrefix(detail, "compilation failed"):
			return fmt.Sprintf("validation rule %q does not compile in the API server's CEL, where self is the field's value: %s: fix the rule", rule, first)
		}
		return fmt.Sprintf("validation rule %q is refused by the API server: %s: fix the rule", rule, detail)
	}
	body := strings.Replace(e.ErrorBody(), ":  in body ", ": ", 1)
	if i := strings.Index(e.Field, ".default."); i >= 0 {
		// A field of an object's default.
		sub := e.Field[i+len(".default."):]
		return fmt.Sprintf("the default's field %s breaks the schema of the default's type, and the API server checks defaults when kro creates the CRD (the API server: %s): change the default, or the type", sub, body)
	}
	if node, ok := strings.CutSuffix(e.Field, ".default"); ok {
		// The API server validates a default against the field's own
		// schema, rules included, when the CRD is created.
		what := "a marker of the field"
		for _, m := range defaultMarkers {
			if strings.Contains(e.ErrorBody(), m.says) {
				what = "the field's " + m.marker
			}
		}
		if rules := rulesOf(internal, node); rules != "" && detail == "validation failed" {
			what = "the field's validation rule " + rules
		}
		value := fmt.Sprint(e.BadValue)
		if b, err := json.Marshal(e.BadValue); err == nil {
			value = string(b) // as the spec would write it
		}
		if e.Type == field.ErrorTypeTooMany {
			value = "of " + value + " items" // the value is the count
		}
		return fmt.Sprintf("default %s breaks %s, and the API server checks defaults when kro creates the CRD (the API server: %s): change the default, or the marker it breaks", value, what, body)
	}
	switch {
	case strings.Contains(detail, "estimated rule cost total"):
		cost, _, _ := strings.Cut(detail, " (try simplifying")
		return fmt.Sprintf("the validation rules of the spec cost more in total than the API server allows (%s): bound what they iterate, with maxItems on lists and maxLength on strings, or simplify them", cost)
	case strings.Contains(detail, "must be atomic as item of a list with x-kubernetes-list-type=set"):
		return "a unique list (uniqueItems=true or listType=set) must hold scalars, such as []string, for the API server: remove the marker, or use a list of strings (the API server: " + detail + ")"
	case strings.Contains(detail, "entries must all be names of item properties"):
		return "listMapKey must name a field of the list's items, and these items declare none: remove listType=map and listMapKey (the API server: x-kubernetes-list-map-keys: " + detail + ")"
	case strings.Contains(detail, "must have a default or be a required property"):
		return "a listMapKey field must be required or have a default: add required=true or a default to it (the API server: " + detail + ")"
	}
	return fmt.Sprintf("the API server refuses the CRD kro generates: %s: change the field's SimpleSchema", e.Error())
}

// ruleAt is the x-kubernetes-validations rule at a field path of the
// internal CRD ("spec.validation.openAPIV3Schema.properties[spec]...
// .x-kubernetes-validations[0].rule").
func ruleAt(crd *apiextensions.CustomResourceDefinition, f string) string {
	rule := ""
	atPath(crd, f, func(s *apiextensions.JSONSchemaProps, rest string) {
		if m := ruleIndexRe().FindStringSubmatch(rest); m != nil {
			if n, _ := strconv.Atoi(m[1]); n < len(s.XValidations) {
				rule = s.XValidations[n].Rule
			}
		}
	})
	return rule
}

// atPath calls f with the schema node at a field path of the internal CRD
// and what follows it in the path (".default",
// ".x-kubernetes-validations[0].rule"); f may change the node. It does not
// call f when the path leads nowhere.
func atPath(crd *apiextensions.CustomResourceDefinition, f string, fn func(s *apiextensions.JSONSchemaProps, rest string)) {
	var root *apiextensions.JSONSchemaProps
	if crd.Spec.Validation != nil {
		root = crd.Spec.Validation.OpenAPIV3Schema
	} else if len(crd.Spec.Versions) > 0 && crd.Spec.Versions[0].Schema != nil {
		root = crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	if _, rest, ok := strings.Cut(f, "openAPIV3Schema"); ok {
		schemaAtPath(root, rest, fn)
	}
}

func schemaAtPath(s *apiextensions.JSONSchemaProps, rest string, fn func(s *apiextensions.JSONSchemaProps, rest string)) {
	switch {
	case s == nil:
	case strings.HasPrefix(rest, ".properties["):
		end := strings.IndexByte(rest, ']')
		name := rest[len(".properties["):end]
		if p, ok := s.Properties[name]; ok {
			schemaAtPath(&p, rest[end+1:], fn)
			s.Properties[name] = p // properties are held by value
		}
	case strings.HasPrefix(rest, ".items"):
		if s.Items != nil {
			schemaAtPath(s.Items.Schema, rest[len(".items"):], fn)
		}
	case strings.HasPrefix(rest, ".additionalProperties"):
		if s.AdditionalProperties != nil {
			schemaAtPath(s.AdditionalProperties.Schema, rest[len(".additionalProperties"):], fn)
		}
	default:
		fn(s, rest)
	}
}

// defaultMarkers name the marker a default breaks, by the words of the
// API server's (kube-openapi's) error.
var defaultMarkers = []struct{ says, marker string }{
	{"should be less than", "maximum"},
	{"should be greater than", "minimum"},
	{"should match", "pattern"},
	{"Unsupported value", "enum"},
	{"chars long", "length (minLength, maxLength)"},
	{"may not be more than", "maxLength"},
	{"must have at most", "maxItems"},
	{"must have at least", "minItems"},
	{"Duplicate value", "uniqueItems"},
}

// withoutDefaultsAt returns a copy of crd without the defaults that errs
// refuse, nil when errs refuse none.
func withoutDefaultsAt(crd *apiextensions.CustomResourceDefinition, errs field.ErrorList) *apiextensions.CustomResourceDefinition {
	var out *apiextensions.CustomResourceDefinition
	for _, e := range errs {
		node, ok := strings.CutSuffix(e.Field, ".default")
		if !ok || !strings.Contains(node, "openAPIV3Schema") {
			continue
		}
		if out == nil {
			out = crd.DeepCopy()
		}
		atPath(out, node, func(s *apiextensions.JSONSchemaProps, rest string) {
			if rest == "" {
				s.Default = nil
			}
		})
	}
	return out
}

// rulesOf quotes the x-kubernetes-validations rules of the schema node at
// a field path of the internal CRD, "" when it has none.
func rulesOf(crd *apiextensions.CustomResourceDefinition, node string) string {
	var rules []string
	atPath(crd, node, func(s *apiextensions.JSONSchemaProps, _ string) {
		for _, r := range s.XValidations {
			if r.Rule == "" {
				break
			}
			rules = append(rules, strconv.Quote(r.Rule))
		}
	})
	return strings.Join(rules, " and ")
}

var propertyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`properties\[([^\]]*)\]`) })

// schemaFieldPath turns the path of a schema node
// ("spec.validation.openAPIV3Schema.properties[spec].properties[a].default")
// into the field's ("spec.a").
func schemaFieldPath(f string) (string, bool) {
	i := strings.Index(f, "openAPIV3Schema")
	if i < 0 {
		return "", false
	}
	rest := f[i+len("openAPIV3Schema"):]
	var names []string
	for _, m := range propertyRe().FindAllStringSubmatch(rest, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		return "", false
	}
	path := names[0]
	if path != "spec" && path != "status" {
		return "", false
	}
	for _, n := range names[1:] {
		path = JoinPath(path, n)
	}
	return path, true
}

// The rest of this file is ported from k8s.io/apiextensions-apiserver
// v0.35.0 pkg/apis/apiextensions/validation (validation.go and
// cel_validation.go): the create-time checks a kro CRD can fail. That
// package pulls in a webhook client (with gRPC and OpenTelemetry) for
// conversion webhooks, which kro's CRDs never have.

const (
	staticEstimatedCostLimit    = 10000000
	staticEstimatedCRDCostLimit = 100000000
)

// validateCRD is ValidateCustomResourceDefinition for a new CRD.
func validateCRD(ctx context.Context, crd *apiextensions.CustomResourceDefinition) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range genericvalidation.NameIsDNSSubdomain(crd.Name, false) {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, msg))
	}
	if crd.Name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, `must be spec.names.plural+"."+spec.group`))
	}
	spec := &crd.Spec
	fldPath := field.NewPath("spec")
	if len(spec.Group) == 0 {
		errs = append(errs, field.Required(fldPath.Child("group"), ""))
	} else if msgs := utilvalidation.IsDNS1123Subdomain(spec.Group); len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("group"), spec.Group, strings.Join(msgs, ",")))
	} else if len(strings.Split(spec.Group, ".")) < 2 {
		errs = append(errs, field.Invalid(fldPath.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	statusEnabled := spec.Subresources != nil && spec.Subresources.Status != nil
	for i, v := range spec.Versions {
		if msgs := utilvalidation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("versions").Index(i).Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		vStatus := statusEnabled || v.Subresources != nil && v.Subresources.Status != nil
		errs = append(errs, validateValidation(ctx, v.Schema, vStatus, fldPath.Child("versions").Index(i).Child("schema"))...)
	}
	if msgs := utilvalidation.IsDNS1035Label(spec.Version); len(spec.Version) != 0 && len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("version"), spec.Version, strings.Join(msgs, ",")))
	}
	for _, req := range []struct{ name, value string }{{"plural", spec.Names.Plural}, {"singular", spec.Names.Singular}, {"kind", spec.Names.Kind}, {"listKind", spec.Names.ListKind}} {
		if req.value == "" {
			errs = append(errs, field.Required(fldPath.Child("names", req.name), ""))
		}
	}
	errs = append(errs, validateNames(&spec.Names, fldPath.Child("names"))...)
	errs = append(errs, validateValidation(ctx, spec.Validation, statusEnabled, fldPath.Child("validation"))...)
	return errs
}

// validateNames is ValidateCustomResourceDefinitionNames.
func validateNames(names *apiextensions.CustomResourceDefinitionNames, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if msgs := utilvalidation.IsDNS1035Label(names.Plural); len(names.Plural) > 0 && len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("plural"), names.Plural, strings.Join(msgs, ",")))
	}
	if msgs := utilvalidation.IsDNS1035Label(names.Singular); len(names.Singular) > 0 && len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("singular"), names.Singular, strings.Join(msgs, ",")))
	}
	if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(names.Kind)); len(names.Kind) > 0 && len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("kind"), names.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(names.ListKind)); len(names.ListKind) > 0 && len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("listKind"), names.ListKind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	if len(names.Kind) > 0 && names.Kind == names.ListKind {
		errs = append(errs, field.Invalid(fldPath.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	return errs
}

// validateValidation is validateCustomResourceDefinitionValidation with
// the options of a new CRD (structural schemas, pruned defaults, atomic
// sets, map keys, valid types).
func validateValidation(ctx context.Context, v *apiextensions.CustomResourceValidation, statusEnabled bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v == nil || v.OpenAPIV3Schema == nil {
		return errs
	}
	schema := v.OpenAPIV3Schema
	if statusEnabled && schema.Type != "" && schema.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("openAPIV3Schema.type"), schema.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`))
	}
	if schema.Nullable {
		errs = append(errs, field.Forbidden(fldPath.Child("openAPIV3Schema.nullable"), `nullable cannot be true at the root`))
	}
	var celContext *celSchemaContext
	var initErrs field.ErrorList
	if ss, err := structuralschema.NewStructural(schema); err != nil {
		initErrs = append(initErrs, field.Invalid(fldPath.Child("openAPIV3Schema"), "", err.Error()))
	} else if verrs := structuralschema.ValidateStructural(fldPath.Child("openAPIV3Schema"), ss); len(verrs) > 0 {
		errs = append(errs, verrs...)
	} else if verrs, err := structuraldefaulting.ValidateDefaults(ctx, fldPath.Child("openAPIV3Schema"), ss, true, true); err != nil {
		errs = append(errs, field.Invalid(fldPath.Child("openAPIV3Schema"), "", err.Error()))
	} else if len(verrs) > 0 {
		errs = append(errs, verrs...)
	} else {
		celContext = rootCELContext(schema)
	}
	ssv := &standardValidator{}
	schemaErrs, celErrs := validateOpenAPISchema(schema, fldPath.Child("openAPIV3Schema"), ssv, true, celContext)
	errs = append(errs, schemaErrs...)
	errs = append(errs, celErrs...)
	if len(errs) == 0 && len(initErrs) > 0 {
		errs = append(errs, initErrs...)
	}
	if celContext != nil && celContext.totalCost.total > staticEstimatedCRDCostLimit {
		for _, expensive := range celContext.totalCost.mostExpensive {
			errs = append(errs, field.Forbidden(expensive.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		errs = append(errs, field.Forbidden(fldPath.Child("openAPIV3Schema"), costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", celContext.totalCost.total, staticEstimatedCRDCostLimit)))
	}
	if len(errs) == 0 {
		if _, _, err := apiservervalidation.NewSchemaValidator(schema); err != nil {
			errs = append(errs, field.Invalid(fldPath, "", fmt.Sprintf("error building validator: %v", err)))
		}
	}
	return errs
}

var metaFields = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}

// standardValidator is specStandardValidatorV3; defaults are allowed
// where no reason forbids them.
type standardValidator struct {
	disallowDefaultsReason string
	insideResourceMeta     bool
	uncorrelatablePath     *field.Path
}

func (v standardValidator) withForbiddenDefaults(reason string) *standardValidator {
	v.disallowDefaultsReason = reason
	return &v
}

func (v standardValidator) withInsideResourceMeta() *standardValidator {
	v.insideResourceMeta = true
	return &v
}

func (v standardValidator) withForbidOldSelfValidations(path *field.Path) *standardValidator {
	if v.uncorrelatablePath == nil {
		v.uncorrelatablePath = path
	}
	return &v
}

func (v *standardValidator) validate(schema *apiextensions.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if schema == nil {
		return errs
	}
	if len(schema.Type) > 0 && !openAPIV3Types[schema.Type] {
		errs = append(errs, field.NotSupported(fldPath.Child("type"), schema.Type, []string{"array", "boolean", "integer", "number", "object", "string"}))
	}
	if schema.Default != nil && v.disallowDefaultsReason != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("default"), "must not be set "+v.disallowDefaultsReason))
	}
	if schema.Type == "null" {
		errs = append(errs, field.Forbidden(fldPath.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if v.insideResourceMeta && schema.XEmbeddedResource {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	return errs
}

// validateOpenAPISchema is ValidateCustomResourceDefinitionOpenAPISchema
// for the schema constructs kro generates (properties, items,
// additionalProperties, defaults, list types, validation rules); it returns
// the schema errors and the CEL errors apart.
func validateOpenAPISchema(schema *apiextensions.JSONSchemaProps, fldPath *field.Path, ssv *standardValidator, isRoot bool, celContext *celSchemaContext) (schemaErrs, celErrs field.ErrorList) {
	if schema == nil {
		return nil, nil
	}
	add := func(s, c field.ErrorList) {
		schemaErrs = append(schemaErrs, s...)
		celErrs = append(celErrs, c...)
	}
	schemaErrs = append(schemaErrs, ssv.validate(schema, fldPath)...)
	if schema.UniqueItems {
		schemaErrs = append(schemaErrs, field.Forbidden(fldPath.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if schema.AdditionalProperties != nil {
		if len(schema.Properties) != 0 && (!schema.AdditionalProperties.Allows || schema.AdditionalProperties.Schema != nil) {
			schemaErrs = append(schemaErrs, field.Forbidden(fldPath.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ssv
		if ssv.insideResourceMeta {
			sub = ssv.withForbiddenDefaults("inside additionalProperties applying to object metadata")
		}
		add(validateOpenAPISchema(schema.AdditionalProperties.Schema, fldPath.Child("additionalProperties"), sub, false, celContext.childAdditionalProperties(schema.AdditionalProperties.Schema)))
	}
	for _, property := range slices.Sorted(maps.Keys(schema.Properties)) {
		propertySchema := schema.Properties[property]
		sub := ssv
		if !schemacel.MapIsCorrelatable(schema.XMapType) {
			sub = sub.withForbidOldSelfValidations(fldPath)
		}
		if (isRoot || schema.XEmbeddedResource) && metaFields[property] {
			sub = sub.withInsideResourceMeta()
			if isRoot {
				sub = sub.withForbiddenDefaults(fmt.Sprintf("in top-level %s", property))
			}
		}
		add(validateOpenAPISchema(&propertySchema, fldPath.Child("properties").Key(property), sub, false, celContext.childProperty(&propertySchema, property)))
	}
	if schema.Items != nil {
		sub := ssv
		if schema.XListType == nil || *schema.XListType != "map" {
			sub = sub.withForbidOldSelfValidations(fldPath)
		}
		add(validateOpenAPISchema(schema.Items.Schema, fldPath.Child("items"), sub, false, celContext.childItems(schema.Items.Schema)))
	}
	if schema.XPreserveUnknownFields != nil && !*schema.XPreserveUnknownFields {
		schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), *schema.XPreserveUnknownFields, "must be true or undefined"))
	}
	if schema.XListType != nil && schema.Type != "array" {
		if len(schema.Type) == 0 {
			schemaErrs = append(schemaErrs, field.Required(fldPath.Child("type"), "must be array if x-kubernetes-list-type is specified"))
		} else {
			schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("type"), schema.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if schema.XListType != nil && *schema.XListType == "set" && schema.Items != nil && schema.Items.Schema != nil {
		is := schema.Items.Schema
		switch is.Type {
		case "array":
			if is.XListType != nil && *is.XListType != "atomic" {
				schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("items").Child("x-kubernetes-list-type"), is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			if is.XMapType == nil || *is.XMapType != "atomic" {
				schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("items").Child("x-kubernetes-map-type"), is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}
	if schema.XListType != nil && *schema.XListType != "atomic" && *schema.XListType != "set" && *schema.XListType != "map" {
		schemaErrs = append(schemaErrs, field.NotSupported(fldPath.Child("x-kubernetes-list-type"), *schema.XListType, []string{"atomic", "set", "map"}))
	}
	if len(schema.XListMapKeys) > 0 {
		if schema.XListType == nil {
			schemaErrs = append(schemaErrs, field.Required(fldPath.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *schema.XListType != "map" {
			schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("x-kubernetes-list-type"), *schema.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if schema.XListType != nil && *schema.XListType == "map" {
		if len(schema.XListMapKeys) == 0 {
			schemaErrs = append(schemaErrs, field.Required(fldPath.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
		}
		if schema.Items == nil {
			schemaErrs = append(schemaErrs, field.Required(fldPath.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
		}
		if schema.Items != nil && schema.Items.Schema != nil && schema.Items.Schema.Type != "object" {
			schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("items").Child("type"), schema.Items.Schema.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		}
		if schema.Items != nil && schema.Items.Schema != nil && schema.Items.Schema.Type == "object" {
			keys := map[string]bool{}
			for _, k := range schema.XListMapKeys {
				if s, ok := schema.Items.Schema.Properties[k]; ok {
					if s.Type == "array" || s.Type == "object" {
						schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("items").Child("properties").Key(k).Child("type"), schema.Items.Schema.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
					}
				} else {
					schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), schema.XListMapKeys, "entries must all be names of item properties"))
				}
				if keys[k] {
					schemaErrs = append(schemaErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), schema.XListMapKeys, "must not contain duplicate entries"))
				}
				keys[k] = true
			}
		}
	}
	schemaErrs = append(schemaErrs, validateMapListKeysMapSet(schema, fldPath)...)
	if len(schema.XValidations) > 0 {
		for i, rule := range schema.XValidations {
			trimmedRule := strings.TrimSpace(rule.Rule)
			trimmedMsg := strings.TrimSpace(rule.Message)
			if len(trimmedRule) == 0 {
				schemaErrs = append(schemaErrs, field.Required(fldPath.Child("x-kubernetes-validations").Index(i).Child("rule"), "rule is not specified"))
			} else if strings.ContainsAny(trimmedRule, "\n\r") && len(trimmedMsg) == 0 {
				schemaErrs = append(schemaErrs, field.Required(fldPath.Child("x-kubernetes-validations").Index(i).Child("message"), "message must be specified if rule contains line breaks"))
			}
		}
		// Schema errors here or below make CEL's types unreliable: the API
		// server checks the rules only without them.
		if len(schemaErrs) == 0 && celContext != nil {
			celErrs = append(celErrs, compileRules(schema, fldPath, ssv, celContext)...)
		}
	}
	return schemaErrs, celErrs
}

// compileRules compiles a schema node's x-kubernetes-validations rules
// with the API server's CEL environment and checks their cost.
func compileRules(schema *apiextensions.JSONSchemaProps, fldPath *field.Path, ssv *standardValidator, celContext *celSchemaContext) field.ErrorList {
	var errs field.ErrorList
	typeInfo, err := celContext.typeInfo()
	if err != nil || typeInfo == nil {
		return append(errs, field.InternalError(fldPath.Child("x-kubernetes-validations"), fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %v", err)))
	}
	results, err := schemacel.Compile(typeInfo.schema, typeInfo.declType, celconfig.PerCallLimit,
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), schemacel.NewExpressionsEnvLoader())
	if err != nil {
		return append(errs, field.InternalError(fldPath.Child("x-kubernetes-validations"), err))
	}
	for i, cr := range results {
		rulePath := fldPath.Child("x-kubernetes-validations").Index(i).Child("rule")
		cost := expressionCost(cr, celContext)
		if cost > staticEstimatedCostLimit {
			errs = append(errs, field.Forbidden(rulePath, costErrorMessage("estimated rule cost", cost, staticEstimatedCostLimit)))
		}
		celContext.totalCost.observe(rulePath, cost)
		if cr.Error != nil {
			if cr.Error.Type == apiservercel.ErrorTypeRequired {
				errs = append(errs, field.Required(rulePath, cr.Error.Detail))
			} else {
				errs = append(errs, field.Invalid(rulePath, schema.XValidations[i], cr.Error.Detail))
			}
		}
		if cr.UsesOldSelf && ssv.uncorrelatablePath != nil {
			errs = append(errs, field.Invalid(rulePath, schema.XValidations[i].Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", ssv.uncorrelatablePath)))
		}
	}
	return errs
}

func validateMapListKeysMapSet(schema *apiextensions.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if schema.Items == nil || schema.Items.Schema == nil || schema.XListType == nil {
		return nil
	}
	if *schema.XListType != "set" && *schema.XListType != "map" {
		return nil
	}
	if schema.Items.Schema.Nullable {
		errs = append(errs, field.Forbidden(fldPath.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+*schema.XListType))
	}
	if *schema.XListType == "map" {
		for _, k := range schema.XListMapKeys {
			obj, ok := schema.Items.Schema.Properties[k]
			if !ok {
				continue
			}
			if !slices.Contains(schema.Items.Schema.Required, k) && obj.Default == nil {
				errs = append(errs, field.Required(fldPath.Child("items").Child("properties").Key(k).Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
			}
			if obj.Nullable {
				errs = append(errs, field.Forbidden(fldPath.Child("items").Child("properties").Key(k).Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
			}
		}
	}
	return errs
}

func multiplyWithOverflowGuard(baseCost, cardinality uint64) uint64 {
	if baseCost == 0 {
		return 0
	} else if math.MaxUint/baseCost < cardinality {
		return math.MaxUint
	}
	return baseCost * cardinality
}

func expressionCost(cr schemacel.CompilationResult, c *celSchemaContext) uint64 {
	if c.maxCardinality != nil {
		return multiplyWithOverflowGuard(cr.MaxCost, *c.maxCardinality)
	}
	return multiplyWithOverflowGuard(cr.MaxCost, cr.MaxCardinality)
}

func costErrorMessage(costName string, expressionCost, costLimit uint64) string {
	exceedFactor := float64(expressionCost) / float64(costLimit)
	var factor string
	switch {
	case exceedFactor > 100.0:
		factor = "more than 100x"
	case exceedFactor < 1.5:
		factor = fmt.Sprintf("%fx", exceedFactor)
	default:
		factor = fmt.Sprintf("%.1fx", exceedFactor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, factor)
}

// celSchemaContext is CELSchemaContext: the type information and the
// cardinality of a schema node for its rules.
type celSchemaContext struct {
	withinScope    bool
	info           *celTypeInfo
	infoErr        error
	parent         *celSchemaContext
	accessor       func(parent *celTypeInfo) *celTypeInfo
	jsonSchema     *apiextensions.JSONSchemaProps
	maxCardinality *uint64
	totalCost      *totalCost
}

type celTypeInfo struct {
	schema   *structuralschema.Structural
	declType *apiservercel.DeclType
}

func (c *celSchemaContext) typeInfo() (*celTypeInfo, error) {
	if c == nil || !c.withinScope {
		return nil, nil
	}
	if c.info != nil || c.infoErr != nil {
		return c.info, c.infoErr
	}
	if c.parent != nil {
		parentInfo, err := c.parent.typeInfo()
		if err != nil {
			c.infoErr = err
			return nil, err
		}
		if parentInfo != nil && c.accessor != nil {
			if c.info = c.accessor(parentInfo); c.info != nil {
				return c.info, nil
			}
		}
	}
	structural, err := structuralschema.NewStructural(c.jsonSchema)
	if err != nil {
		c.infoErr = err
		return nil, err
	}
	declType := model.SchemaDeclType(structural, c.parent == nil || c.jsonSchema.XEmbeddedResource)
	if declType == nil {
		c.infoErr = fmt.Errorf("unable to convert structural schema to CEL declarations")
		return nil, c.infoErr
	}
	c.info = &celTypeInfo{structural, declType}
	return c.info, nil
}

func rootCELContext(schema *apiextensions.JSONSchemaProps) *celSchemaContext {
	one := uint64(1)
	return &celSchemaContext{jsonSchema: schema, withinScope: len(schema.XValidations) > 0, maxCardinality: &one, totalCost: &totalCost{}}
}

func (c *celSchemaContext) childProperty(propSchema *apiextensions.JSONSchemaProps, name string) *celSchemaContext {
	return c.child(propSchema, func(p *celTypeInfo) *celTypeInfo {
		if p.schema.Properties != nil {
			s := p.schema.Properties[name]
			if escaped, ok := apiservercel.Escape(name); ok {
				if f, ok := p.declType.Fields[escaped]; ok {
					return &celTypeInfo{schema: &s, declType: f.Type}
				}
			}
		}
		return nil
	})
}

func (c *celSchemaContext) childItems(items *apiextensions.JSONSchemaProps) *celSchemaContext {
	return c.child(items, func(p *celTypeInfo) *celTypeInfo {
		if p.schema.Items != nil {
			return &celTypeInfo{schema: p.schema.Items, declType: p.declType.ElemType}
		}
		return nil
	})
}

func (c *celSchemaContext) childAdditionalProperties(props *apiextensions.JSONSchemaProps) *celSchemaContext {
	return c.child(props, func(p *celTypeInfo) *celTypeInfo {
		if p.schema.AdditionalProperties != nil {
			return &celTypeInfo{schema: p.schema.AdditionalProperties.Structural, declType: p.declType.ElemType}
		}
		return nil
	})
}

func (c *celSchemaContext) child(s *apiextensions.JSONSchemaProps, accessor func(*celTypeInfo) *celTypeInfo) *celSchemaContext {
	if c == nil {
		return nil
	}
	result := &celSchemaContext{parent: c, accessor: accessor, withinScope: c.withinScope, totalCost: c.totalCost}
	if s != nil {
		result.jsonSchema = s
		if len(s.XValidations) > 0 {
			result.withinScope = true
		}
	}
	if c.jsonSchema == nil || c.maxCardinality == nil {
		return result
	}
	maxElements := extractMaxElements(c.jsonSchema)
	if maxElements == nil {
		return result
	}
	m := multiplyWithOverflowGuard(*c.maxCardinality, *maxElements)
	result.maxCardinality = &m
	return result
}

type totalCost struct {
	total         uint64
	mostExpensive []ruleCost
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

func (c *totalCost) observe(path *field.Path, cost uint64) {
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < staticEstimatedCRDCostLimit/100 {
		return
	}
	c.mostExpensive = append(c.mostExpensive, ruleCost{path: path, cost: cost})
	sort.Slice(c.mostExpensive, func(i, j int) bool { return c.mostExpensive[i].cost > c.mostExpensive[j].cost })
	if len(c.mostExpensive) > 4 {
		c.mostExpensive = c.mostExpensive[:4]
	}
}

// extractMaxElements is the factor by which a schema multiplies the
// number of its children: maxItems or maxProperties, nil when unbounded.
func extractMaxElements(schema *apiextensions.JSONSchemaProps) *uint64 {
	one := uint64(1)
	switch schema.Type {
	case "object":
		if schema.AdditionalProperties != nil {
			if schema.MaxProperties != nil {
				m := uint64(max(*schema.MaxProperties, 0))
				return &m
			}
			return nil
		}
		return &one
	case "array":
		if schema.MaxItems != nil {
			m := uint64(max(*schema.MaxItems, 0))
			return &m
		}
		return nil
	}
	return &one
}
