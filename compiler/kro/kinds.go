package kro

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kubernetes-sigs/kro/api/v1alpha1"

	"github.com/kubernetes-sigs/kro/pkg/graph"
	kroschema "github.com/kubernetes-sigs/kro/pkg/graph/schema"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/platc/platc/schemas"
)

// Kinds are the kinds a graph's resources may have: those of CRDs, and the
// built-in kinds platc embeds (builtin.go). It answers offline what kro's
// graph builder asks a cluster: it is the schema resolver (schemas as
// OpenAPI v3 discovery publishes them) and REST mapper, and validates
// objects as the API server does.
//
// CRDs are decoded on first use: a run whose RGDs are all cached never
// needs them. Kinds is read-only once made, and safe for concurrent use.
type Kinds struct {
	list   []Kind // every served version, sorted
	digest string // of the CRDs, for cache keys
	typed  func() (*typedKinds, error)
}

// typedKinds is what Kinds holds once the CRDs are decoded.
type typedKinds struct {
	byGVK   map[schema.GroupVersionKind]*kind
	crds    []*extv1.CustomResourceDefinition // every CRD, in the order given
	mapper  *meta.DefaultRESTMapper
	builder *graph.Builder
}

// kind is one served version of a CRD.
type kind struct {
	gvk     schema.GroupVersionKind
	crd     *extv1.CustomResourceDefinition
	version *extv1.CustomResourceDefinitionVersion
	// published is the schema as discovery publishes it (nil when the
	// CRD's schema is not structural), made on first use.
	publishOnce sync.Once
	published   *spec.Schema
	validateMu  sync.Mutex
	validator   *objectValidator // made on first use
}

// Embedded returns the Kinds of the CRDs platc embeds (schemas/crds), read
// once.
var Embedded = sync.OnceValues(func() (*Kinds, error) {
	files, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	var objs []map[string]any
	raw := schemas.CRDs()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		objs = append(objs, files[name]...)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(raw[name]))
		h.Write(raw[name])
	}
	return plainKinds(objs, hex.EncodeToString(h.Sum(nil))), nil
})

// plainKinds are the Kinds of CRDs given as plain data.
func plainKinds(crds []map[string]any, digest string) *Kinds {
	k := &Kinds{list: withBuiltins(plainList(crds)), digest: digest}
	k.typed = sync.OnceValues(func() (*typedKinds, error) {
		var typed []*extv1.CustomResourceDefinition
		for _, obj := range crds {
			crd, err := toCRD(obj)
			if err != nil {
				return nil, err
			}
			typed = append(typed, crd)
		}
		return newTypedKinds(k, typed)
	})
	return k
}

// WithResults returns Kinds that also hold the CRDs kro generates for the
// RGDs of results: a graph may create another stack's instances. A cached
// result's key stands for its CRD in the digest, sparing an encoding.
func (k *Kinds) WithResults(results ...*Result) (*Kinds, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", k.digest)
	list := slices.Clone(k.list) // with the built-in kinds already
	var crds []*extv1.CustomResourceDefinition
	for _, r := range results {
		crds = append(crds, r.crd)
		for _, x := range plainList([]map[string]any{r.CRD}) {
			list = slices.DeleteFunc(list, func(y Kind) bool { return y.APIVersion == x.APIVersion && y.Kind == x.Kind })
			list = append(list, x)
		}
		if r.key != "" {
			fmt.Fprintf(h, "key %s\x00", r.key)
			continue
		}
		data, err := json.Marshal(r.CRD) // plain data; maps are encoded sorted
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "crd %s\x00", data)
	}
	sortKinds(list)
	out := &Kinds{list: list, digest: hex.EncodeToString(h.Sum(nil))}
	out.typed = sync.OnceValues(func() (*typedKinds, error) {
		t, err := k.typed()
		if err != nil {
			return nil, err
		}
		return newTypedKinds(out, append(slices.Clone(t.crds), crds...))
	})
	return out, nil
}

// toCRD decodes a CRD given as plain data (which always encodes as JSON).
func toCRD(obj map[string]any) (*extv1.CustomResourceDefinition, error) {
	crd, err := fromJSON[extv1.CustomResourceDefinition](obj)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %v: %w", obj["metadata"], err)
	}
	return crd, nil
}

