package validate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/platc/platc/schemas"
	"sigs.k8s.io/yaml"
)

// trustedObjects are objects of every kind the embedded CRDs define, fit
// and unfit: the sample's rendered output (../../out), and for each kind a
// bare object and mutants of it (an unknown field at the top, in metadata
// and in spec, spec of the wrong type, a wrong apiVersion's kind).
func trustedObjects(t *testing.T, v *Validator) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, k := range v.Kinds() {
		i := strings.LastIndex(k, "/")
		apiVersion, kind := k[:i], k[i+1:]
		bare := func() map[string]any {
			return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "x"}}
		}
		objs = append(objs, bare())
		for _, mutate := range []func(map[string]any){
			func(o map[string]any) { o["spek"] = map[string]any{} },
			func(o map[string]any) { o["metadata"].(map[string]any)["uid"] = "u" },
			func(o map[string]any) { o["spec"] = "x" },
			func(o map[string]any) { o["spec"] = map[string]any{"bogus": 1.0} },
			func(o map[string]any) { o["spec"] = map[string]any{} },
			func(o map[string]any) { delete(o, "metadata") },
		} {
			o := bare()
			mutate(o)
			objs = append(objs, o)
		}
	}
	var files []string
	err := filepath.WalkDir("../../out", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no rendered output in ../../out (%v): run make render", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range splitDocuments(data) {
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if obj != nil && slices.Contains(v.Kinds(), fmt.Sprintf("%v/%v", obj["apiVersion"], obj["kind"])) {
				objs = append(objs, obj)
			}
		}
	}
	return objs
}

// TestFromTrusted checks that the validator of the embedded CRDs made by
// FromTrusted, which compiles a kind's schema when it first meets the
// kind, says of every object what FromObjects' says, which compiles them
// all at once: whichever kind comes first, and with objects of every kind
// validated at once from several goroutines (make race runs it too).
func TestFromTrusted(t *testing.T) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		t.Fatal(err)
	}
	eager, err := FromObjects(crds)
	if err != nil {
		t.Fatalf("FromObjects: %v", err)
	}
	objs := trustedObjects(t, eager)
	type verdict struct {
		Problems []Problem
		Err      string
	}
	judge := func(v *Validator, obj map[string]any) verdict {
		problems, err := v.Validate(obj)
		if err != nil {
			return verdict{problems, err.Error()}
		}
		return verdict{problems, ""}
	}
	want := make([]verdict, len(objs))
	unfit := 0
	for i, obj := range objs {
		want[i] = judge(eager, obj)
		if len(want[i].Problems) > 0 {
			unfit++
		}
	}
	if unfit < len(eager.Kinds())*5 {
		t.Fatalf("%d objects of %d have problems: the mutants should", unfit, len(objs))
	}

	for _, order := range []string{"forward", "backward", "concurrent"} {
		t.Run(order, func(t *testing.T) {
			lazy, err := FromTrusted(crds)
			if err != nil {
				t.Fatalf("FromTrusted: %v", err)
			}
			got := make([]verdict, len(objs))
			switch order {
			case "forward":
				for i, obj := range objs {
					got[i] = judge(lazy, obj)
				}
			case "backward":
				for i := len(objs) - 1; i >= 0; i-- {
					got[i] = judge(lazy, objs[i])
				}
			case "concurrent":
				var wg sync.WaitGroup
				for i, obj := range objs {
					wg.Go(func() { got[i] = judge(lazy, obj) })
				}
				wg.Wait()
			}
			for i := range objs {
				if diff := cmp.Diff(want[i], got[i]); diff != "" {
					t.Errorf("%v %v: verdict mismatch (-FromObjects +FromTrusted):\n%s", objs[i]["kind"], objs[i]["metadata"], diff)
				}
			}
		})
	}
}

// gadgetCRD is a CRD of kind example.com/v1/Gadget whose spec has the
// schema given.
func gadgetCRD(spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"spec": map[string]any{
			"group": "example.com", "names": map[string]any{"kind": "Gadget"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "schema": map[string]any{
				"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"spec": spec}},
			}}},
		},
	}
}

