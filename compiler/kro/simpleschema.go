package kro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/platc/platc/compiler/diag"
)

// Schema is an OpenAPI v3 style schema node, the subset kro and platc need.
type Schema struct {
	Type                                     string             // "object", "array", "string", "integer", "number", "boolean"; "" means any
	Properties                               map[string]*Schema // object fields
	Required                                 []string
	AdditionalProperties                     *Schema // map values (type object with no Properties)
	Items                                    *Schema // array items
	PreserveUnknown                          bool    // x-kubernetes-preserve-unknown-fields: any fields below
	IntOrString                              bool
	Enum                                     []any
	Default                                  any
	Description                              string
	Minimum, Maximum                         *float64
	Pattern                                  string
	MinLength, MaxLength, MinItems, MaxItems *int64
	UniqueItems, Immutable                   bool
	// Validations are the CEL rules of SimpleSchema's validation marker,
	// emitted as x-kubernetes-validations after the immutable rule.
	Validations []string
}

// OpenAPI returns the schema as plain data (map[string]any etc.) in OpenAPI v3 form, deterministic.
// Lists are []any; uniqueItems is written as x-kubernetes-list-type: set (a
// structural schema may not set uniqueItems), immutable and validation as
// x-kubernetes-validations, as kro generates them.
func (s *Schema) OpenAPI() map[string]any {
	if s == nil {
		return map[string]any{}
	}
	m := map[string]any{}
	if s.Type != "" {
		m["type"] = s.Type
	}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if len(s.Properties) > 0 {
		props := map[string]any{}
		for name, p := range s.Properties {
			props[name] = p.OpenAPI()
		}
		m["properties"] = props
	}
	if len(s.Required) > 0 {
		m["required"] = toAny(s.Required)
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = s.AdditionalProperties.OpenAPI()
	}
	if s.Items != nil {
		m["items"] = s.Items.OpenAPI()
	}
	if s.PreserveUnknown {
		m["x-kubernetes-preserve-unknown-fields"] = true
	}
	if s.IntOrString {
		m["x-kubernetes-int-or-string"] = true
	}
	if len(s.Enum) > 0 {
		m["enum"] = slices.Clone(s.Enum)
	}
	if s.Default != nil {
		m["default"] = s.Default
	}
	if s.Minimum != nil {
		m["minimum"] = *s.Minimum
	}
	if s.Maximum != nil {
		m["maximum"] = *s.Maximum
	}
	if s.Pattern != "" {
		m["pattern"] = s.Pattern
	}
	for key, v := range map[string]*int64{"minLength": s.MinLength, "maxLength": s.MaxLength, "minItems": s.MinItems, "maxItems": s.MaxItems} {
		if v != nil {
			m[key] = *v
		}
	}
	if s.UniqueItems {
		m["x-kubernetes-list-type"] = "set"
	}
	var rules []any
	if s.Immutable {
		rules = append(rules, map[string]any{"rule": "self == oldSelf", "message": "field is immutable"})
	}
	for _, r := range s.Validations {
		rules = append(rules, map[string]any{"rule": r, "message": "validation failed"})
	}
	if len(rules) > 0 {
		m["x-kubernetes-validations"] = rules
	}
	return m
}

// toAny turns a []string into the []any of plain data.
func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// clone returns a deep copy of s (Default and Enum values are shared: they
// are never mutated).
func (s *Schema) clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = v.clone()
		}
	}
	c.Required = slices.Clone(s.Required)
	c.AdditionalProperties = s.AdditionalProperties.clone()
	c.Items = s.Items.clone()
	c.Enum = slices.Clone(s.Enum)
	c.Validations = slices.Clone(s.Validations)
	return &c
}

// markerNames are kro v0.9's SimpleSchema markers, in the order messages list them.
var markerNames = []string{"required", "default", "description", "enum", "minimum", "maximum", "pattern",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "immutable", "validation"}

// maxTypeDepth is kro's limit on nested []/map[string] type strings.
const maxTypeDepth = 16

// ParseSimpleSchema turns an RGD's spec.schema.spec tree (map[string]any whose leaves are SimpleSchema strings such as "integer | default=1 minimum=1", nested maps being nested objects) and spec.schema.types into a Schema of type object. Problems carry the field path (e.g. "spec.loki.enabled").
//
// The result is the schema of the instance's spec. Custom types (a map of
// fields, or a type string) may refer to each other; a cycle among them is a
// problem. Every type of types is checked, used or not.
func ParseSimpleSchema(spec map[string]any, types map[string]any) (*Schema, []Problem) {
	p := &ssParser{types: types, resolved: map[string]*Schema{}}
	for _, name := range slices.Sorted(maps.Keys(types)) {
		p.custom(name, "types."+name)
	}
	s := p.object(spec, "spec")
	return s, p.probs
}