// newTypedKinds decodes crds for the builder's schema resolution.
func newTypedKinds(kinds *Kinds, crds []*extv1.CustomResourceDefinition) (*typedKinds, error) {
	k := &typedKinds{byGVK: map[schema.GroupVersionKind]*kind{}, crds: crds, mapper: meta.NewDefaultRESTMapper(nil)}
	defer addBuiltinMappings(k.mapper, k.byGVK)
	for _, crd := range crds {
		scope := meta.RESTScopeNamespace
		if crd.Spec.Scope == extv1.ClusterScoped {
			scope = meta.RESTScopeRoot
		}
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			if !v.Served {
				continue
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			k.byGVK[gvk] = &kind{gvk: gvk, crd: crd, version: v}
			gv := gvk.GroupVersion()
			k.mapper.AddSpecific(gvk, gv.WithResource(crd.Spec.Names.Plural), gv.WithResource(crd.Spec.Names.Singular), scope)
		}
	}
	b, err := graph.NewBuilder(nil, nil, graph.WithSchemaResolver(kinds), graph.WithRESTMapper(k.mapper))
	if err != nil {
		return nil, err
	}
	k.builder = b
	return k, nil
}

// loaded returns the decoded CRDs; a CRD that does not decode is reported
// by Check before it needs them.
func (k *Kinds) loaded() *typedKinds {
	t, err := k.typed()
	if err != nil {
		return &typedKinds{byGVK: map[schema.GroupVersionKind]*kind{}, mapper: meta.NewDefaultRESTMapper(nil)}
	}
	return t
}

// ResolveSchema returns gvk's schema as OpenAPI v3 discovery gives it, for
// kro's builder. It implements k8s.io/apiserver's resolver.SchemaResolver.
func (k *Kinds) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	kd := k.loaded().byGVK[gvk]
	if kd == nil {
		if resolve := builtinSchemas()[gvk]; resolve != nil {
			return resolve()
		}
		return nil, fmt.Errorf("cannot resolve group version kind %q: %w", gvk, resolver.ErrSchemaNotFound)
	}
	kd.publishOnce.Do(func() { kd.published = publishedSchema(kd.version) })
	if kd.published == nil {
		// The API server publishes a non-structural schema as a bare object.
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}, nil
	}
	return kd.published, nil
}

// kindsOf lists the kinds served, "Kind (group/version)", for messages.
func (k *Kinds) kindsOf() []string {
	var out []string
	for _, kd := range k.list {
		out = append(out, kd.Kind+" ("+kd.APIVersion+")")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// kindNames are the kinds served, for "did you mean".
func (k *Kinds) kindNames() []string {
	var out []string
	for _, kd := range k.list {
		out = append(out, kd.Kind)
	}
	return slices.Compact(out) // sorted by kind
}

// publishedSchema is the schema OpenAPI v3 discovery publishes for a CRD
// version: the structural schema, unfolded, with ObjectMeta and TypeMeta
// added, also in every embedded resource. Ported from
// k8s.io/apiextensions-apiserver v0.35.0 pkg/controller/openapi/builder
// (generateBuilder, buildKubeNative, addEmbeddedProperties), with the
// ObjectMeta $ref resolved as k8s.io/apiserver's discovery resolver does;
// that package would pull in the API server's HTTP machinery.
func publishedSchema(v *extv1.CustomResourceDefinitionVersion) *spec.Schema {
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := extv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
		return nil // the API server would not have stored it
	}
	if schemaHasInvalidTypes(internal.OpenAPIV3Schema) {
		return nil
	}
	ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil || len(structuralschema.ValidateStructural(nil, ss)) > 0 {
		return nil
	}
	ret := ss.Unfold().ToKubeOpenAPI()
	// The embedded resources first: ObjectMeta's schema is kro's, shared
	// by every schema and graph, and the walk writes back what it visits.
	addEmbeddedProperties(ret)
	ret.SetProperty("metadata", kroschema.ObjectMetaSchema)
	addTypeMeta(ret)
	return ret
}

// addTypeMeta sets apiVersion and kind as TypeMeta's schema has them.
func addTypeMeta(s *spec.Schema) {
	s.SetProperty("apiVersion", *spec.StringProperty())
	s.SetProperty("kind", *spec.StringProperty())
}

// addEmbeddedProperties adds TypeMeta and ObjectMeta to every
// x-kubernetes-embedded-resource object below s.
func addEmbeddedProperties(s *spec.Schema) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		v := s.Properties[k]
		addEmbeddedProperties(&v)
		s.Properties[k] = v
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema)
	}
	if isTrue, ok := s.Extensions.GetBool("x-kubernetes-embedded-resource"); ok && isTrue {
		addTypeMeta(s)
		s.SetProperty("metadata", kroschema.ObjectMetaSchema)
		for _, req := range []string{"kind", "apiVersion"} {
			if !slices.Contains(s.Required, req) {
				s.Required = append(s.Required, req)
			}
		}
	}
}

