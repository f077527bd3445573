package kro

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubernetes-sigs/kro/api/v1alpha1"
	"github.com/kubernetes-sigs/kro/pkg/graph/crd"
	kroschema "github.com/kubernetes-sigs/kro/pkg/graph/schema"
	"github.com/kubernetes-sigs/kro/pkg/simpleschema"

	"github.com/platc/platc/schemas"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	upstream "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
)

// The ports of k8s.io/apiextensions-apiserver in this package are checked
// against the code they come from, which only tests link: platc's binary
// does without its webhook client (and gRPC).

// portCases are instance schemas in SimpleSchema, the fields kro turns
// into CRDs, from the ordinary to what the API server refuses.
var portCases = []map[string]any{
	{"name": "string"},
	{"name": "string | required=true", "size": "integer | default=3 minimum=1 maximum=9"},
	{"name": `string | default="a" pattern="^[a-z]+$" maxLength=5`},
	{"tags": "[]string | uniqueItems=true", "ports": "[]integer | listType=atomic"},
	{"servers": "[]object | uniqueItems=true"},
	{"routes": "[]object | listType=map listMapKey=path"},
	{"ok": `integer | validation="self > 0"`},
	{"broken": `integer | validation="self >"`},
	{"mistyped": `integer | validation="self.startsWith('a')"`},
	{"costly": `[]string | validation="self.all(x, self.all(y, x != y || x == y))"`},
	{"bounded": `[]string | maxItems=5 validation="self.all(x, self.all(y, x != y || x == y))"`},
	{"fixed": "string | immutable=true", "nested": map[string]any{"pinned": "integer | immutable=true"}},
	{"items": "[]map[string]string | immutable=true"},
	{"low": "integer | default=0 minimum=1"},
	{"choice": `string | enum="a,b" default="c"`},
	{"labels": `map[string]string | default={"a":"b"}`},
	{"obj": "object | default={}"},
	{"nested": map[string]any{"a": "string | default=\"x\"", "b": "integer | required=true"}},
	{"quantity": `string | validation="quantity(self).isGreaterThan(quantity('1Mi'))"`},
}