// ssParser parses a SimpleSchema tree, collecting problems; custom types
// are resolved once, on first use, and cycles among them detected.
type ssParser struct {
	types    map[string]any
	resolved map[string]*Schema // nil value: the type is broken (already reported)
	stack    []string           // custom types being resolved
	probs    []Problem
}

// errorf records a problem at path.
func (p *ssParser) errorf(path, format string, args ...any) {
	p.probs = append(p.probs, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// object parses a map of fields into an object schema.
func (p *ssParser) object(tree map[string]any, path string) *Schema {
	s := &Schema{Type: "object", Properties: map[string]*Schema{}}
	childDefault := false
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		fp := path + "." + name
		var f *Schema
		switch v := tree[name].(type) {
		case string:
			var required bool
			f, required = p.field(v, fp)
			if required {
				s.Required = append(s.Required, name)
			}
		case map[string]any:
			f = p.object(v, fp)
		default:
			p.errorf(fp, "field %q has a value of type %s: write a SimpleSchema string such as \"string | required=true\", or a map of fields (kro: unknown type in schema)", name, goKind(v))
		}
		if f == nil {
			f = &Schema{}
		}
		if f.Default != nil {
			childDefault = true
		}
		s.Properties[name] = f
	}
	if childDefault {
		s.Default = map[string]any{}
	}
	return s
}

// field parses one SimpleSchema field string: a type, then optionally one
// "|" and space-separated markers. It returns nil when the type is broken.
func (p *ssParser) field(src, path string) (*Schema, bool) {
	parts := strings.Split(src, "|")
	if len(parts) > 2 {
		p.errorf(path, "%q has more than one \"|\": write the type, one \"|\", then space-separated markers, such as \"integer | default=1 minimum=1\"", src)
		return nil, false
	}
	typ := strings.TrimSpace(parts[0])
	s, err := p.typ(typ, typ, path, 0)
	if err != "" {
		p.errorf(path, "%s", err)
		return nil, false
	}
	if s == nil {
		return nil, false // a broken custom type, reported where it is defined
	}
	if len(parts) == 1 {
		return s, false
	}
	markers, merr := parseMarkers(strings.TrimSpace(parts[1]))
	if merr != nil {
		p.errorf(path, "cannot parse the markers of %q: %v: write key=value pairs separated by spaces, quoting values that hold spaces, such as default=\"a b\"", src, merr)
		return s, false
	}
	return p.applyMarkers(s, typ, markers, path)
}

// typ resolves a SimpleSchema type string. A non-empty error is the problem
// message; a nil schema with no error is a broken custom type.
func (p *ssParser) typ(t, top, path string, depth int) (*Schema, string) {
	if depth > maxTypeDepth {
		return nil, fmt.Sprintf("type nesting too deep (max %d): %q: flatten the type", maxTypeDepth, top)
	}
	switch t {
	case "":
		return nil, "empty type: write a type such as string, integer, boolean, float, object, []string or map[string]string"
	case "string", "integer", "boolean", "number":
		return &Schema{Type: t}, ""
	case "float":
		return &Schema{Type: "number"}, ""
	case "object":
		return &Schema{Type: "object", PreserveUnknown: true}, ""
	}
	if elem, ok := strings.CutPrefix(t, "[]"); ok {
		if elem == "" {
			return nil, fmt.Sprintf("empty slice element type in %q: write the element type, such as []string", t)
		}
		items, err := p.typ(elem, top, path, depth+1)
		if err != "" || items == nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, ""
	}
	if rest, ok := strings.CutPrefix(t, "map["); ok {
		val, ok := strings.CutPrefix(rest, "string]")
		if !ok {
			return nil, fmt.Sprintf("map key must be string in %q: write map[string]T", t)
		}
		if val == "" {
			return nil, fmt.Sprintf("map value type is required in %q: write map[string]T, such as map[string]string", t)
		}
		v, err := p.typ(val, top, path, depth+1)
		if err != "" || v == nil {
			return nil, err
		}
		return &Schema{Type: "object", AdditionalProperties: v}, ""
	}
	if _, ok := p.types[t]; ok {
		return p.custom(t, path), ""
	}
	known := append([]string{"string", "integer", "boolean", "float", "object"}, slices.Sorted(maps.Keys(p.types))...)
	return nil, fmt.Sprintf("unknown type %q%s: use string, integer, boolean, float, object, []T, map[string]T or a type declared in types", t, diag.DidYouMean(t, known))
}

// custom resolves the custom type name, reporting a cycle at path. It
// returns a copy that the caller may change, or nil for a broken type.
func (p *ssParser) custom(name, path string) *Schema {
	if s, ok := p.resolved[name]; ok {
		return s.clone()
	}
	if i := slices.Index(p.stack, name); i >= 0 {
		cycle := append(slices.Clone(p.stack[i:]), name)
		p.errorf(path, "type %q is part of a cycle: %s: break the cycle (kro: cyclic dependency detected loading type %s)", name, strings.Join(cycle, " -> "), name)
		p.resolved[name] = nil
		return nil
	}
	p.stack = append(p.stack, name)
	var s *Schema
	tpath := "types." + name
	switch v := p.types[name].(type) {
	case map[string]any:
		s = p.object(v, tpath)
	case string:
		var required bool
		s, required = p.field(v, tpath)
		if required {
			p.errorf(tpath, "required has no effect on a type alias: put required=true on the field that uses %s", name)
		}
	default:
		p.errorf(tpath, "type %q has a value of type %s: write a map of fields or a SimpleSchema string", name, goKind(v))
	}
	p.stack = p.stack[:len(p.stack)-1]
	if _, done := p.resolved[name]; done { // a cycle through this type was reported
		return nil
	}
	p.resolved[name] = s
	return s.clone()
}

// marker is one key=value marker of a SimpleSchema field, value unquoted.
type marker struct{ key, value string }

// parseMarkers splits SimpleSchema markers the way kro's ParseMarkers does:
// key=value pairs separated by whitespace; a value may be a "quoted" string
// (with \" and \\ escapes) or a [...] / {...} group, which may hold spaces.
func parseMarkers(s string) ([]marker, error) {
	var out []marker
	var key, val strings.Builder
	inKey := true
	inQuotes, escaped := false, false
	depth := 0
	flush := func() {
		out = append(out, marker{strings.TrimSpace(key.String()), processValue(val.String())})
		key.Reset()
		val.Reset()
		inKey = true
	}
	for _, r := range s {
		switch {
		case inKey:
			switch {
			case r == '=':
				if strings.TrimSpace(key.String()) == "" {
					return nil, fmt.Errorf("empty marker key")
				}
				inKey = false
			case (r == ' ' || r == '\t' || r == '\n') && strings.TrimSpace(key.String()) == "":
			case r == ' ' || r == '\t' || r == '\n':
				return nil, fmt.Errorf("marker key '%s' without a value", strings.TrimSpace(key.String()))
			default:
				key.WriteRune(r)
			}
		case escaped:
			val.WriteRune(r)
			escaped = false
		case inQuotes && r == '\\':
			val.WriteRune(r)
			escaped = true
		case r == '"':
			val.WriteRune(r)
			inQuotes = !inQuotes
		case inQuotes:
			val.WriteRune(r)
		case r == '{' || r == '[':
			depth++
			val.WriteRune(r)
		case r == '}' || r == ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unmatched closing bracket/brace")
			}
			val.WriteRune(r)
		case (r == ' ' || r == '\t' || r == '\n') && depth == 0:
			flush()
		default:
			val.WriteRune(r)
		}
	}
	switch {
	case inQuotes:
		return nil, fmt.Errorf("unclosed quote")
	case depth > 0:
		return nil, fmt.Errorf("unclosed bracket/brace")
	case !inKey:
		flush()
	case strings.TrimSpace(key.String()) != "":
		return nil, fmt.Errorf("marker key '%s' without a value", strings.TrimSpace(key.String()))
	}
	return out, nil
}

