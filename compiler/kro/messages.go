package kro

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/graph/fieldpath"
	"github.com/kubernetes-sigs/kro/pkg/graph/parser"
	"github.com/kubernetes-sigs/kro/pkg/simpleschema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/platc/platc/compiler/diag"
)

// The messages say what is wrong in platc's words and what to change, and
// end with kro's own error in parentheses: kro decides, platc explains.

// These patterns only shape suggestions ("such as ..."); validity is
// kro's decision. They compile on first use.
var (
	kindLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][a-zA-Z0-9]{0,62}$`) })
	idLike   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`) })
)

// markerNames are SimpleSchema's markers in kro
// (pkg/simpleschema/markers.go), for messages.
var markerNames = []string{"required", "default", "description", "enum", "minimum", "maximum", "pattern",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "immutable", "validation", "listType", "listMapKey"}

// atomicTypes are SimpleSchema's own type names, for messages.
var atomicTypes = []string{"string", "integer", "boolean", "float", "object"}

func kindMessage(kind, source string) string {
	if kind == "" {
		return fmt.Sprintf("kind is required: set an UpperCamelCase kind, such as WebApplication (%s)", source)
	}
	return fmt.Sprintf("kind %q is not a valid kro kind: use UpperCamelCase of 1 to 63 letters and digits%s (%s)",
		kind, suggest(camel(kind, true), kindLike()), source)
}

func idMessage(id, source string) string {
	switch {
	case id == "":
		return fmt.Sprintf("id is required: give the resource a lowerCamelCase id, such as database (%s)", source)
	case strings.Contains(source, "reserved"):
		return fmt.Sprintf("id %q is a reserved word in kro: choose another lowerCamelCase id (%s)", id, source)
	}
	return fmt.Sprintf("id %q is not a valid kro resource id: use lowerCamelCase%s (%s)", id, suggest(camel(id, false), idLike()), source)
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

// suggest returns `, such as "x"` when x looks valid, else "".
func suggest(x string, re *regexp.Regexp) string {
	if x == "" || !re.MatchString(x) {
		return ""
	}
	return fmt.Sprintf(", such as %q", x)
}

func conditionShapeMessage(what, entry string, err error) string {
	if errors.Is(err, parser.ErrNestedExpression) {
		return nestedMessage(entry, err)
	}
	return fmt.Sprintf("%s entry %q is not one standalone expression: write the whole entry as a single ${...}, with nothing around it (kro: %v)", what, entry, err)
}

func nestedMessage(src string, err error) string {
	if errors.Is(err, parser.ErrNestedExpression) || strings.Contains(err.Error(), parser.ErrNestedExpression.Error()) {
		return fmt.Sprintf("%q has a \"${\" inside an expression, outside a string literal: remove it or quote it, as in ${\"${VAR}\"} (kro: %v)", src, err)
	}
	return fmt.Sprintf("kro cannot read %q: %v: fix the expression", src, err)
}

// resourceMessage says why kro cannot build a resource before reading its
// fields, and where: a path in body, the resource's template or
// externalRef.
func resourceMessage(cause, body, apiVersion, kindName string, kinds *Kinds) (path, msg string) {
	cause = strings.ReplaceAll(cause, probeID, "the resource")
	has := func(s string) bool { return strings.Contains(cause, s) }
	switch {
	case has("apiVersion field not found"), has("apiVersion not found"):
		return body + ".apiVersion", fmt.Sprintf("template has no apiVersion: set it (kro: %s)", cause)
	case has("apiVersion field is not a string"):
		return body + ".apiVersion", fmt.Sprintf("template apiVersion must be a string: set it (kro: %s)", cause)
	case has("kind field not found"), has("kind not found"):
		return body + ".kind", fmt.Sprintf("template has no kind: set it (kro: %s)", cause)
	case has("kind field is not a string"):
		return body + ".kind", fmt.Sprintf("template kind must be a string: set it (kro: %s)", cause)
	case has("metadata field not found"):
		return body + ".metadata", fmt.Sprintf("template has no metadata: set metadata, with at least a name (kro: %s)", cause)
	case has("metadata field is not a map"):
		return body + ".metadata", fmt.Sprintf("template metadata must be a map: set metadata.name and the like (kro: %s)", cause)
	case has("invalid apiVersion format"):
		return body + ".apiVersion", fmt.Sprintf("template apiVersion %q is not group/version: write it as the kind's CRD has it (kro: %s)", apiVersion, cause)
	case has("invalid kind"):
		return body + ".kind", fmt.Sprintf("template kind %q is not a Kubernetes kind: write it as the kind's CRD has it (kro: %s)", kindName, cause)
	case has("failed to get schema"), has("failed to get REST mapping"):
		return body + ".kind", fmt.Sprintf("no schema is known for %s %s%s: use one of %s (kro: %s)", apiVersion, kindName,
			diag.DidYouMean(kindName, kinds.kindNames()), strings.Join(kinds.kindsOf(), ", "), cause)
	case has("must not set metadata.namespace"):
		return body + ".metadata.namespace", fmt.Sprintf("%s is cluster-scoped: remove metadata.namespace (kro: %s)", kindName, cause)
	case has("must set metadata.namespace"):
		return body + ".metadata.namespace", fmt.Sprintf("%s is namespaced and the instance is not: set metadata.namespace (kro: %s)", kindName, cause)
	case has("invalid label"):
		return body + ".metadata.labels", fmt.Sprintf("labels with prefix kro.run/ are kro's own: remove them (kro: %s)", cause)
	}
	// The resource as a whole: "template" for an externalRef too (both
	// lead to the resource's spec path).
	return "template", fmt.Sprintf("kro cannot build the resource: %s: fix the template", cause)
}

var expectedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`expected (.+) type for path`) })

