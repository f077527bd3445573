package object

import (
	"math"
	"reflect"
	"testing"
)

// TestCodec checks that every value type of a Map reads back as it was
// written, nil slices and maps told from empty ones, a Map's keys in their
// order, and that no prefix of an encoding, nor one byte more, decodes.
func TestCodec(t *testing.T) {
	inner := NewMap().Set("z", int64(1)).Set("a", 2).Set("m", map[string]any{})
	for name, v := range map[string]any{
		"nil":         nil,
		"bools":       []any{true, false},
		"numbers":     []any{int64(-7), 7, 1.5, math.Inf(-1), 0.0},
		"strings":     []any{"", "é\x00", []string{"a", ""}, []string(nil), []string{}},
		"lists":       []any{[]any(nil), []any{}, []any{[]any{nil}}},
		"maps":        map[string]any{"b": map[string]any(nil), "a": map[string]any{}, "c": map[string]any{"x": "y"}},
		"object":      NewMap().Set("k", inner).Set("b", nil).Set("a", []any{inner}),
		"emptyObject": NewMap(),
	} {
		e := NewEncoder(nil)
		e.Value(v)
		if !e.OK {
			t.Fatalf("%s: not encoded", name)
		}
		d := NewDecoder(e.B)
		got := d.Value()
		if err := d.Done(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s: read %#v, wrote %#v", name, got, v)
		}
		for i := range e.B {
			d := NewDecoder(e.B[:i])
			d.Value()
			if d.Done() == nil {
				t.Errorf("%s: %d of %d bytes decode", name, i, len(e.B))
			}
		}
		d = NewDecoder(append(e.B, 0))
		d.Value()
		if d.Done() == nil {
			t.Errorf("%s: a byte more decodes", name)
		}
	}
	for _, v := range []any{int32(1), struct{}{}, (*Map)(nil), map[string]any{"x": float32(1)}} {
		e := NewEncoder(nil)
		if e.Value(v); e.OK {
			t.Errorf("%T encoded", v)
		}
	}
}

// TestCodecBytes checks that Bytes reads what Bytes wrote as a slice of
// the decoded bytes (a later write to it does not reach the next value),
// and that a length past the end fails.
func TestCodecBytes(t *testing.T) {
	e := NewEncoder(nil)
	e.Bytes([]byte("body"))
	e.Bytes(nil)
	e.Str("next")
	d := NewDecoder(e.B)
	b, empty := d.Bytes(), d.Bytes()
	if string(b) != "body" || len(empty) != 0 {
		t.Fatalf("read %q and %q", b, empty)
	}
	_ = append(b, 'X') // capped: must not overwrite what follows
	if s := d.Str(); s != "next" || d.Done() != nil {
		t.Errorf("after Bytes: %q, %v", s, d.Err)
	}
	d = NewDecoder(e.B[:3])
	if d.Bytes(); d.Done() == nil {
		t.Error("a cut body decodes")
	}
}