// processValue strips the quotes of a "quoted" marker value, collapsing only
// \" and \\; any other value is trimmed.
func processValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\') {
				i++
			}
			b.WriteByte(v[i])
		}
		return b.String()
	}
	return v
}

// applyMarkers applies markers to s, a fresh schema of the type string typ.
func (p *ssParser) applyMarkers(s *Schema, typ string, markers []marker, path string) (*Schema, bool) {
	required := false
	var def *string
	bad := func(m marker, format string, args ...any) {
		p.errorf(path, "marker %s=%q: %s", m.key, m.value, fmt.Sprintf(format, args...))
	}
	boolean := func(m marker) (bool, bool) {
		b, err := strconv.ParseBool(m.value)
		if err != nil {
			bad(m, "write true or false")
		}
		return b, err == nil
	}
	integer := func(m marker) *int64 {
		n, err := strconv.ParseInt(m.value, 10, 64)
		if err != nil || n < 0 {
			bad(m, "write a whole number of at least 0")
			return nil
		}
		return &n
	}
	only := func(m marker, want string) bool {
		if s.Type != want {
			bad(m, "%s is only valid for %s types, not %s: remove it or change the type (kro: %s marker is only valid for %s types, got type: %s)",
				m.key, want, typ, m.key, want, typ)
			return false
		}
		return true
	}
	for _, m := range markers {
		switch m.key {
		case "required":
			if b, ok := boolean(m); ok {
				required = b
			}
		case "default":
			v := m.value
			def = &v
		case "description":
			s.Description = m.value
		case "minimum", "maximum":
			f, err := strconv.ParseFloat(m.value, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				// NaN and infinities parse, but a CRD, which is JSON,
				// cannot hold them.
				bad(m, "write a number")
				continue
			}
			if m.key == "minimum" {
				s.Minimum = &f
			} else {
				s.Maximum = &f
			}
		case "enum":
			if s.Type != "string" && s.Type != "integer" {
				bad(m, "enum is only allowed on string and integer fields, not %s: remove enum or change the type (kro: enum values only supported for string and integer types, got type: %s)", typ, typ)
				continue
			}
			s.Enum = nil
			for v := range strings.SplitSeq(m.value, ",") {
				v = strings.TrimSpace(v)
				if v == "" {
					bad(m, "empty enum values are not allowed: list the values separated by commas, such as enum=\"a,b\"")
					s.Enum = nil
					break
				}
				if s.Type == "string" {
					s.Enum = append(s.Enum, v)
					continue
				}
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					bad(m, "%q is not an integer: list whole numbers, such as enum=\"1,2,3\"", v)
					s.Enum = nil
					break
				}
				s.Enum = append(s.Enum, n)
			}
		case "immutable":
			if b, ok := boolean(m); ok {
				s.Immutable = b
			}
		case "validation":
			if strings.TrimSpace(m.value) == "" {
				bad(m, "write a CEL rule, such as validation=\"self > 0\"")
				continue
			}
			s.Validations = append(s.Validations, m.value)
		case "pattern":
			if m.value == "" {
				bad(m, "write a regular expression")
				continue
			}
			if !only(m, "string") {
				continue
			}
			if _, err := regexp.Compile(m.value); err != nil {
				bad(m, "invalid pattern regex: %v", err)
				continue
			}
			s.Pattern = m.value
		case "minLength", "maxLength":
			if !only(m, "string") {
				continue
			}
			if n := integer(m); n != nil {
				if m.key == "minLength" {
					s.MinLength = n
				} else {
					s.MaxLength = n
				}
			}
		case "minItems", "maxItems":
			if !only(m, "array") {
				continue
			}
			if n := integer(m); n != nil {
				if m.key == "minItems" {
					s.MinItems = n
				} else {
					s.MaxItems = n
				}
			}
		case "uniqueItems":
			if !only(m, "array") {
				continue
			}
			if b, ok := boolean(m); ok {
				s.UniqueItems = b
			}
		default:
			p.errorf(path, "unknown marker %q%s: use one of %s (kro: invalid marker key %q: unknown marker: %s)",
				m.key, diag.DidYouMean(m.key, markerNames), strings.Join(markerNames, ", "), m.key, m.key)
		}
	}
	if def != nil {
		if v, err := parseDefault(s, *def); err != "" {
			p.errorf(path, "default %q is not a valid %s: %s", *def, typ, err)
		} else {
			s.Default = v
		}
	}
	return s, required
}

