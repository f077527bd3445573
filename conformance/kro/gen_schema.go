package conformance

import (
	"fmt"
	"strings"
)

// This file generates family 1: SimpleSchema fields (types, markers,
// custom types), in the instance spec of an RGD with nothing else to
// refuse.

// rgdObject wraps an instance schema and resources into a
// ResourceGraphDefinition as platc renders one.
func rgdObject(schema map[string]any, resources []any) map[string]any {
	spec := map[string]any{"schema": schema}
	if resources != nil {
		spec["resources"] = resources
	}
	return map[string]any{
		"apiVersion": "kro.run/v1alpha1",
		"kind":       "ResourceGraphDefinition",
		"metadata":   map[string]any{"name": "conformance"},
		"spec":       spec,
	}
}

// GenSimpleSchema is family 1's generator.
func GenSimpleSchema(g *Gen) map[string]any {
	s := &schemaGen{Gen: g}
	if g.Chance(0.3) {
		s.types = map[string]any{}
		for i := range 1 + g.IntN(2) {
			name := Pick(g, "Person", "Server", "Address", "Port", "item", "Item2")
			if i == 1 && g.Chance(0.3) {
				name = "Person" // a duplicate name overwrites: fine
			}
			s.declared = append(s.declared, name)
		}
		for _, name := range s.declared {
			if g.Chance(0.4) {
				s.types[name] = s.field(1)
			} else {
				s.types[name] = s.fields(1 + g.IntN(2))
			}
		}
	}
	schema := map[string]any{"apiVersion": "v1alpha1", "kind": "Conformance", "spec": s.fields(1 + g.IntN(3))}
	if s.types != nil {
		schema["types"] = s.types
	}
	return rgdObject(schema, nil)
}

type schemaGen struct {
	*Gen
	types    map[string]any
	declared []string
}

// fields is an object of n fields; one may be a nested object.
func (s *schemaGen) fields(n int) map[string]any {
	m := map[string]any{}
	for i := range n {
		name := fmt.Sprintf("f%d", i)
		if s.Chance(0.05) {
			name = Pick(s.Gen, "a-b", "x_y", "_x", "in", "self", "kind", "metadata", "Name", "a.b", "1a")
		}
		if s.Chance(0.15) {
			m[name] = s.fields(1 + s.IntN(2))
		} else {
			m[name] = s.field(0)
		}
	}
	return m
}

// field is a SimpleSchema field string: a type, then markers.
func (s *schemaGen) field(depth int) string {
	typ := s.typ(depth)
	if s.Chance(0.2) {
		return typ
	}
	base := strings.TrimSpace(typ)
	var ms []string
	for range 1 + s.IntN(3) {
		ms = append(ms, s.marker(base))
	}
	sep := " | "
	switch {
	case s.Chance(0.03):
		sep = "|"
	case s.Chance(0.02):
		sep = " |  "
	case s.Chance(0.02):
		return typ + " | " + ms[0] + " | " + strings.Join(ms[1:], " ")
	}
	return typ + sep + strings.Join(ms, " ")
}

var atomicTypes = []string{"string", "integer", "boolean", "float"}

// typ is a type string, sometimes one kro does not have.
func (s *schemaGen) typ(depth int) string {
	switch r := s.Float64(); {
	case r < 0.62 || depth > 3:
		return Pick(s.Gen, atomicTypes...)
	case r < 0.66:
		return Pick(s.Gen, "number", "object", "int", "bool", "String", "Widget", "double")
	case r < 0.78:
		return "[]" + s.typ(depth+1)
	case r < 0.88:
		return "map[string]" + s.typ(depth+1)
	case r < 0.95 && len(s.declared) > 0:
		return Pick(s.Gen, s.declared...)
	default:
		return Pick(s.Gen, "", "[]", "map[string]", "map[int]string", " string ", "[] string", "map[string] integer",
			"[]map[string]string", "map[string][]integer", strings.Repeat("[]", 16)+"string", strings.Repeat("[]", 17)+"string",
			"[]object", "map[string]object", "Person", "[]Person", "map[string]Server")
	}
}

