package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/internal/cache"
	"github.com/platc/platc/schemas"
)

type verdict struct {
	Problems []Problem
	Err      string
}

func judgeMemo(m *Memo, obj map[string]any) verdict {
	problems, err := m.Validate(obj)
	if err != nil {
		return verdict{problems, err.Error()}
	}
	return verdict{problems, ""}
}

// TestMemoWriteRead checks that verdicts a Memo writes, read by a Memo of
// a new validator of the same CRDs, give every object the verdict
// validating it gives, and that the second compiles no schema; that a
// Memo writes only the shapes it met; and that what is not Write's
// encoding gives nothing.
func TestMemoWriteRead(t *testing.T) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		t.Fatal(err)
	}
	newValidator := func() *Validator {
		v, err := FromTrusted(crds)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := newValidator().Memo()
	objs := trustedObjects(t, first.v)
	want := make([]verdict, len(objs))
	for i, obj := range objs {
		want[i] = judgeMemo(first, obj)
	}
	data, changed := first.Write()
	if !changed {
		t.Error("Write of a Memo that validated objects: not changed")
	}

	v := newValidator()
	second := v.Memo()
	if !second.Read(data) {
		t.Fatal("Read of Write's data: false")
	}
	for i, obj := range objs {
		if diff := cmp.Diff(want[i], judgeMemo(second, obj)); diff != "" {
			t.Errorf("%v %v: verdict mismatch (-validated +read):\n%s", obj["kind"], obj["metadata"], diff)
		}
	}
	for k, ks := range v.kinds {
		if ks.compiled != nil {
			t.Errorf("%s: compiled, though every verdict was read", k)
		}
	}
	if again, changed := second.Write(); changed || string(again) != string(data) {
		t.Errorf("Write of a Memo that met the shapes it read: changed %v, same data %v; want false, true", changed, string(again) == string(data))
	}

	// A Memo that meets some of the shapes it read writes those only.
	some := newValidator().Memo()
	some.Read(data)
	judgeMemo(some, objs[0])
	part, changed := some.Write()
	if !changed {
		t.Error("Write of a Memo that met part of what it read: not changed")
	}
	third := newValidator().Memo()
	third.Read(part)
	for i, obj := range objs {
		if diff := cmp.Diff(want[i], judgeMemo(third, obj)); diff != "" {
			t.Errorf("%v %v: verdict mismatch (-validated +read in part):\n%s", obj["kind"], obj["metadata"], diff)
		}
	}
	if third.validated == 0 {
		t.Error("a Memo that read the verdict of one shape validated nothing else")
	}

	for _, bad := range [][]byte{nil, []byte("junk"), data[:len(data)-1], append([]byte(cache.SchemaVerdicts.Layout()), 0xff)} {
		m := newValidator().Memo()
		if m.Read(bad) {
			t.Errorf("Read(%q...): true, want false", bad[:min(len(bad), 20)])
		}
		if len(m.read) != 0 {
			t.Errorf("Read(%q...) gave %d verdicts, want none", bad[:min(len(bad), 20)], len(m.read))
		}
	}
}

// TestMemoWriteReadError checks that a kind's compile error is read back
// as the same error.
func TestMemoWriteReadError(t *testing.T) {
	files := map[string][]map[string]any{"bad.yaml": {gadgetCRD(map[string]any{"type": "string", "pattern": "(unclosed"})}}
	gadget := decode(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: x\n")
	v, err := FromTrusted(files)
	if err != nil {
		t.Fatal(err)
	}
	m := v.Memo()
	_, want := m.Validate(gadget)
	if want == nil {
		t.Fatal("a Gadget: no error")
	}
	data, _ := m.Write()
	if v, err = FromTrusted(files); err != nil {
		t.Fatal(err)
	}
	m = v.Memo()
	if !m.Read(data) {
		t.Fatal("Read of Write's data: false")
	}
	if _, err := m.Validate(gadget); err == nil || err.Error() != want.Error() {
		t.Errorf("a Gadget, read: got error %v, want %v", err, want)
	}
	if m.validated != 0 {
		t.Errorf("a Gadget, read: validated %d times, want 0", m.validated)
	}
}