// parseDefault turns a default marker value into the value kro writes into
// the CRD: a string field takes the text as is, any other type is JSON. The
// value must have the field's type and meet its constraints, as the API
// server requires of a CRD default.
func parseDefault(s *Schema, raw string) (any, string) {
	if s.Type == "string" {
		return raw, changeDefault(checkValue(s, raw))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, "write it as JSON, such as " + exampleValue(s)
	}
	v = normalizeJSON(v)
	if !finite(v) {
		return nil, "write a number a CRD can hold (a float64), such as " + exampleValue(s)
	}
	return v, changeDefault(checkValue(s, v))
}

// finite reports whether every number in v is finite: normalizeJSON turns a
// number too large for a float64 into an infinity, which JSON, and so a
// CRD, cannot hold.
func finite(v any) bool {
	switch v := v.(type) {
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	case map[string]any:
		for _, x := range v {
			if !finite(x) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !finite(x) {
				return false
			}
		}
	}
	return true
}

// changeDefault turns why a default does not fit into a message that says
// what to do, or "" when it fits.
func changeDefault(reason string) string {
	if reason == "" {
		return ""
	}
	return reason + "; change the default"
}

// normalizeJSON turns json.Number into int64 (whole numbers) or float64.
func normalizeJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = normalizeJSON(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalizeJSON(v[k])
		}
	}
	return v
}