// marker is one key=value marker for a field of type typ: mostly one
// that fits the type, so that many cases are accepted, otherwise any.
func (s *schemaGen) marker(typ string) string {
	g := s.Gen
	if g.Chance(0.65) {
		return s.fitting(typ)
	}
	switch r := g.Float64(); {
	case r < 0.12:
		return "required=" + Pick(g, "true", "false", "true", "yes", "TRUE", "1", `""`, "t")
	case r < 0.32:
		return "default=" + s.defaultValue(typ)
	case r < 0.38:
		return "description=" + Pick(g, `"a field"`, `"quote \" inside"`, `"unicode é 日本"`, "plain", `""`, `"tab\there"`, `"back\\slash"`)
	case r < 0.46:
		return "enum=" + Pick(g, `"a,b,c"`, `"a, b"`, `"a,,b"`, `","`, "x", `"1,2,3"`, `"1,a"`, `"small,large"`, `" a ,b"`, `"true,false"`, `"1.5,2"`)
	case r < 0.53:
		return Pick(g, "minimum", "maximum") + "=" + Pick(g, "0", "1", "-1", "1.5", "1e2", "abc", "10", "NaN", "Inf", "9223372036854775808")
	case r < 0.58:
		return "pattern=" + Pick(g, `"^[a-z]+$"`, `"["`, `"(?=a)"`, `"\\d+"`, `"^$"`, `"a{2,}"`, `""`, `"^\\w+@\\w+$"`, `"[[:alpha:]]"`, `"\\p{L}+"`)
	case r < 0.68:
		return "validation=" + s.rule(typ)
	case r < 0.72:
		return "immutable=" + Pick(g, "true", "false", "yes")
	case r < 0.77:
		return "listType=" + Pick(g, "atomic", "set", "map", "list")
	case r < 0.79:
		return "listMapKey=" + Pick(g, "name", "f0", "key")
	case r < 0.84:
		return "uniqueItems=" + Pick(g, "true", "false", "1", "yes")
	case r < 0.90:
		return Pick(g, "minLength", "maxLength") + "=" + Pick(g, "0", "3", "-1", "a", "1.5", "10")
	case r < 0.95:
		return Pick(g, "minItems", "maxItems") + "=" + Pick(g, "0", "2", "-1", "x", "5")
	default:
		return Pick(g, "foo=bar", "Required=true", "defaults=1", "required", "=true", `default="unclosed`, "default=[1,2",
			"default={", "default=}", `description="a" "b"`, "min=1", "max_length=3", "enum=", "default=")
	}
}

// fitting is a marker that suits a field of type typ.
func (s *schemaGen) fitting(typ string) string {
	g := s.Gen
	common := []string{"required=true", "required=false", `description="a field"`, "immutable=true", `description="é \"q\" \\"`}
	var own []string
	switch {
	case typ == "string":
		own = []string{"default=" + s.defaultValue(typ), `enum="a,b,c"`, `pattern="^[a-z]+$"`, "minLength=1", "maxLength=10",
			"validation=" + s.rule(typ), `default="a"`, `enum="small,large"`}
	case typ == "integer":
		own = []string{"default=" + s.defaultValue(typ), `enum="1,2,3"`, "minimum=0", "maximum=100", "validation=" + s.rule(typ), "default=1"}
	case typ == "float":
		own = []string{"default=" + s.defaultValue(typ), "minimum=0.5", "maximum=10", "validation=" + s.rule(typ), "default=1.5"}
	case typ == "boolean":
		own = []string{"default=true", "default=false", "validation=" + s.rule(typ)}
	case strings.HasPrefix(typ, "[]"):
		own = []string{"uniqueItems=true", "minItems=1", "maxItems=3", "listType=atomic", "validation=" + s.rule(typ), `default=["a"]`, "default=[]",
			"listType=set", "listType=map listMapKey=name"}
	case strings.HasPrefix(typ, "map[") || typ == "object":
		own = []string{"default={}", "validation=" + s.rule(typ), `default={"a":"b"}`}
	default:
		own = []string{"default={}"}
	}
	return Pick(g, append(common, own...)...)
}