// portKinds are kinds, groups and versions of instance CRDs, valid and not.
var portKinds = []struct{ kind, group, version string }{
	{"Thing", "platform.example.org", "v1alpha1"},
	{"Thing", "platform", "v1alpha1"},
	{"Thing", "Platform.Example.org", "v1"},
	{"L" + strings.Repeat("o", 61) + "g", "platform.example.org", "v1"},
	{"Thing", strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." + strings.Repeat("d", 60) + ".org", "v1"},
	{"Thing", "platform.example.org", "kro.run/v1"},
}

// TestValidateCRDMatchesAPIServer checks the port of the API server's
// validation of a new CRD against ValidateCustomResourceDefinition, on CRDs
// that kro generates.
func TestValidateCRDMatchesAPIServer(t *testing.T) {
	var crds []*extv1.CustomResourceDefinition
	for _, spec := range portCases {
		s, err := simpleschema.ToOpenAPISpec(spec, nil)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		crds = append(crds, crd.SynthesizeCRD("platform.example.org", "v1alpha1", "Thing", *s, extv1.JSONSchemaProps{}, true, extv1.NamespaceScoped, &v1alpha1.Schema{Spec: runtime.RawExtension{}}))
	}
	for _, k := range portKinds {
		crds = append(crds, crd.SynthesizeCRD(k.group, k.version, k.kind, extv1.JSONSchemaProps{Type: "object"}, extv1.JSONSchemaProps{}, true, extv1.NamespaceScoped, &v1alpha1.Schema{}))
	}
	for _, c := range crds {
		decoded, err := decodeCRD(c)
		if err != nil {
			t.Fatal(err)
		}
		internal := &apiextensions.CustomResourceDefinition{}
		if err := extv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(decoded, internal, nil); err != nil {
			t.Fatal(err)
		}
		// The API server sets the stored versions before it validates a
		// new CRD (its strategy's PrepareForCreate).
		internal.Status.StoredVersions = []string{internal.Spec.Versions[0].Name}
		got := errorSet(validateCRD(context.Background(), internal))
		want := errorSet(upstream.ValidateCustomResourceDefinition(context.Background(), internal))
		if diff := setDiff(want, got); diff != "" {
			t.Errorf("CRD %s (spec fields %v):\n%s", c.Name, slices.Sorted(maps.Keys(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties)), diff)
		}
	}
}

func errorSet[E interface{ Error() string }](errs []E) map[string]bool {
	out := map[string]bool{}
	for _, e := range errs {
		out[e.Error()] = true
	}
	return out
}

func setDiff(want, got map[string]bool) string {
	var b strings.Builder
	for _, e := range slices.Sorted(maps.Keys(want)) {
		if !got[e] {
			fmt.Fprintf(&b, "  missing: %s\n", e)
		}
	}
	for _, e := range slices.Sorted(maps.Keys(got)) {
		if !want[e] {
			fmt.Fprintf(&b, "  extra:   %s\n", e)
		}
	}
	return b.String()
}

// TestPublishedSchemaMatchesDiscovery checks the port of the API server's
// OpenAPI v3 schema of a CRD against the API server's builder, resolved as
// kro's discovery resolver resolves it, for every embedded CRD.
func TestPublishedSchemaMatchesDiscovery(t *testing.T) {
	kinds, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for gvk, kd := range kinds.loaded().byGVK {
		doc, err := builder.BuildOpenAPIV3(kd.crd, gvk.Version, builder.Options{V2: false})
		if err != nil {
			t.Fatal(err)
		}
		var ref string
		for name, s := range doc.Components.Schemas {
			var gvks []map[string]any
			if s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks) == nil && len(gvks) > 0 &&
				gvks[0]["kind"] == gvk.Kind && gvks[0]["version"] == gvk.Version {
				ref = name
			}
		}
		want, err := resolver.PopulateRefs(func(r string) (*spec.Schema, bool) {
			s, ok := doc.Components.Schemas[strings.TrimPrefix(r, "#/components/schemas/")]
			return s, ok
		}, ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kinds.ResolveSchema(gvk)
		if err != nil {
			t.Fatal(err)
		}
		// What kro reads of a schema: the types, fields and extensions;
		// not the descriptions.
		if diff := cmp.Diff(shape(want), shape(got)); diff != "" {
			t.Errorf("%s (-discovery +platc):\n%s", gvk, diff)
		}
	}
}

// shape is a schema as plain data without descriptions and the
// group-version-kind extension of discovery.
func shape(s *spec.Schema) any {
	data, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		panic(err)
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "description")
			delete(x, "x-kubernetes-group-version-kind")
			for k, e := range x {
				x[k] = strip(e)
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	return strip(v)
}

// TestKindsListFromPlainData checks that the kinds Kinds lists before it
// decodes the CRDs are those of the decoded CRDs, and that the digest of
// the embedded ones changes with them.
func TestKindsListFromPlainData(t *testing.T) {
	kinds, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	typed, err := kinds.typed()
	if err != nil {
		t.Fatal(err)
	}
	var decoded []Kind
	for _, crd := range typed.crds {
		for i := range crd.Spec.Versions {
			if v := &crd.Spec.Versions[i]; v.Served {
				decoded = append(decoded, typedKind(crd, v))
			}
		}
	}
	if diff := cmp.Diff(withBuiltins(decoded), kinds.List()); diff != "" {
		t.Errorf("kinds from plain data (-decoded +plain):\n%s", diff)
	}
	if len(kinds.List()) < 5 {
		t.Errorf("%d kinds, want the embedded CRDs' 5 at least", len(kinds.List()))
	}
	files, _ := schemas.CRDObjects()
	var objs []map[string]any
	for _, name := range slices.Sorted(maps.Keys(files)) {
		objs = append(objs, files[name]...)
	}
	plain, _ := newKinds(objs...)
	other, _ := newKinds(objs[1:]...)
	if plain.digest == other.digest || plain.digest == "" {
		t.Errorf("the digest of %d CRDs is that of %d: %s", len(objs), len(objs)-1, plain.digest)
	}
}

// TestPublishedSchemaSharesObjectMetaReadOnly checks that publishing a
// kind's schema does not write into kro's ObjectMeta schema, which every
// published schema and every graph kro builds share: builds run
// concurrently (the conformance suite's do), and a write of a shared map
// while another build reads it is a data race (go test -race sees it).
func TestPublishedSchemaSharesObjectMetaReadOnly(t *testing.T) {
	kinds, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var versions []*extv1.CustomResourceDefinitionVersion
	for _, kd := range kinds.loaded().byGVK {
		versions = append(versions, kd.version)
	}
	var walk func(s spec.Schema) int
	walk = func(s spec.Schema) int {
		n := 1
		for _, p := range s.Properties {
			n += walk(p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			n += walk(*s.Items.Schema)
		}
		return n
	}
	done := make(chan bool)
	go func() {
		for range 50 {
			walk(kroschema.ObjectMetaSchema)
		}
		done <- true
	}()
	for range 50 {
		for _, v := range versions {
			publishedSchema(v)
		}
	}
	<-done
}

// newKinds reads CustomResourceDefinitions given as plain data (decoded
// YAML or JSON).
func newKinds(crds ...map[string]any) (*Kinds, error) {
	h := sha256.New()
	for _, obj := range crds {
		data, err := json.Marshal(obj) // maps are encoded sorted
		if err != nil {
			return nil, err
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	return plainKinds(crds, hex.EncodeToString(h.Sum(nil))), nil
}

// typedKind is the Kind of a served version of a typed CRD.
func typedKind(crd *extv1.CustomResourceDefinition, v *extv1.CustomResourceDefinitionVersion) Kind {
	x := Kind{APIVersion: crd.Spec.Group + "/" + v.Name, Kind: crd.Spec.Names.Kind, Group: crd.Spec.Group, Namespaced: crd.Spec.Scope != extv1.ClusterScoped}
	if s := v.Schema; s != nil && s.OpenAPIV3Schema != nil {
		x.Required = slices.Clone(s.OpenAPIV3Schema.Required)
		x.SpecFields = slices.Sorted(maps.Keys(s.OpenAPIV3Schema.Properties["spec"].Properties))
	}
	return x
}
