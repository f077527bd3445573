package object

import (
	"bytes"
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

// TestCodecInt checks that Int reads back any int, at the end of the
// bytes too, where Uint refuses a number larger than what follows it (a
// length): a line or an offset is written with Int.
func TestCodecInt(t *testing.T) {
	for _, n := range []int{0, 1, -1, 300, -300, math.MaxInt, math.MinInt} {
		e := NewEncoder(nil)
		e.Int(n)
		d := NewDecoder(e.B)
		if got := d.Int(); got != n || d.Done() != nil {
			t.Errorf("Int(%d) read back as %d, %v", n, got, d.Err)
		}
	}
	e := NewEncoder(nil)
	e.Uint(300)
	if d := NewDecoder(e.B); d.Uint() != 0 || d.Done() != ErrCorrupt {
		t.Error("Uint read a count larger than the bytes that follow it")
	}
}

// TestNewEntryDecoder checks that an entry is read after its format, and
// that one of another format, or none, fails before anything is read.
func TestNewEntryDecoder(t *testing.T) {
	e := NewEncoder([]byte("platc test 2\n"))
	e.Str("body")
	if d := NewEntryDecoder("platc test 2\n", e.B); d.Str() != "body" || d.Done() != nil {
		t.Errorf("an entry of its format: %v", d.Err)
	}
	for _, data := range [][]byte{nil, []byte("platc test 1\n\x04body"), []byte("platc test 2"), e.B[1:]} {
		if d := NewEntryDecoder("platc test 2\n", data); d.Err != ErrCorrupt || d.Str() != "" {
			t.Errorf("%q: read as an entry of the format", data)
		}
	}
}

// FuzzDecoder checks that no bytes make a Decoder panic, and that what it
// reads is a value the Encoder writes, whose encoding reads back to the
// same encoding (duplicate or unsorted keys of a map are the decoder's to
// take, the encoder writes one form).
func FuzzDecoder(f *testing.F) {
	for _, v := range []any{nil, true, 1.5, int64(-7), 7, "é", []string{"a"}, []any{nil, []any{}}, map[string]any{"a": map[string]any(nil)}, NewMap().Set("z", 1).Set("a", []string(nil))} {
		e := NewEncoder(nil)
		e.Value(v)
		f.Add(e.B)
		f.Add(e.B[:len(e.B)-1])
	}
	f.Add([]byte{tagList, 0xff, 0xff, 0xff, 0xff, 0x0f}) // a count past the bytes
	f.Add([]byte{tagMap, 3, 1, 'a', tagNil, 1, 'a', tagTrue})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		v := d.Value()
		if d.Done() != nil {
			return
		}
		e := NewEncoder(nil)
		if e.Value(v); !e.OK {
			t.Fatalf("%q read as %#v, which does not encode", data, v)
		}
		d = NewDecoder(e.B)
		again := NewEncoder(nil)
		if again.Value(d.Value()); d.Done() != nil || !bytes.Equal(again.B, e.B) {
			t.Fatalf("%q: %#v encodes as %q, which reads back as %q (%v)", data, v, e.B, again.B, d.Err)
		}
	})
}

// typedID is a type with a text form, as diag.ID is.
type typedID int

func (id typedID) MarshalText() ([]byte, error) { return []byte{'a' + byte(id)}, nil }
func (id *typedID) UnmarshalText(b []byte) error {
	if len(b) != 1 || b[0] < 'a' {
		return ErrCorrupt
	}
	*id = typedID(b[0] - 'a')
	return nil
}

type typedInner struct {
	ID   typedID
	Line int
}

type typedEntry struct {
	Name     string
	OK       bool
	N        int64
	F        float64
	Raw      []byte
	Strs     []string
	Empty    []string
	Inners   []typedInner
	ByName   map[string][]string
	NilMap   map[string]int
	Ptr      *typedInner
	NilPtr   *typedInner
	Spec     map[string]any
	Object   *Map
	NoObject *Map
	Any      any
	hidden   string
}

// TestTyped checks that a value Typed writes reads back as it was, nil
// slices, maps and pointers told from empty ones, unexported fields left
// out; that no prefix of an entry, nor one byte more, nor a text its type
// refuses, reads; and that a type the form has none for is refused.
func TestTyped(t *testing.T) {
	in := typedEntry{Name: "é", OK: true, N: -3, F: 1.5, Raw: []byte{0, 1}, Strs: []string{"a", ""}, Empty: []string{},
		Inners: []typedInner{{ID: 2, Line: 7}}, ByName: map[string][]string{"b": nil, "a": {"x"}},
		Ptr: &typedInner{ID: 1}, Spec: map[string]any{"n": int64(1), "f": 1.0}, Object: NewMap().Set("z", 1).Set("a", "b"),
		Any: []any{"x", nil}, hidden: "not kept"}
	data, ok := Entry("platc test 1\n", in)
	if !ok {
		t.Fatal("not encoded")
	}
	var out typedEntry
	if err := ReadEntry("platc test 1\n", data, &out); err != nil {
		t.Fatal(err)
	}
	in.hidden = ""
	if !reflect.DeepEqual(in, out) || out.Empty == nil || out.NilMap != nil || out.NilPtr != nil {
		t.Errorf("read back as\n%#v\nwant\n%#v", out, in)
	}
	for i := range data {
		if ReadEntry("platc test 1\n", data[:i], &typedEntry{}) == nil {
			t.Fatalf("%d of %d bytes read", i, len(data))
		}
	}
	if ReadEntry("platc test 1\n", append(data, 0), &typedEntry{}) == nil {
		t.Error("a byte more read")
	}
	bad, _ := Entry("platc test 1\n", []string{"A"})
	if ReadEntry("platc test 1\n", bad, &[]typedID{}) == nil {
		t.Error("a text its type refuses read")
	}
	for _, v := range []any{int32(1), []int8{1}, map[int]string{}, struct{ C chan int }{}} {
		if _, ok := Entry("platc test 1\n", v); ok {
			t.Errorf("%T encoded", v)
		}
	}
}
