package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMapKeepsTheOrderKeysWereSetIn(t *testing.T) {
	m := NewMap().Set("kind", "Application").Set("apiVersion", "v1").Set("metadata", nil).Set("spec", 1)
	want := []any{"kind", "Application", "apiVersion", "v1", "metadata", nil, "spec", 1}
	if diff := cmp.Diff(want, entries(m)); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if got := m.Len(); got != 4 {
		t.Errorf("Len() = %d, want 4", got)
	}
}

func TestMapSetReplacesInPlace(t *testing.T) {
	m := NewMap().Set("a", 1).Set("b", 2).Set("c", 3)
	if got := m.Set("b", "two"); got != m {
		t.Errorf("Set returned %p, want the map itself, %p", got, m)
	}
	want := []any{"a", 1, "b", "two", "c", 3}
	if diff := cmp.Diff(want, entries(m)); diff != "" {
		t.Errorf("Each after replacing b (-want +got):\n%s", diff)
	}
	if got := m.Len(); got != 3 {
		t.Errorf("Len() = %d, want 3", got)
	}
}

func TestMapGet(t *testing.T) {
	inner := NewMap().Set("x", 1)
	m := NewMap().Set("name", "web").Set("nothing", nil).Set("inner", inner)
	tests := []struct {
		key  string
		want any
	}{
		{"name", "web"},
		{"nothing", nil},
		{"missing", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := m.Get(tt.key); got != tt.want {
			t.Errorf("Get(%q) = %#v, want %#v", tt.key, got, tt.want)
		}
	}
	if got := m.Get("inner"); got != inner {
		t.Errorf("Get(\"inner\") = %p, want the map that was set, %p", got, inner)
	}
}

func TestEmptyMap(t *testing.T) {
	m := NewMap()
	if got := m.Len(); got != 0 {
		t.Errorf("Len() = %d, want 0", got)
	}
	if got := entries(m); got != nil {
		t.Errorf("Each called fn with %v, want no calls", got)
	}
	if got := m.Get("a"); got != nil {
		t.Errorf("Get(\"a\") = %#v, want nil", got)
	}
}

// entries lists a Map's keys and values in the order Each gives them.
func entries(m *Map) []any {
	var out []any
	m.Each(func(k string, v any) { out = append(out, k, v) })
	return out
}
