package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/load"
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
	str := func(s string) *load.Value { return &load.Value{Kind: load.String, OK: true, Str: s} }
	bottom := &load.Value{Kind: load.Bottom}
	v := &load.Value{Kind: load.Struct, OK: true, Fields: []load.Field{
		{Name: "s", Value: str("a")},
		{Name: "b", Value: &load.Value{Kind: load.Bytes, OK: true, Str: "raw"}},
		{Name: "i", Value: &load.Value{Kind: load.Int, OK: true, Int: -7}},
		{Name: "f", Value: &load.Value{Kind: load.Float, OK: true, Float: 2}},
		{Name: "t", Value: &load.Value{Kind: load.Bool, OK: true, Bool: true}},
		{Name: "n", Value: &load.Value{Kind: load.Null, OK: true}},
		{Name: "empty", Value: &load.Value{Kind: load.List, OK: true}},
		{Name: "l", Value: &load.Value{Kind: load.List, OK: true, Elems: []*load.Value{str("x"), bottom, str("y")}}},
		{Name: "not concrete", Value: bottom},
		{Name: "struct with an error below", Value: &load.Value{Kind: load.Struct, Fields: []load.Field{{Name: "x", Value: bottom}}}},
	}}
	want := map[string]any{
		"s": "a", "b": "raw", "i": int64(-7), "f": float64(2), "t": true, "n": nil,
		"empty": []any{}, "l": []any{"x", "y"},
	}
	if diff := cmp.Diff(want, Value(v)); diff != "" {
		t.Errorf("Value (-want +got):\n%s", diff)
	}
}

func TestIsReleaseTag(t *testing.T) {
	tests := []struct {
		rev  string
		want bool
	}{
		{"v1.2.3", true},
		{"v0.11.0", true},
		{"v10.0.100", true},
		{"1.2.3", false},
		{"v1.2", false},
		{"v1", false},
		{"v", false},
		{"", false},
		{"HEAD", false},
		{"main", false},
		{"vv1.2.3", false},
		{"V1.2.3", false},
		{"v01.2.3", false},
		{"release-v1.2.3", false},
		{"v1.2.3-rc.1", true},
		{"v1.2.3+build.5", false},
		{"v1.2.3-rc.1+build.5", false},
	}
	for _, tt := range tests {
		if got := IsReleaseTag(tt.rev); got != tt.want {
			t.Errorf("IsReleaseTag(%q) = %v, want %v", tt.rev, got, tt.want)
		}
	}
}