// exampleValue is an example default marker for the type of s.
func exampleValue(s *Schema) string {
	switch s.Type {
	case "integer":
		return "default=1"
	case "number":
		return "default=1.5"
	case "boolean":
		return "default=true"
	case "array":
		return "default=[]"
	}
	return "default={}"
}

// checkValue checks a static value (a default) against s: its type, and
// enum, minimum, maximum, pattern and lengths. It returns "" when v fits,
// else what is wrong.
func checkValue(s *Schema, v any) string {
	if s == nil || v == nil {
		return ""
	}
	if s.IntOrString {
		if _, ok := v.(string); ok {
			return ""
		}
		if _, ok := asInt(v); ok {
			return ""
		}
		return "expected integer or string, got " + valueKind(v)
	}
	if s.PreserveUnknown && len(s.Properties) == 0 && s.AdditionalProperties == nil && s.Type == "" {
		return ""
	}
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return "expected string, got " + valueKind(v)
		}
		n := int64(utf8.RuneCountInString(str))
		if s.MinLength != nil && n < *s.MinLength {
			return fmt.Sprintf("%q is shorter than minLength %d", str, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Sprintf("%q is longer than maxLength %d", str, *s.MaxLength)
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(str) {
				return fmt.Sprintf("%q does not match pattern %q", str, s.Pattern)
			}
		}
	case "integer":
		if _, ok := asInt(v); !ok {
			return "expected integer, got " + valueKind(v)
		}
	case "number":
		if _, ok := asFloat(v); !ok {
			return "expected number, got " + valueKind(v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "expected boolean, got " + valueKind(v)
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return "expected array, got " + valueKind(v)
		}
		if s.MinItems != nil && int64(len(l)) < *s.MinItems {
			return fmt.Sprintf("has %d items, fewer than minItems %d", len(l), *s.MinItems)
		}
		if s.MaxItems != nil && int64(len(l)) > *s.MaxItems {
			return fmt.Sprintf("has %d items, more than maxItems %d", len(l), *s.MaxItems)
		}
		for i, e := range l {
			if err := checkValue(s.Items, e); err != "" {
				return fmt.Sprintf("[%d]: %s", i, err)
			}
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return "expected object, got " + valueKind(v)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fs := s.Properties[k]
			if fs == nil {
				fs = s.AdditionalProperties
			}
			if fs == nil {
				if s.PreserveUnknown {
					continue
				}
				return fmt.Sprintf("field %q is not in the schema", k)
			}
			if err := checkValue(fs, m[k]); err != "" {
				return fmt.Sprintf("%s: %s", k, err)
			}
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameValue(e, v) }) {
		return fmt.Sprintf("%s is not one of the enum values %s", jsonText(v), jsonText(s.Enum))
	}
	if f, ok := asFloat(v); ok {
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Sprintf("%s is less than minimum %v", jsonText(v), *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Sprintf("%s is greater than maximum %v", jsonText(v), *s.Maximum)
		}
	}
	return ""
}

// jsonText renders a value as JSON for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// sameValue compares two enum values, any numeric type as a number.
func sameValue(a, b any) bool {
	if x, ok := asInt(a); ok {
		y, ok := asInt(b)
		return ok && x == y
	}
	return a == b
}

// asInt reports v as an int64 when it is a whole number of any Go numeric type.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float32:
		return int64(n), float32(int64(n)) == n
	case float64:
		return int64(n), float64(int64(n)) == n && !math.IsInf(n, 0)
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// asFloat reports v as a float64 when it is a number of any Go numeric type.
func asFloat(v any) (float64, bool) {
	if n, ok := asInt(v); ok {
		return float64(n), true
	}
	switch n := v.(type) {
	case float32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// valueKind names the JSON kind of a static value, with the value for scalars.
func valueKind(v any) string {
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
	}
	if n, ok := asInt(v); ok {
		return fmt.Sprintf("integer %d", n)
	}
	if f, ok := asFloat(v); ok {
		return fmt.Sprintf("number %v", f)
	}
	return goKind(v)
}

// goKind names the kind of a value read from YAML or JSON for messages.
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
	}
	if _, ok := asFloat(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