// defaultValue is a default marker value for a field of type typ, often
// one that does not fit it, quoted or not.
func (s *schemaGen) defaultValue(typ string) string {
	g := s.Gen
	var v string
	switch {
	case typ == "string" && g.Chance(0.8):
		v = Pick(g, "small", "", "a b", `a"b`, `a\b`, "é", "日本", "🙂", `\n`, "%s", `{"a":1}`, "1", "true", `back\`, `x\"y`, "${schema.spec.f0}", "eu-west-1")
	case typ == "integer" && g.Chance(0.8):
		v = Pick(g, "0", "1", "-1", "42", "1.5", "abc", "9223372036854775807", "9223372036854775808", "1e3", "007", `"1"`)
	case typ == "float" && g.Chance(0.8):
		v = Pick(g, "1.5", "1", "-0.5", "1e3", "NaN", "Inf", "abc", ".5", "1e400")
	case typ == "boolean" && g.Chance(0.8):
		v = Pick(g, "true", "false", "True", "1", "yes", "FALSE")
	case strings.HasPrefix(typ, "[]") && g.Chance(0.8):
		v = Pick(g, `["a","b"]`, `[]`, `[1,2]`, `a,b`, `["a"`, `["a","a"]`, `[{"name":"x"}]`, `[true]`)
	case (strings.HasPrefix(typ, "map[") || typ == "object") && g.Chance(0.8):
		v = Pick(g, `{}`, `{"a":"b"}`, `{"a":1}`, `{a:b}`, `{"a":{"b":"c"}}`, `[]`)
	default:
		v = Pick(g, "x", "1", "true", "{}", "[]", "", `"q"`, "1.5")
	}
	return s.quote(v)
}

// quote writes v as a marker value: quoted (escaping quotes and
// backslashes) when it needs it, and sometimes when it does not; sometimes
// wrongly.
func (s *schemaGen) quote(v string) string {
	needs := v == "" || strings.ContainsAny(v, " \t\"\\")
	switch {
	case s.Chance(0.05):
		return `"` + v + `"` // unescaped
	case needs || s.Chance(0.3):
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	return v
}

// rule is a validation rule for a field of type typ: one that fits, one
// that does not type-check, or one that does not parse.
func (s *schemaGen) rule(typ string) string {
	g := s.Gen
	fits := map[string][]string{
		"string":  {"self.size() > 0", "self.startsWith('a')", `self != ""`, "self.matches('^[a-z]+$')", "self == oldSelf", "isURL(self)", "self.lowerAscii() == self"},
		"integer": {"self > 0", "self % 2 == 0", "self <= 100", "self == oldSelf", "int(self) >= 0"},
		"float":   {"self > 0.0", "self < 1.5", "self >= 0"},
		"boolean": {"self == true", "self || !self"},
	}
	var cands []string
	switch {
	case fits[typ] != nil:
		cands = fits[typ]
	case strings.HasPrefix(typ, "[]"):
		cands = []string{"self.size() <= 3", "self.all(x, x != '')", "size(self) > 0", "self.exists(x, true)"}
	case strings.HasPrefix(typ, "map["):
		cands = []string{"self.all(k, k != '')", "self.size() < 5", "'a' in self"}
	default:
		cands = []string{"has(self.f0)", "self.size() > 0", "true"}
	}
	// Rules whose estimated cost the API server weighs against its
	// limits: per rule, and for the CRD as a whole (nested iteration
	// over lists and strings that no maxItems or maxLength bounds).
	costly := []string{"self.all(x, self.all(y, x == y))", "self.all(x, x.matches('^[a-z]+$'))", "self.exists(x, x.contains('a'))",
		"self.all(x, x.all(y, y != ''))", "self.map(x, self.filter(y, y == x)).size() > 0", "self.all(k, self[k].size() < 3)",
		"self.matches('^[a-z]+$') && self.contains('ab')", "self.split('-').all(x, x.size() < 3)", "self.all(x, self.exists(y, x == y))"}
	var r string
	switch x := g.Float64(); {
	case x < 0.08:
		r = Pick(g, costly...)
	case x < 0.75:
		r = Pick(g, cands...)
	case x < 0.92:
		r = Pick(g, "self > 0", "self.size() > 0", "self.startsWith('a')", "self == true", "self.all(x, x > 0)", "1", "'s'", "schema.spec.f0 == 1")
	default:
		r = Pick(g, "self >", "", " ", "self ==", "(self", "foo > 1", "self.nope()", "self ? 1 : 2")
	}
	return s.quote(r)
}
