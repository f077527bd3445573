package kro

import (
	"reflect"
	"testing"

	"github.com/platc/platc/compiler/diag"
)

// TestInstanceEntry checks that a cached instance outcome reads back as
// it was: the spec's int64s and float64s (which CEL tells apart), nil and
// empty, and every field of its problems; and that a cut entry does not.
func TestInstanceEntry(t *testing.T) {
	for _, e := range []instanceEntry{
		{Spec: map[string]any{"n": int64(1), "f": 1.0, "l": []any{"a", int64(2)}, "m": map[string]any{}}, Problems: []Problem{
			{Resource: "r", Path: "spec.x", Msg: "m", ID: diag.KroDefault, Str: "${a.b}", Offset: 4},
			{Path: "retentionDays", Msg: "too small"},
		}},
		{},
		{Spec: map[string]any{}, Problems: []Problem{}},
	} {
		data, ok := encodeInstanceEntry(e)
		if !ok {
			t.Fatalf("%+v: not encoded", e)
		}
		got, err := decodeInstanceEntry(data)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("read %+v, %v; wrote %+v", got, err, e)
		}
		for i := range data {
			if _, err := decodeInstanceEntry(data[:i]); err == nil {
				t.Errorf("%+v: %d of %d bytes read as an entry", e, i, len(data))
			}
		}
	}
	if _, ok := encodeInstanceEntry(instanceEntry{Spec: map[string]any{"x": int32(1)}}); ok {
		t.Error("an int32 was encoded")
	}
}