// TestFromTrustedCompileError checks that a kind whose schema does not
// compile gets, with FromTrusted, the library's compile error as the error
// of each object of the kind (FromObjects returns the meta-schema's, up
// front), and nothing changes for the other kinds.
func TestFromTrustedCompileError(t *testing.T) {
	files := map[string][]map[string]any{"bad.yaml": append(widgetObjects(t), gadgetCRD(map[string]any{"type": "string", "pattern": "(unclosed"}))}
	const eagerWant = `bad.yaml: document 4: compiling the schema of example.com/v1/Gadget: "mem://platc/example.com/v1/Gadget.json#" is not valid against metaschema: `
	if _, err := FromObjects(files); err == nil || !strings.HasPrefix(err.Error(), eagerWant) {
		t.Fatalf("FromObjects error: got %v, want one starting %q", err, eagerWant)
	}
	lazy, err := FromTrusted(files)
	if err != nil {
		t.Fatalf("FromTrusted: %v", err)
	}
	widget := decode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1, mode: fast}\n")
	if problems, err := lazy.Validate(widget); err != nil || len(problems) > 0 {
		t.Errorf("a Widget: got %v, %v; want no problem and no error", problems, err)
	}
	gadget := decode(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: x\n")
	const want = `bad.yaml: document 4: compiling the schema of example.com/v1/Gadget: invalid regex "(unclosed" at "https://json-schema.org/platc/example.com/v1/Gadget.json#/properties/spec/pattern": error parsing regexp: missing closing ): ` + "`(unclosed`"
	for range 2 {
		if _, err := lazy.Validate(gadget); err == nil || err.Error() != want {
			t.Errorf("a Gadget: got error\n%v\nwant\n%s", err, want)
		}
	}
}

// TestFromTrustedSkipsMetaSchema checks that FromTrusted does not check a
// schema against the meta-schema, the cost it saves (FromObjects does): a
// minLength of -1 is not valid there, and the library compiles it. If this
// fails after an upgrade of santhosh-tekuri/jsonschema, see trustedBase.
func TestFromTrustedSkipsMetaSchema(t *testing.T) {
	files := map[string][]map[string]any{"g.yaml": {gadgetCRD(map[string]any{"type": "string", "minLength": -1})}}
	const eagerWant = `g.yaml: document 1: compiling the schema of example.com/v1/Gadget: "mem://platc/example.com/v1/Gadget.json#" is not valid against metaschema: `
	if _, err := FromObjects(files); err == nil || !strings.HasPrefix(err.Error(), eagerWant) {
		t.Fatalf("FromObjects error: got %v, want one starting %q", err, eagerWant)
	}
	lazy, err := FromTrusted(files)
	if err != nil {
		t.Fatalf("FromTrusted: %v", err)
	}
	gadget := decode(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: 1\n")
	want := []Problem{{"/spec", "got number, want string", false}}
	got, err := lazy.Validate(gadget)
	if err != nil {
		t.Fatalf("a Gadget: %v: the schema was checked against the meta-schema", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}

// BenchmarkEmbedded measures what a run pays for the validator of the
// embedded CRDs, and for validating one object of each kind the sample
// renders: compiling every kind (FromObjects), or the kinds it meets
// (FromTrusted).
func BenchmarkEmbedded(b *testing.B) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		b.Fatal(err)
	}
	var objs []map[string]any
	for _, k := range []string{"argoproj.io/v1alpha1/Application", "argoproj.io/v1alpha1/AppProject", "kro.run/v1alpha1/ResourceGraphDefinition"} {
		i := strings.LastIndex(k, "/")
		objs = append(objs, map[string]any{"apiVersion": k[:i], "kind": k[i+1:], "metadata": map[string]any{"name": "x"}})
	}
	for _, c := range []struct {
		name string
		make func(map[string][]map[string]any) (*Validator, error)
	}{{"FromObjects", FromObjects}, {"FromTrusted", FromTrusted}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := c.make(crds)
				if err != nil {
					b.Fatal(err)
				}
				for _, obj := range objs {
					if _, err := v.Validate(obj); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