// templateMessage says why kro's parser refuses the value v of a template.
func templateMessage(v any, err error) string {
	msg := err.Error()
	if errors.Is(err, parser.ErrNestedExpression) || strings.Contains(msg, parser.ErrNestedExpression.Error()) {
		return nestedMessage(fmt.Sprint(v), err)
	}
	if m := expectedRe().FindStringSubmatch(msg); m != nil {
		if s, ok := v.(string); ok {
			if exprs, _ := parser.ExtractExpressions(s); len(exprs) > 0 {
				return fmt.Sprintf("%q is a string template, but the field takes %s: write the whole value as one ${...} expression (kro: %s)", s, m[1], msg)
			}
		}
		return fmt.Sprintf("value %s does not fit the field, which takes %s: change the value (kro: %s)", short(valueText(v)), m[1], msg)
	}
	return fmt.Sprintf("kro cannot read the field: %s: change the value", msg)
}

// unknownFieldMessage says that a template field is not in its kind's schema.
func unknownFieldMessage(field string, n *node, segs []fieldpath.Segment, err error) string {
	var names []string
	if s := schemaAt(n.schema, segs); s != nil {
		names = slices.Sorted(maps.Keys(s.Properties))
	}
	kind := cmp.Or(n.kind, "its kind")
	return fmt.Sprintf("field %q is not in the schema of %s%s: remove it or fix its name (kro: %v)", field, kind, diag.DidYouMean(field, names), err)
}

// schemaAt follows segs from s as kro's parser does.
func schemaAt(s *spec.Schema, segs []fieldpath.Segment) *spec.Schema {
	for _, seg := range segs {
		if s == nil {
			return nil
		}
		if seg.Index >= 0 {
			if s.Items == nil {
				return nil
			}
			s = s.Items.Schema
			continue
		}
		if p, ok := s.Properties[seg.Name]; ok {
			s = &p
		} else if s.AdditionalProperties != nil {
			s = s.AdditionalProperties.Schema
		} else {
			return nil
		}
	}
	return s
}