// schemaHasInvalidTypes reports whether a type other than OpenAPI v3's is
// used anywhere in s. Ported from k8s.io/apiextensions-apiserver v0.35.0
// pkg/apis/apiextensions/validation (SchemaHasInvalidTypes).
func schemaHasInvalidTypes(s *apiextensions.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.Type) > 0 && !openAPIV3Types[s.Type] {
		return true
	}
	for _, p := range s.Properties {
		if schemaHasInvalidTypes(&p) {
			return true
		}
	}
	if s.Items != nil && schemaHasInvalidTypes(s.Items.Schema) {
		return true
	}
	return s.AdditionalProperties != nil && schemaHasInvalidTypes(s.AdditionalProperties.Schema)
}

// openAPIV3Types are the types an OpenAPI v3 schema of a CRD may use.
var openAPIV3Types = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true}

// kind returns the kind of an apiVersion and kind (a CRD's), or nil.
func (k *Kinds) kind(apiVersion, kindName string) *kind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil
	}
	return k.loaded().byGVK[gv.WithKind(kindName)]
}

// Kind is a kind Kinds serves.
type Kind struct {
	APIVersion, Kind string
	Group            string
	Required         []string // the fields an object must have
	SpecFields       []string // the fields of its spec, sorted
	Namespaced       bool
	// Builtin says the kind is Kubernetes' own, not a CRD's.
	Builtin bool
}

// Kind returns the kind of an apiVersion and kind that Kinds serves.
func (k *Kinds) Kind(apiVersion, kind string) (Kind, bool) {
	for _, x := range k.list {
		if x.APIVersion == apiVersion && x.Kind == kind {
			return x, true
		}
	}
	return Kind{}, false
}

// List returns the kinds served, sorted by kind then apiVersion.
func (k *Kinds) List() []Kind { return slices.Clone(k.list) }

// plainList lists the served versions of CRDs given as plain data.
func plainList(crds []map[string]any) []Kind {
	var list []Kind
	str := func(v any) string { s, _ := v.(string); return s }
	for _, crd := range crds {
		spec, _ := crd["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		group := str(spec["group"])
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			if served, _ := vm["served"].(bool); !served {
				continue
			}
			x := Kind{APIVersion: group + "/" + str(vm["name"]), Kind: str(names["kind"]), Group: group, Namespaced: str(spec["scope"]) != "Cluster"}
			if root, ok := lookupMap(vm, "schema", "openAPIV3Schema"); ok {
				required, _ := root["required"].([]any)
				for _, r := range required {
					x.Required = append(x.Required, str(r))
				}
				props, _ := lookupMap(root, "properties", "spec", "properties")
				x.SpecFields = slices.Sorted(maps.Keys(props))
			}
			list = append(list, x)
		}
	}
	sortKinds(list)
	return list
}

// withBuiltins adds the built-in kinds no CRD of list serves, sorted.
func withBuiltins(list []Kind) []Kind {
	for _, k := range schemas.BuiltinKinds {
		b := Kind{APIVersion: k.APIVersion(), Kind: k.Kind, Group: k.Group, Builtin: true, Namespaced: k.Namespaced}
		if !slices.ContainsFunc(list, func(k Kind) bool { return k.APIVersion == b.APIVersion && k.Kind == b.Kind }) {
			list = append(list, b)
		}
	}
	sortKinds(list)
	return list
}

func sortKinds(list []Kind) {
	slices.SortFunc(list, func(a, b Kind) int {
		return strings.Compare(a.Kind+" "+a.APIVersion, b.Kind+" "+b.APIVersion)
	})
}

// lookupMap reads a path of nested maps.
func lookupMap(m map[string]any, path ...string) (map[string]any, bool) {
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// build runs kro's graph builder on obj with the controller's defaults. A
// builder panic on an unexpected graph becomes its error: platc must not
// crash on user input.
func (k *Kinds) build(obj *v1alpha1.ResourceGraphDefinition, gates Gates) (g *graph.Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("kro's graph builder failed: %v", r)
		}
	}()
	t, err := k.typed()
	if err != nil {
		return nil, err
	}
	withGates(gates, func() { g, err = t.builder.NewResourceGraphDefinition(obj, rgdConfig) })
	return g, err
}
