package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kubernetes-sigs/kro/api/v1alpha1"
	"github.com/kubernetes-sigs/kro/pkg/features"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-base/featuregate"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

// World is the cluster kro runs in, offline: the CustomResourceDefinitions
// installed (platc's embedded ones, kro's own, and those kro generated for
// other stacks), which give kro's graph builder its schema resolver and REST
// mapper, and the API server's admission of objects of those kinds.
//
// A World is immutable and safe for concurrent use; With returns a new one.
type World struct {
	crds     []*extv1.CustomResourceDefinition
	resolver resolver.SchemaResolver
	mapper   meta.RESTMapper
	admit    sync.Map // CRD name -> *admitter, built on first use
	// gates are the feature gates of the world's kro (kro's defaults
	// where not named).
	gates map[string]bool
}

// NewWorld makes a world whose cluster holds crds.
func NewWorld(crds []*extv1.CustomResourceDefinition) *World {
	w := &World{crds: crds}
	m := meta.NewDefaultRESTMapper(nil)
	for _, crd := range crds {
		scope := meta.RESTScopeNamespace
		if crd.Spec.Scope == extv1.ClusterScoped {
			scope = meta.RESTScopeRoot
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			plural := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			singular := plural
			singular.Resource = crd.Spec.Names.Singular
			m.AddSpecific(gvk, plural, singular, scope)
		}
	}
	builtin := upstreamBuiltin()
	for gvk, bm := range builtin.mappings {
		scope := meta.RESTScopeRoot
		if bm.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		gvr := gvk.GroupVersion().WithResource(bm.Plural)
		m.AddSpecific(gvk, gvr, gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind)), scope)
	}
	w.mapper = m
	// kro's own resolver (pkg/graph/schema/resolver.NewCombinedResolver at
	// v0.9.3): the built-in definitions first, then discovery, which
	// serves each CRD's OpenAPI v3 as the API server builds it, and
	// Kubernetes' own kinds' as the API server publishes them (read by
	// k8s.io/apiserver's ClientDiscoveryResolver, as kro reads them).
	core := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, scheme.Scheme)
	w.resolver = core.Combine(firstOf{&cachedResolver{r: &crdResolver{crds: crds}}, builtin.resolver})
	return w
}

// firstOf resolves a kind with the first resolver that knows it: a
// cluster's discovery serves the CRDs' group-versions and Kubernetes' own
// (disjoint) from one list of documents.
type firstOf []resolver.SchemaResolver

func (f firstOf) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	var err error
	for _, r := range f {
		var s *spec.Schema
		if s, err = r.ResolveSchema(gvk); err == nil || !errors.Is(err, resolver.ErrSchemaNotFound) {
			return s, err
		}
	}
	return nil, err
}

// builtinWorld is what every world's discovery serves of Kubernetes' own
// kinds: their mappings, and their schemas, resolved once per kind (kro's
// controller keeps them in a cache too, pkg/graph/schema/resolver's
// TTLCachedSchemaResolver).
type builtinWorld struct {
	mappings map[schema.GroupVersionKind]Mapping
	resolver resolver.SchemaResolver
}

var upstreamBuiltin = sync.OnceValue(func() builtinWorld {
	docs, err := UpstreamBuiltin()
	if err != nil {
		panic(fmt.Sprintf("conformance: Kubernetes' published OpenAPI: %v", err))
	}
	mappings, err := BuiltinMappings(docs)
	if err != nil {
		panic(fmt.Sprintf("conformance: Kubernetes' published OpenAPI: %v", err))
	}
	return builtinWorld{mappings: mappings, resolver: &cachedResolver{r: &resolver.ClientDiscoveryResolver{Discovery: newBuiltinDiscovery(docs)}}}
})

// cachedResolver resolves each kind once.
type cachedResolver struct {
	r     resolver.SchemaResolver
	cache sync.Map // schema.GroupVersionKind -> resolved
}

type resolved struct {
	s   *spec.Schema
	err error
}

func (c *cachedResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if v, ok := c.cache.Load(gvk); ok {
		res := v.(resolved)
		return res.s, res.err
	}
	s, err := c.r.ResolveSchema(gvk)
	c.cache.Store(gvk, resolved{s, err})
	return s, err
}

// With returns a world that also holds crds.
func (w *World) With(crds ...*extv1.CustomResourceDefinition) *World {
	out := NewWorld(append(append([]*extv1.CustomResourceDefinition(nil), w.crds...), crds...))
	out.gates = w.gates
	return out
}

// WithGates is w, its kro running with the feature gates given.
func (w *World) WithGates(gates map[string]bool) *World {
	out := w.With()
	out.gates = gates
	return out
}

