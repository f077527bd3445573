package model

import (
	"testing"

	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"
)

func TestSplitValuesPath(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"a", []string{"a"}},
		{"a.b.c", []string{"a", "b", "c"}},
		{"config.redis.host", []string{"config", "redis", "host"}},
		{`a\.b.c`, []string{"a.b", "c"}},
		{`a.b\.c`, []string{"a", "b.c"}},
		{`a\.b\.c`, []string{"a.b.c"}},
		{`\.a`, []string{".a"}},
		{`a\.`, []string{"a."}},
		{`a\`, []string{`a\`}},   // a trailing backslash is a backslash
		{`a\b`, []string{`a\b`}}, // so is one before anything but a dot
		{"a-b.c_d", []string{"a-b", "c_d"}},
		{"", nil},
		{".", nil},
		{".a", nil},
		{"a.", nil},
		{"a..b", nil},
		{`a.\`, []string{"a", `\`}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got := SplitValuesPath(tt.key)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitValuesPath(%q) (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		name string
		cue  string
		want any
	}{
		{"int", `42`, int64(42)},
		{"negative int", `-7`, int64(-7)},
		{"int too large for int64 becomes float64", `9223372036854775808`, float64(9223372036854775808)},
		{"float with zero fraction stays float64", `2.0`, float64(2)},
		{"float", `0.5`, 0.5},
		{"exponent is a float", `1e3`, float64(1000)},
		{"string", `"nvidia"`, "nvidia"},
		{"empty string", `""`, ""},
		{"bytes become a string", `'raw'`, "raw"},
		{"true", `true`, true},
		{"false", `false`, false},
		{"null", `null`, nil},
		{"empty list", `[]`, []any{}},
		{"empty struct", `{}`, map[string]any{}},
		{"list of mixed values", `[1, "a", null, true, 1.5]`, []any{int64(1), "a", nil, true, 1.5}},
		{
			"nested structs and lists",
			`{image: {tag: "v1.2.3", pullPolicy: "IfNotPresent"}, replicas: 3, args: ["--a", {b: [2.0]}], "dotted.key": {}}`,
			map[string]any{
				"image":      map[string]any{"tag": "v1.2.3", "pullPolicy": "IfNotPresent"},
				"replicas":   int64(3),
				"args":       []any{"--a", map[string]any{"b": []any{float64(2)}}},
				"dotted.key": map[string]any{},
			},
		},
		{
			"optional, definition and hidden fields are left out",
			`{a: 1, b?: 2, #c: 3, _d: 4}`,
			map[string]any{"a": int64(1)},
		},
		{"default of an int", `*1 | int`, int64(1)},
		{"default of a string", `*"x" | string`, "x"},
		{"defaults inside a struct", `{replicas: *1 | int, tag: "v1"}`, map[string]any{"replicas": int64(1), "tag": "v1"}},
		{"default of a list", `[...int] | *[1, 2]`, []any{int64(1), int64(2)}},
		{"a field that is not concrete is left out", `{a: int, b: 1}`, map[string]any{"b": int64(1)}},
		{"an element that is not concrete is left out", `[int, 1]`, []any{int64(1)}},
	}
	ctx := cuecontext.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ctx.CompileString(tt.cue)
			if err := v.Err(); err != nil {
				t.Fatalf("compiling %s: %v", tt.cue, err)
			}
			if diff := cmp.Diff(tt.want, Value(v)); diff != "" {
				t.Errorf("Value(%s) (-want +got):\n%s", tt.cue, diff)
			}
		})
	}
}
