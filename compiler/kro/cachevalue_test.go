package kro

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
			{Msg: "an offset past the entry's last byte", Str: strings.Repeat("x", 1000), Offset: 999},
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

// TestCheckEntry checks that an accepted RGD's entry reads back as the
// Result's exported fields and the warnings were, nil and empty lists told
// apart, and that no cut entry, nor one with a byte more, an unknown id or
// no CRD, reads as one.
func TestCheckEntry(t *testing.T) {
	rgd := validRGD()
	rgd.Spec["half"] = "integer | minimum=0.5" // a warning
	r, warnings := Check(rgd)
	if r == nil || len(warnings) != 1 {
		t.Fatalf("check: %v", warnings)
	}
	r.Collections = []string{}
	data, ok := encodeCheckEntry(r, warnings)
	if !ok {
		t.Fatal("not encoded")
	}
	got, gotWarnings, err := decodeCheckEntry(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{CRD: r.CRD, Deps: r.Deps, Order: r.Order, Iterators: r.Iterators, Collections: r.Collections}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Result{})); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
	if got.Iterators != nil || got.Collections == nil {
		t.Errorf("iterators %#v and collections %#v, want nil and empty", got.Iterators, got.Collections)
	}
	if !reflect.DeepEqual(gotWarnings, warnings) {
		t.Errorf("warnings read back as %+v, want %+v", gotWarnings, warnings)
	}
	for i := range data {
		if _, _, err := decodeCheckEntry(data[:i]); err == nil {
			t.Fatalf("%d of %d bytes read as an entry", i, len(data))
		}
	}
	bad := map[string][]byte{"a byte more": append(slices.Clone(data), 0)}
	id := warnings[0].ID.String()
	bad["an unknown id"] = bytes.Replace(data, []byte(id), []byte(strings.ToUpper(id)), 1)
	bad["no CRD"], _ = encodeCheckEntry(&Result{Deps: r.Deps}, nil)
	bad["no dependencies"], _ = encodeCheckEntry(&Result{CRD: r.CRD}, nil)
	for what, data := range bad {
		if _, _, err := decodeCheckEntry(data); err == nil {
			t.Errorf("an entry with %s read as one", what)
		}
	}
}

// TestOverSchemaEntry checks that CheckOverSchema's entry reads back as
// it was, none told from no problems, and that a cut one does not.
func TestOverSchemaEntry(t *testing.T) {
	for _, probs := range [][]Problem{nil, {}, {{Msg: "no such field", ID: diag.KroTemplate, Str: "${schema.spec.regin}", Offset: 14}}} {
		data, ok := encodeOverSchema(probs)
		if !ok {
			t.Fatalf("%+v: not encoded", probs)
		}
		if got, err := decodeOverSchema(data); err != nil || !reflect.DeepEqual(got, probs) {
			t.Errorf("read %#v, %v; wrote %#v", got, err, probs)
		}
		for i := range data {
			if _, err := decodeOverSchema(data[:i]); err == nil {
				t.Errorf("%+v: %d of %d bytes read as an entry", probs, i, len(data))
			}
		}
	}
	if _, err := decodeOverSchema([]byte("null")); err == nil {
		t.Error("the JSON of an earlier platc read as an entry")
	}
}