// gatesMu serializes the builds of kro's builder, which reads its gates
// from the process-wide features.FeatureGate.
var gatesMu sync.Mutex

// setGates sets kro's process-wide gates to gates, every other gate at
// kro's default, as kro's controller's --feature-gates flag does.
func setGates(gates map[string]bool) error {
	set := map[string]bool{}
	for _, f := range []featuregate.Feature{features.CELOmitFunction, features.InstanceConditionEvents, features.InstanceConditionMetrics} {
		set[string(f)] = false // kro's defaults: every gate alpha, off
	}
	maps.Copy(set, gates)
	return features.FeatureGate.SetFromMap(set)
}

// CRD returns the CRD of the world named name, or nil.
func (w *World) CRD(name string) *extv1.CustomResourceDefinition {
	for _, c := range w.crds {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// crdResolver resolves a kind's schema the way the API server's discovery
// serves it and k8s.io/apiserver's ClientDiscoveryResolver reads it: the
// OpenAPI v3 document of the group-version (apiextensions-apiserver's
// BuildOpenAPIV3, as its openapiv3 controller calls it), the component
// whose x-kubernetes-group-version-kind names the kind, refs populated.
// It resolves a kind at every call: wrap it in a cachedResolver.
type crdResolver struct {
	crds []*extv1.CustomResourceDefinition
}

func (r *crdResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	// Discovery serves one document per group-version, holding every CRD of it.
	schemas := map[string]*spec.Schema{}
	found := false
	for _, crd := range r.crds {
		if crd.Spec.Group != gvk.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != gvk.Version || !v.Served {
				continue
			}
			found = true
			doc, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{V2: false, IncludeSelectableFields: true})
			if err != nil {
				return nil, err
			}
			// Through JSON, as discovery hands it over.
			b, err := json.Marshal(doc)
			if err != nil {
				return nil, err
			}
			var resp struct {
				Components struct {
					Schemas map[string]*spec.Schema `json:"schemas"`
				} `json:"components"`
			}
			if err := json.Unmarshal(b, &resp); err != nil {
				return nil, err
			}
			for k, s := range resp.Components.Schemas {
				schemas[k] = s
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("cannot resolve group version %q: %w", gvk.GroupVersion(), resolver.ErrSchemaNotFound)
	}
	var root string
	for ref, s := range schemas {
		var gvks []schema.GroupVersionKind
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			return nil, err
		}
		for _, g := range gvks {
			if g == gvk {
				root = ref
			}
		}
	}
	if root == "" {
		return nil, fmt.Errorf("cannot resolve group version kind %q: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
		s, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		return s, ok
	}, root)
}

// Accepted is what kro makes of a ResourceGraphDefinition it accepts.
type Accepted struct {
	Graph *graph.Graph
	CRD   *extv1.CustomResourceDefinition // the instance CRD, as the API server stores it
}

// rgdCRDName is the name of kro's own CRD.
const rgdCRDName = "resourcegraphdefinitions.kro.run"

// rgdConfig is kro's controller default (cmd/controller/main.go at v0.9.3:
// --rgd-max-collection-size 1000, --rgd-max-collection-dimension-size 10).
var rgdConfig = graph.RGDConfig{MaxCollectionSize: 1000, MaxCollectionDimensionSize: 10}

// BuildRGD does what the cluster does with a ResourceGraphDefinition (as
// decoded YAML): the API server admits it against kro's CRD (defaults
// included), kro's graph builder builds it (kro's
// graph.NewResourceGraphDefinition, with the world's feature gates, set
// for each build: its defaults unless WithGates), kro
// creates the instance CRD, which must not belong to anyone else, and the
// API server validates that CRD and accepts its names. The error is the
// first of them to refuse, as kro would report it.
func (w *World) BuildRGD(obj map[string]any) (*Accepted, error) {
	admitted, err := w.Admit(rgdCRDName, obj)
	if err != nil {
		return nil, fmt.Errorf("the API server refuses the ResourceGraphDefinition: %w", err)
	}
	b, err := json.Marshal(admitted)
	if err != nil {
		return nil, err
	}
	var rgd v1alpha1.ResourceGraphDefinition
	if err := json.Unmarshal(b, &rgd); err != nil {
		return nil, fmt.Errorf("decoding the ResourceGraphDefinition: %w", err)
	}
	gb, err := graph.NewBuilder(nil, nil, graph.WithSchemaResolver(w.resolver), graph.WithRESTMapper(w.mapper))
	if err != nil {
		return nil, err
	}
	gatesMu.Lock()
	err = setGates(w.gates)
	var g *graph.Graph
	if err == nil {
		g, err = buildGraph(gb, &rgd)
	}
	gatesMu.Unlock()
	if err != nil {
		return nil, err
	}
	crd := g.CRD.DeepCopy()
	if err := w.createCRD(crd); err != nil {
		return nil, err
	}
	return &Accepted{Graph: g, CRD: crd}, nil
}

// buildGraph runs kro's builder; a panic in it is kro refusing (the
// controller recovers it and marks the RGD failed).
func buildGraph(gb *graph.Builder, rgd *v1alpha1.ResourceGraphDefinition) (g *graph.Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kro's graph builder panicked: %v", r)
		}
	}()
	return gb.NewResourceGraphDefinition(rgd, rgdConfig)
}