// simpleSchemaHints turn kro's SimpleSchema errors into what to change.
var simpleSchemaHints = sync.OnceValue(func() []simpleSchemaHint {
	return []simpleSchemaHint{
		{re: regexp.MustCompile(`unexpected type: (.*)$`), hint: func(m []string, field string, def any, _ map[string]any) string {
			return fmt.Sprintf("field %q has a value of type %s: write a SimpleSchema string such as \"string | required=true\", or a map of fields", field, goKind(def))
		}},
		{re: regexp.MustCompile(`invalid marker key "([^"]*)": unknown marker`), hint: func(m []string, _ string, _ any, _ map[string]any) string {
			return fmt.Sprintf("unknown marker %q%s: use one of %s", m[1], diag.DidYouMean(m[1], markerNames), strings.Join(markerNames, ", "))
		}},
		{re: regexp.MustCompile(`(?:unknown type: |node )(\S+)(?: does not exist)?$`), hint: func(m []string, _ string, _ any, types map[string]any) string {
			known := append(slices.Clone(atomicTypes), slices.Sorted(maps.Keys(types))...)
			return fmt.Sprintf("unknown type %q%s: use string, integer, boolean, float, object, []T, map[string]T or a type declared in types", m[1], diag.DidYouMean(m[1], known))
		}},
		{re: regexp.MustCompile(`default value must be a valid (integer|number|boolean), got: (.*)$`), hint: func(m []string, _ string, _ any, _ map[string]any) string {
			example := map[string]string{"integer": "default=1", "number": "default=1.5", "boolean": "default=true"}[m[1]]
			return fmt.Sprintf("default %q is not a valid %s: write one, such as %s", m[2], m[1], example)
		}},
		{re: regexp.MustCompile(`enum values only supported for string and integer types, got type: (.*)$`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker enum=%q: enum is only allowed on string and integer fields, not %s: remove enum or change the type", markerValue(def, "enum"), typeOf(def))
		}},
		{re: regexp.MustCompile(`(failed to parse integer enum value|empty enum values are not allowed)`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker enum=%q: list the values separated by commas, whole numbers for an integer field, such as enum=\"1,2,3\"", markerValue(def, "enum"))
		}},
		{re: regexp.MustCompile(`failed to parse (required|immutable|uniqueItems) marker value`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker %s=%q: write true or false", m[1], markerValue(def, m[1]))
		}},
		{re: regexp.MustCompile(`failed to parse (minimum|maximum) enum value`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker %s=%q: write a number", m[1], markerValue(def, m[1]))
		}},
		{re: regexp.MustCompile(`failed to parse (minLength|maxLength|minItems|maxItems) value`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker %s=%q: write a whole number", m[1], markerValue(def, m[1]))
		}},
		{re: regexp.MustCompile(`(\w+) marker (is )?only (valid for|applies to) (\w+) types`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker %s=%q is only valid for %s types, not %s: remove it or change the type", m[1], markerValue(def, m[1]), m[4], typeOf(def))
		}},
		{re: regexp.MustCompile(`invalid pattern regex`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("marker pattern=%q is not a regular expression: fix it", markerValue(def, "pattern"))
		}},
		{re: regexp.MustCompile(`pattern marker value cannot be empty`), text: "marker pattern is empty: write a regular expression"},
		{re: regexp.MustCompile(`^validation failed$`), text: "marker validation is empty: write a CEL rule, such as validation=\"self > 0\""},
		{re: regexp.MustCompile(`listMapKey set while listType is`), text: "listMapKey needs listType=map: add it"},
		{re: regexp.MustCompile(`(unsupported value for listType|listType attempting to overwrite|cannot set unique when listType|duplicate listMapKey)`), text: "the list markers contradict each other: use listType=atomic, set or map (listMapKey only with map, uniqueItems=true only with set)"},
		{re: regexp.MustCompile(`(marker key '.*' without a value|unclosed quote|unclosed bracket|unmatched closing bracket|empty marker key)`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("cannot parse the markers of %q: write the type, one \"|\", then key=value pairs separated by spaces, quoting values that hold spaces, such as default=\"a b\"", fmt.Sprint(def))
		}},
		{re: regexp.MustCompile(`empty type`), text: "empty type: write a type such as string, integer, boolean, float, object, []string or map[string]string"},
		{re: regexp.MustCompile(`(map key must be string|map value type is required|empty slice element type)`), hint: func(m []string, _ string, def any, _ map[string]any) string {
			return fmt.Sprintf("type of %q is malformed: write []T or map[string]T, such as map[string]string", fmt.Sprint(def))
		}},
		{re: regexp.MustCompile(`type nesting too deep`), text: "the type is nested too deep: flatten it, with a type declared in types"},
	}
})

// simpleSchemaHint is a hint's text, or what makes it of the pattern's
// match m, of field (or custom type) def.
type simpleSchemaHint struct {
	re   *regexp.Regexp
	text string
	hint func(m []string, field string, def any, types map[string]any) string
}

// schemaHint says what to change for kro's SimpleSchema error cause.
func schemaHint(cause, field string, def any, types map[string]any) (string, bool) {
	for _, h := range simpleSchemaHints() {
		m := h.re.FindStringSubmatch(cause)
		switch {
		case m == nil:
		case h.hint == nil:
			return h.text, true
		default:
			return h.hint(m, field, def, types), true
		}
	}
	return "", false
}

// fieldMessage says why kro's SimpleSchema refuses a spec field.
func fieldMessage(field string, def any, err error, types map[string]any) string {
	cause := strings.TrimPrefix(err.Error(), "field "+field+": ")
	if hint, ok := schemaHint(cause, field, def, types); ok {
		return fmt.Sprintf("%s (kro: %s)", hint, cause)
	}
	return fmt.Sprintf("kro refuses the field's SimpleSchema %q: fix it (kro: %s)", fmt.Sprint(def), cause)
}

var typePrefixRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(parsing type|building schema for|cyclic dependency in type) [^:]*: `)
})

// typeMessage says why kro's SimpleSchema refuses a custom type.
func typeMessage(name string, def any, err error, types map[string]any) string {
	cause := typePrefixRe().ReplaceAllString(err.Error(), "")
	if hint, ok := schemaHint(cause, name, def, types); ok {
		return fmt.Sprintf("type %q: %s (kro: %s)", name, hint, err)
	}
	return fmt.Sprintf("kro refuses type %q: fix it (kro: %v)", name, err)
}

// markerValue is the value of marker key in a SimpleSchema field string.
func markerValue(def any, key string) string {
	s, _ := def.(string)
	_, markers, err := simpleschema.ParseField(s)
	if err != nil {
		return ""
	}
	for _, m := range markers {
		if m.Key == key {
			return m.Value
		}
	}
	return ""
}

// typeOf is the type part of a SimpleSchema field string.
func typeOf(def any) string {
	s, _ := def.(string)
	t, _, _ := strings.Cut(s, "|")
	return strings.TrimSpace(t)
}

var celErrorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<input>:(\d+):(\d+): ([^\n]*)`) })

// syntaxMessage says an expression does not parse, with where.
func syntaxMessage(shown string, err error) string {
	// kro parses a string template as one concatenation: point at the
	// failing part.
	if exprs, e := parser.ExtractExpressions(shown); e == nil && len(exprs) > 0 && !strings.HasPrefix(shown, "${") || len(exprs) > 1 {
		for _, x := range exprs {
			if env, envErr := parseEnv(); envErr == nil {
				if _, iss := env.Parse(x); iss.Err() != nil {
					return syntaxMessage(x, iss.Err())
				}
			}
		}
	}
	if m := celErrorRe().FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("expression %q has a CEL syntax error at column %s: %s: fix the syntax", shown, m[2], m[3])
	}
	return fmt.Sprintf("expression %q does not parse: %v: fix the syntax", shown, err)
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

// typeMismatchMessage says an expression's type does not fit its field.
func typeMismatchMessage(expr *krocel.Expression, out, want *cel.Type, err error) string {
	shown := expr.UserExpression()
	what := fmt.Sprintf("expression %q returns %s but the field takes %s", shown, typeString(out), typeString(want))
	hint := "make it return " + typeString(want)
	switch {
	case expr.OriginalTemplate != "":
		hint = "write the whole value as one ${...} expression of that type"
	case want.Kind() == types.StructKind && out.Kind() == types.MapKind:
		hint = "set the object's fields one by one, each with its own expression"
	}
	return fmt.Sprintf("%s: %s (kro: %v)", what, hint, err)
}

// typeString names a CEL type for messages: "object" for a schema's
// struct, kro's names otherwise.
func typeString(t *cel.Type) string {
	if t == nil {
		return "unknown"
	}
	switch t.Kind() {
	case types.StructKind:
		return "object"
	case types.ListKind:
		return "list(" + typeString(t.Parameters()[0]) + ")"
	case types.MapKind:
		return "map(" + typeString(t.Parameters()[0]) + ", " + typeString(t.Parameters()[1]) + ")"
	case types.OpaqueKind:
		if t.TypeName() == "optional_type" && len(t.Parameters()) == 1 {
			return "optional_type(" + typeString(t.Parameters()[0]) + ")"
		}
	}
	return t.String()
}

// restrictedMessage says an expression of readyWhen (or status)
// references what it may not.
func restrictedMessage(where, expr, id string, allowed []string, resources []Resource, idx int) string {
	if where == "readyWhen" && idx >= 0 {
		self := resources[idx].ID
		if id == "schema" {
			return fmt.Sprintf("readyWhen expression %q references schema: readyWhen may reference only its own resource, %q (kro: references unknown identifiers: [schema])", expr, self)
		}
		return fmt.Sprintf("readyWhen expression %q references %q: readyWhen may reference only its own resource, %q; check %q in its own readyWhen instead (kro: references unknown identifiers: [%s])", expr, id, self, id, id)
	}
	return fmt.Sprintf("%s expression %q references %q: use %s (kro: references unknown identifiers: [%s])", where, expr, id, strings.Join(allowed, ", "), id)
}

// statusPlainMessage says a status field holds no expression.
func statusPlainMessage(v any, path string) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("status value %q has no expression: write a ${...} expression that reads a resource, or remove the field (kro: status fields without expressions are not supported: [%s])", s, path)
	}
	return fmt.Sprintf("status value %s is not an expression: write a ${...} expression that reads a resource (kro: status fields without expressions are not supported: [%s])", short(valueText(v)), path)
}

// short cuts a long value for a message.
func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// valueText names a value read from YAML or JSON, with the value for scalars.
func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "null"
	case int64, int:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("number %v", v)
	}
	return fmt.Sprintf("%v", v)
}

// goKind names the kind of a value read from YAML or JSON.
func goKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "map"
	case []any:
		return "list"
	case int64, int, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
