package kro

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSimpleSchema(t *testing.T) {
	spec := map[string]any{
		"name":     "string | required=true description=\"the name\"",
		"ports":    "[]integer | default=[80]",
		"labels":   "map[string]string",
		"config":   "object",
		"ratio":    "float | minimum=0 maximum=1",
		"tags":     `[]string | uniqueItems=true minItems=1 maxItems=10 description="1-10 unique tags"`,
		"size":     `integer | immutable=true validation="self > 0" enum="1,2,3" default=2`,
		"mode":     `string | enum="debug, info" default="info" pattern="^[a-z]+$" minLength=1 maxLength=5`,
		"matrix":   "[][]integer",
		"owner":    "Person",
		"ingress":  map[string]any{"enabled": "boolean | default=false", "host": "string"},
		"volumes":  "map[string][]Person",
		"sentence": `string | default="say \"hi\" | twice"`,
	}
	types := map[string]any{"Person": map[string]any{"name": "string | required=true", "age": "integer"}}
	s, probs := ParseSimpleSchema(spec, types)
	want := []Problem{{Path: "spec.sentence", Msg: `"string | default=\"say \\\"hi\\\" | twice\"" has more than one "|": write the type, one "|", then space-separated markers, such as "integer | default=1 minimum=1"`}}
	if diff := cmp.Diff(want, probs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	person := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name": map[string]any{"type": "string"},
		"age":  map[string]any{"type": "integer"},
	}}
	wantSchema := map[string]any{
		"type":     "object",
		"required": []any{"name"},
		"default":  map[string]any{},
		"properties": map[string]any{
			"name":   map[string]any{"type": "string", "description": "the name"},
			"ports":  map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "default": []any{int64(80)}},
			"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"config": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
			"ratio":  map[string]any{"type": "number", "minimum": 0.0, "maximum": 1.0},
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "x-kubernetes-list-type": "set",
				"minItems": int64(1), "maxItems": int64(10), "description": "1-10 unique tags"},
			"size": map[string]any{"type": "integer", "enum": []any{int64(1), int64(2), int64(3)}, "default": int64(2),
				"x-kubernetes-validations": []any{
					map[string]any{"rule": "self == oldSelf", "message": "field is immutable"},
					map[string]any{"rule": "self > 0", "message": "validation failed"},
				}},
			"mode": map[string]any{"type": "string", "enum": []any{"debug", "info"}, "default": "info", "pattern": "^[a-z]+$",
				"minLength": int64(1), "maxLength": int64(5)},
			"matrix": map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
			"owner":  person,
			"ingress": map[string]any{"type": "object", "default": map[string]any{}, "properties": map[string]any{
				"enabled": map[string]any{"type": "boolean", "default": false},
				"host":    map[string]any{"type": "string"},
			}},
			"volumes":  map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "array", "items": person}},
			"sentence": map[string]any{},
		},
	}
	if diff := cmp.Diff(wantSchema, s.OpenAPI()); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

func TestParseSimpleSchemaProblems(t *testing.T) {
	tests := []struct {
		field string
		want  string
	}{
		{"", `empty type: write a type such as string, integer, boolean, float, object, []string or map[string]string`},
		{"[]", `empty slice element type in "[]": write the element type, such as []string`},
		{"map[int]string", `map key must be string in "map[int]string": write map[string]T`},
		{"map[string]", `map value type is required in "map[string]": write map[string]T, such as map[string]string`},
		{"[][][][][][][][][][][][][][][][][]string", `type nesting too deep (max 16): "[][][][][][][][][][][][][][][][][]string": flatten the type`},
		{`string | default="x`, `cannot parse the markers of "string | default=\"x": unclosed quote: write key=value pairs separated by spaces, quoting values that hold spaces, such as default="a b"`},
		{`[]string | default=[1`, `cannot parse the markers of "[]string | default=[1": unclosed bracket/brace: write key=value pairs separated by spaces, quoting values that hold spaces, such as default="a b"`},
		{`string | required`, `cannot parse the markers of "string | required": marker key 'required' without a value: write key=value pairs separated by spaces, quoting values that hold spaces, such as default="a b"`},
		{`string | =x`, `cannot parse the markers of "string | =x": empty marker key: write key=value pairs separated by spaces, quoting values that hold spaces, such as default="a b"`},
		{`string | required=yes`, `marker required="yes": write true or false`},
		{`integer | minimum=one`, `marker minimum="one": write a number`},
		{`number | minimum=NaN`, `marker minimum="NaN": write a number`},
		{`number | maximum=-Inf`, `marker maximum="-Inf": write a number`},
		{`number | maximum=1e400`, `marker maximum="1e400": write a number`},
		{`integer | enum="1,x"`, `marker enum="1,x": "x" is not an integer: list whole numbers, such as enum="1,2,3"`},
		{`string | enum="a,,b"`, `marker enum="a,,b": empty enum values are not allowed: list the values separated by commas, such as enum="a,b"`},
		{`string | pattern="("`, "marker pattern=\"(\": invalid pattern regex: error parsing regexp: missing closing ): `(`"},
		{`string | minLength=-1`, `marker minLength="-1": write a whole number of at least 0`},
		{`integer | default=1.5`, `default "1.5" is not a valid integer: expected integer, got number 1.5; change the default`},
		{`boolean | default=yes`, `default "yes" is not a valid boolean: write it as JSON, such as default=true`},
		{`number | default=1e400`, `default "1e400" is not a valid number: write a number a CRD can hold (a float64), such as default=1.5`},
		{`[]number | default=[1, 1e999]`, `default "[1, 1e999]" is not a valid []number: write a number a CRD can hold (a float64), such as default=[]`},
		{`[]string | default=["a", 1]`, `default "[\"a\", 1]" is not a valid []string: [1]: expected string, got integer 1; change the default`},
		{`string | maxLength=2 default="abc"`, `default "abc" is not a valid string: "abc" is longer than maxLength 2; change the default`},
		{`integer | maximum=3 default=4`, `default "4" is not a valid integer: 4 is greater than maximum 3; change the default`},
		{`integer | validation=""`, `marker validation="": write a CEL rule, such as validation="self > 0"`},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			_, got := ParseSimpleSchema(map[string]any{"f": tt.field}, nil)
			want := []Problem{{Path: "spec.f", Msg: tt.want}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("not a string or map", func(t *testing.T) {
		_, got := ParseSimpleSchema(map[string]any{"f": 3}, map[string]any{"T": []any{}})
		want := []Problem{
			{Path: "types.T", Msg: `type "T" has a value of type list: write a map of fields or a SimpleSchema string`},
			{Path: "spec.f", Msg: `field "f" has a value of type number: write a SimpleSchema string such as "string | required=true", or a map of fields (kro: unknown type in schema)`},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	})
}