// createCRD is kro's CRDWrapper.Ensure (pkg/client/crd.go) on a cluster
// that holds w's CRDs, then the API server's create of a CRD (defaults,
// PrepareForCreate, ValidateCustomResourceDefinition) and its naming
// controller (pkg/controller/status/naming_controller.go: names already
// taken in the group keep the CRD from being established, and kro waits for
// that). crd gets the defaults the API server sets.
func (w *World) createCRD(crd *extv1.CustomResourceDefinition) error {
	if existing := w.CRD(crd.Name); existing != nil {
		return fmt.Errorf("failed to update CRD %s: CRD already exists and is not owned by KRO", crd.Name)
	}
	// kro's client sends the CRD as JSON (a default kro wrote that is not
	// JSON stops it there), and the API server decodes it: what kro built
	// in memory is not what the cluster holds (additionalProperties given
	// as a schema is read back as allowed, for one).
	b, err := json.Marshal(crd)
	if err != nil {
		return fmt.Errorf("failed to create CRD: %w", err)
	}
	*crd = extv1.CustomResourceDefinition{}
	if err := json.Unmarshal(b, crd); err != nil {
		return fmt.Errorf("failed to create CRD: %w", err)
	}
	extv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := extv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		return fmt.Errorf("failed to create CRD: %w", err)
	}
	st := customresourcedefinition.NewStrategy(nil)
	st.PrepareForCreate(context.Background(), &internal)
	if errs := st.Validate(context.Background(), &internal); len(errs) > 0 {
		return fmt.Errorf("failed to create CRD: CustomResourceDefinition.apiextensions.k8s.io %q is invalid: %w", crd.Name, errs.ToAggregate())
	}
	// The naming controller's getAcceptedNamesForGroup and
	// calculateNamesAndConditions: plural and singular against every
	// resource name (plural, singular, short names) of the group, kind and
	// listKind against every kind and listKind.
	resources, kinds := map[string]bool{}, map[string]bool{}
	for _, other := range w.crds {
		if other.Spec.Group != crd.Spec.Group {
			continue
		}
		o := other.Spec.Names
		resources[o.Plural], resources[o.Singular] = true, true
		for _, s := range o.ShortNames {
			resources[s] = true
		}
		kinds[o.Kind], kinds[o.ListKind] = true, true
	}
	n := crd.Spec.Names
	for _, c := range []struct {
		reason, name string
		taken        map[string]bool
	}{{"PluralConflict", n.Plural, resources}, {"SingularConflict", n.Singular, resources}, {"KindConflict", n.Kind, kinds}, {"ListKindConflict", n.ListKind, kinds}} {
		if c.taken[c.name] {
			return fmt.Errorf("CRD %s is not established: NamesAccepted=False, %s: %q is already in use", crd.Name, c.reason, c.name)
		}
	}
	return nil
}

// Admit does what the API server does with a create of obj, of the kind of
// the world's CRD named crdName, sent with kubectl's default strict field
// validation: decode (unknown fields are errors, ObjectMeta coerced),
// default, then validate (ObjectMeta, the OpenAPI schema, embedded
// objects, list types, x-kubernetes-validations). It returns the object as
// it would be stored.
func (w *World) Admit(crdName string, obj map[string]any) (map[string]any, error) {
	a, err := w.admitter(crdName)
	if err != nil {
		return nil, err
	}
	return a.admit(obj)
}

func (w *World) admitter(name string) (*admitter, error) {
	if a, ok := w.admit.Load(name); ok {
		return a.(*admitter), nil
	}
	crd := w.CRD(name)
	if crd == nil {
		return nil, fmt.Errorf("no CRD %s", name)
	}
	a, err := newAdmitter(crd)
	if err != nil {
		return nil, err
	}
	w.admit.Store(name, a)
	return a, nil
}

// AdmitWith admits obj against crd, which need not be in the world.
func AdmitWith(crd *extv1.CustomResourceDefinition, obj map[string]any) (map[string]any, error) {
	a, err := newAdmitter(crd)
	if err != nil {
		return nil, err
	}
	return a.admit(obj)
}

