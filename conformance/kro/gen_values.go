package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file generates family 4: instance values against the CRD kro
// generates. A case is a stack's instance schema (fields with markers that
// both sides accept, or the schema is skipped) and a client's instance
// spec: a valid value with one or two edges (a boundary, a wrong type, a
// missing required field, an unknown field, a duplicate, a value a
// validation rule refuses...).

// field is one field of a generated instance schema.
type field struct {
	name     string
	typ      string   // string, integer, float, boolean, []string, []integer, map[string]string, map[string]integer, object, struct
	fields   []*field // of a struct
	required bool
	def      any // the default, nil for none
	enum     []string
	min, max *float64
	minLen   *int64
	maxLen   *int64
	minItems *int64
	maxItems *int64
	pattern  string
	unique   bool
	rule     string // a validation rule
}

// simpleSchema renders f as SimpleSchema.
func (f *field) simpleSchema() any {
	if f.typ == "struct" {
		m := map[string]any{}
		for _, c := range f.fields {
			m[c.name] = c.simpleSchema()
		}
		return m
	}
	var ms []string
	if f.required {
		ms = append(ms, "required=true")
	}
	if f.def != nil {
		if s, ok := f.def.(string); ok {
			ms = append(ms, "default="+strconv.Quote(s))
		} else {
			b, _ := json.Marshal(f.def)
			ms = append(ms, "default="+string(b))
		}
	}
	if f.enum != nil {
		ms = append(ms, `enum="`+strings.Join(f.enum, ",")+`"`)
	}
	num := func(k string, v *float64) {
		if v != nil {
			ms = append(ms, k+"="+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	num("minimum", f.min)
	num("maximum", f.max)
	for _, x := range []struct {
		k string
		v *int64
	}{{"minLength", f.minLen}, {"maxLength", f.maxLen}, {"minItems", f.minItems}, {"maxItems", f.maxItems}} {
		if x.v != nil {
			ms = append(ms, fmt.Sprintf("%s=%d", x.k, *x.v))
		}
	}
	if f.pattern != "" {
		ms = append(ms, "pattern="+strconv.Quote(f.pattern))
	}
	if f.unique {
		ms = append(ms, "uniqueItems=true")
	}
	if f.rule != "" {
		ms = append(ms, "validation="+strconv.Quote(f.rule))
	}
	if len(ms) == 0 {
		return f.typ
	}
	return f.typ + " | " + strings.Join(ms, " ")
}

func ptr[T any](v T) *T { return &v }

// genFields generates the fields of an instance schema.
func genFields(g *Gen, depth int) []*field {
	var out []*field
	for i := range 1 + g.IntN(3) {
		f := &field{name: fmt.Sprintf("f%d", i)}
		typs := []string{"string", "integer", "float", "boolean", "[]string", "[]integer", "map[string]string", "map[string]integer", "object"}
		if depth == 0 {
			typs = append(typs, "struct", "string", "integer")
		}
		f.typ = Pick(g, typs...)
		switch f.typ {
		case "struct":
			f.fields = genFields(g, depth+1)
		case "string":
			switch g.IntN(6) {
			case 0:
				f.enum = []string{"small", "large"}
			case 1:
				f.minLen, f.maxLen = ptr(int64(1+g.IntN(2))), ptr(int64(3+g.IntN(3)))
			case 2:
				f.pattern = Pick(g, "^[a-z]+$", "^[a-z0-9-]*$", "^\\d{2}$")
			case 3:
				f.rule = Pick(g, "self.size() > 0", "self.startsWith('a')", "self != 'forbidden'", "isURL(self) || self == 'abc'",
					"!isQuantity(self) || quantity(self).isLessThan(quantity('1Gi'))", "self.lowerAscii() == self")
			}
		case "integer", "float":
			switch g.IntN(4) {
			case 0:
				f.min, f.max = ptr(float64(g.IntN(3))), ptr(float64(5+g.IntN(5)))
			case 1:
				f.min = ptr(Pick(g, 0.0, 1.0, -1.0, 0.5))
			case 2:
				f.rule = Pick(g, "self > 0", "self % 2 == 0", "self <= 100")
				if f.typ == "float" {
					f.rule = Pick(g, "self > 0.0", "self <= 100.0")
				}
			}
			if f.typ == "integer" && g.Chance(0.15) {
				f.enum = []string{"1", "2", "3"}
			}
		case "[]string", "[]integer":
			switch g.IntN(4) {
			case 0:
				f.unique = true
			case 1:
				f.minItems, f.maxItems = ptr(int64(g.IntN(2))), ptr(int64(2+g.IntN(2)))
			case 2:
				f.rule = Pick(g, "self.size() <= 3", "self.all(x, self.exists(y, x == y))", "self == oldSelf || self.size() < 4")
			}
		case "map[string]string", "map[string]integer":
			if g.Chance(0.3) {
				f.rule = "self.size() < 3"
			}
		}
		if f.typ != "struct" && g.Chance(0.25) {
			f.required = true
		} else if f.typ != "struct" && g.Chance(0.3) {
			f.def = validValue(g, f)
		}
		out = append(out, f)
	}
	return out
}

// validValue is a value f takes.
func validValue(g *Gen, f *field) any {
	switch f.typ {
	case "struct":
		m := map[string]any{}
		for _, c := range f.fields {
			if c.required || g.Chance(0.6) {
				m[c.name] = validValue(g, c)
			}
		}
		return m
	case "string":
		switch {
		case f.enum != nil:
			return Pick(g, f.enum...)
		case f.pattern == "^\\d{2}$":
			return "42"
		case f.rule == "self.startsWith('a')":
			return "abc"
		}
		s := Pick(g, "abc", "ab", "web", "abcd")
		if f.minLen != nil && int64(len(s)) < *f.minLen || f.maxLen != nil && int64(len(s)) > *f.maxLen {
			s = "abc"
		}
		return s
	case "integer":
		if f.enum != nil {
			return int64(2)
		}
		lo, hi := 1, 100
		if f.min != nil {
			lo = int(math.Ceil(*f.min))
		}
		if f.max != nil {
			hi = int(*f.max)
		}
		v := int64(lo + g.IntN(max(1, hi-lo+1)))
		if f.rule == "self % 2 == 0" && v%2 != 0 {
			v++
			if f.max != nil && float64(v) > *f.max {
				v -= 2
			}
		}
		if f.rule == "self > 0" && v <= 0 {
			v = 1
		}
		return v
	case "float":
		if f.min != nil {
			return *f.min + 0.5
		}
		return 1.5
	case "boolean":
		return g.Chance(0.5)
	case "[]string":
		return []any{"a", "b"}
	case "[]integer":
		return []any{int64(1), int64(2)}
	case "map[string]string":
		return map[string]any{"k": "v"}
	case "map[string]integer":
		return map[string]any{"k": int64(1)}
	case "object":
		return map[string]any{"any": map[string]any{"thing": []any{int64(1), "x"}}}
	}
	panic(f.typ)
}

// edgeValue is a value at or past an edge of what f takes.
func edgeValue(g *Gen, f *field) any {
	wrong := []any{"1", int64(1), 1.5, 1.0, true, nil, []any{"a"}, map[string]any{"a": "b"}, "", int64(0), int64(-1), math.Pow(2, 53) + 2, "é"}
	if g.Chance(0.25) {
		return Pick(g, wrong...)
	}
	switch f.typ {
	case "struct":
		m, _ := validValue(g, f).(map[string]any)
		if len(f.fields) > 0 && g.Chance(0.6) {
			c := Pick(g, f.fields...)
			m[c.name] = edgeValue(g, c)
		} else {
			m[Pick(g, "unknown", "F0", "f9")] = "x"
		}
		return m
	case "string":
		var cands []any
		if f.enum != nil {
			cands = append(cands, "Small", "medium", " small", "small,large", "")
		}
		if f.minLen != nil {
			cands = append(cands, strings.Repeat("a", int(*f.minLen)-1), strings.Repeat("a", int(*f.minLen)), strings.Repeat("é", int(*f.minLen)))
		}
		if f.maxLen != nil {
			cands = append(cands, strings.Repeat("a", int(*f.maxLen)), strings.Repeat("a", int(*f.maxLen)+1), strings.Repeat("é", int(*f.maxLen)), strings.Repeat("🙂", int(*f.maxLen)+1))
		}
		if f.pattern != "" {
			cands = append(cands, "ABC", "a-b", "12", "123", "", "a\nb", "٤٢")
		}
		if f.rule != "" {
			cands = append(cands, "", "b", "forbidden", "a", "https://a.example.com/x", "2Gi", "512Mi", "ABC", "not a url")
		}
		cands = append(cands, "", "日本語", strings.Repeat("x", 300))
		return Pick(g, cands...)
	case "integer", "float":
		var cands []any
		if f.min != nil {
			cands = append(cands, *f.min, *f.min-1, int64(math.Floor(*f.min))-1, int64(math.Ceil(*f.min)), *f.min-0.5)
		}
		if f.max != nil {
			cands = append(cands, *f.max, *f.max+1, int64(*f.max)+1, int64(*f.max), *f.max+0.5)
		}
		if f.enum != nil {
			cands = append(cands, int64(4), int64(0), "1", 2.0)
		}
		if f.rule != "" {
			cands = append(cands, int64(0), int64(-2), int64(3), int64(101), 0.0, 100.5)
		}
		cands = append(cands, int64(0), int64(math.MaxInt64), 2.5, 3.0, -0.0)
		return Pick(g, cands...)
	case "boolean":
		return Pick[any](g, "true", int64(1), "yes", nil, false)
	case "[]string", "[]integer":
		el := func(i int) any {
			if f.typ == "[]string" {
				return fmt.Sprint("a", i%2)
			}
			return int64(i % 2)
		}
		n := g.IntN(5)
		l := []any{}
		for i := range n {
			l = append(l, el(i))
		}
		return Pick[any](g, l, []any{el(0), el(0)}, []any{}, []any{el(0), el(1), el(2), el(3)}, []any{nil}, []any{el(0), int64(5), "x"}, []any{[]any{el(0)}})
	case "map[string]string", "map[string]integer":
		return Pick[any](g, map[string]any{}, map[string]any{"k": int64(1)}, map[string]any{"k": "v"}, map[string]any{"a": "1", "b": "2", "c": "3"}, map[string]any{"": "x"}, map[string]any{"k": nil}, map[string]any{"k": 1.5})
	case "object":
		return Pick[any](g, map[string]any{}, "x", []any{}, map[string]any{"nested": map[string]any{"deep": nil}})
	}
	panic(f.typ)
}

// genInstanceSpec is a client's instance spec for fields: valid, then
// with one or two fields at an edge, a missing field, or an unknown one.
func genInstanceSpec(g *Gen, fields []*field) map[string]any {
	spec := map[string]any{}
	for _, f := range fields {
		if f.required || g.Chance(0.6) {
			spec[f.name] = validValue(g, f)
		}
	}
	for range 1 + g.IntN(2) {
		f := Pick(g, fields...)
		switch r := g.Float64(); {
		case r < 0.1:
			delete(spec, f.name)
		case r < 0.17:
			spec[Pick(g, "unknown", "F0", "f0x", "values", "project")] = Pick[any](g, "x", int64(1), map[string]any{"a": "b"})
		default:
			spec[f.name] = edgeValue(g, f)
		}
	}
	if g.Chance(0.1) {
		return map[string]any{} // nothing set: only required fields and defaults matter
	}
	return spec
}

// cueValue writes v as CUE: JSON, except that a float always has a
// point, as a user writes 1.0 for a float.
func cueValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEIN") {
			s += ".0"
		}
		return s
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = cueValue(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, cueValue(k)+": "+cueValue(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	panic(fmt.Sprintf("cueValue %T", v))
}