// admitter is the serving of one CRD's only (storage) version, as
// apiextensions-apiserver's crdHandler sets it up
// (pkg/apiserver/customresource_handler.go, getOrCreateServingInfoFor).
type admitter struct {
	crd        *extv1.CustomResourceDefinition
	structural *structuralschema.Structural
	validate   func(u *unstructured.Unstructured) error
}

func newAdmitter(crd *extv1.CustomResourceDefinition) (*admitter, error) {
	var version *extv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			version = &crd.Spec.Versions[i]
		}
	}
	if version == nil || version.Schema == nil {
		return nil, fmt.Errorf("CRD %s has no storage version with a schema", crd.Name)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := extv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(version.Schema, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensions.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if version.Subresources != nil && version.Subresources.Status != nil {
		statusSpec = &apiextensions.CustomResourceSubresourceStatus{}
		if st, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
			statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st)
			if err != nil {
				return nil, err
			}
		}
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
	strategy := customresource.NewStrategy(nil, crd.Spec.Scope == extv1.NamespaceScoped, gvk, validator, statusValidator, s, statusSpec, nil, version.SelectableFields)
	a := &admitter{crd: crd, structural: s}
	a.validate = func(u *unstructured.Unstructured) error {
		strategy.PrepareForCreate(context.Background(), u)
		if errs := strategy.Validate(context.Background(), u); len(errs) > 0 {
			return errs.ToAggregate()
		}
		return nil
	}
	return a, nil
}

func (a *admitter) admit(obj map[string]any) (map[string]any, error) {
	// A deep copy through JSON, as the API server receives it.
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	if gv, err := schema.ParseGroupVersion(u.GetAPIVersion()); err != nil || gv.Group != a.crd.Spec.Group || u.GetKind() != a.crd.Spec.Names.Kind {
		return nil, fmt.Errorf("%s %s is not a kind of CRD %s", u.GetAPIVersion(), u.GetKind(), a.crd.Name)
	}
	// Strict field validation (kubectl's default since 1.27): a field the
	// schema prunes is an error, metadata's unknown fields included.
	unknown := structuralpruning.PruneWithOptions(u.Object, a.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, a.structural)
	if len(unknown) > 0 {
		return nil, fmt.Errorf("strict decoding error: unknown field %s", quoteAll(unknown))
	}
	structuraldefaulting.Default(u.Object, a.structural)
	if err := a.validate(u); err != nil {
		return nil, fmt.Errorf("%s %q is invalid: %w", u.GetKind(), u.GetName(), err)
	}
	return u.Object, nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// KroCRDFile reads kro's own ResourceGraphDefinition CRD from kro's
// module, at the version this module requires (helm/crds, the one its
// chart installs). The module's folder comes from the go command, which
// the suite runs under.
func KroCRDFile() ([]byte, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kubernetes-sigs/kro").Output()
	if err != nil {
		return nil, fmt.Errorf("locating kro's module: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return nil, errors.New("locating kro's module: the go command gives no folder (run go mod download)")
	}
	return os.ReadFile(filepath.Join(dir, "helm", "crds", "kro.run_resourcegraphdefinitions.yaml"))
}

// KroCRD is the CRD of KroCRDFile.
func KroCRD() (*extv1.CustomResourceDefinition, error) {
	data, err := KroCRDFile()
	if err != nil {
		return nil, err
	}
	crds, err := ParseCRDs(data)
	if err != nil {
		return nil, err
	}
	if len(crds) != 1 {
		return nil, fmt.Errorf("kro's CRD file holds %d CRDs", len(crds))
	}
	return crds[0], nil
}

// ParseCRDs reads the CustomResourceDefinitions of a multi-document YAML file.
func ParseCRDs(data []byte) ([]*extv1.CustomResourceDefinition, error) {
	var out []*extv1.CustomResourceDefinition
	for _, doc := range SplitYAML(data) {
		var crd extv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
			return nil, err
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		out = append(out, &crd)
	}
	return out, nil
}

// DecodeYAML decodes a YAML document as kubectl sends it to the API
// server: converted to JSON, numbers kept as written (an integer too large
// for a float64 stays exact).
func DecodeYAML(doc []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// SplitYAML splits a multi-document YAML file into its non-empty documents.
func SplitYAML(data []byte) [][]byte {
	var out [][]byte
	for _, doc := range strings.Split("\n"+string(data), "\n---") {
		doc = strings.TrimPrefix(doc, "\n")
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		out = append(out, []byte(doc))
	}
	return out
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
