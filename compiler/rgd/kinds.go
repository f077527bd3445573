package rgd

import (
	"fmt"
	"maps"
	"slices"

	"github.com/platc/platc/compiler/kro"
)

// kind is a kind a stack's primitives may have.
type kind struct {
	apiVersion string
	required   []string // the fields its CRD requires
	specFields []string // the fields of its spec
	primitive  bool     // one of the orchestrator's primitives
}

// Prepare reads the embedded CRDs of the kinds stacks use, into kro's
// schema resolver. Compile calls it on another goroutine while the spec
// loads; Compile (of this package) waits for it if it has not finished.
func Prepare() { _, _ = kro.Embedded() }

// loadKinds returns the kinds of the embedded CRDs by kind name.
func loadKinds() (*kro.Kinds, map[string]kind, error) {
	kinds, err := kro.Embedded()
	if err != nil {
		return nil, nil, err
	}
	out := map[string]kind{}
	for _, k := range kinds.List() {
		out[k.Kind] = kind{
			apiVersion: k.APIVersion,
			required:   k.Required,
			specFields: k.SpecFields,
			// Argo CD's and kro's own kinds, and Kubernetes', are not
			// primitives.
			primitive: !k.Builtin && k.Group != "argoproj.io" && k.Group != "kro.run",
		}
	}
	return kinds, out, nil
}

// FromObject reads a ResourceGraphDefinition (as decoded YAML) back into a
// kro.RGD. It lets a rendered RGD be checked again from its bytes, as kro
// will read it.
func FromObject(obj map[string]any) (*kro.RGD, error) {
	spec, _ := obj["spec"].(map[string]any)
	schema, _ := spec["schema"].(map[string]any)
	if schema == nil {
		return nil, fmt.Errorf("no spec.schema")
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	mapOf := func(m map[string]any, k string) map[string]any { x, _ := m[k].(map[string]any); return x }
	strs := func(m map[string]any, k string) []string {
		var out []string
		l, _ := m[k].([]any)
		for _, x := range l {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	meta, _ := obj["metadata"].(map[string]any)
	rgd := &kro.RGD{
		Name:       str(meta, "name"),
		APIVersion: str(schema, "apiVersion"),
		Kind:       str(schema, "kind"),
		Group:      str(schema, "group"),
		Spec:       mapOf(schema, "spec"),
		Types:      mapOf(schema, "types"),
		Status:     mapOf(schema, "status"),
	}
	resources, _ := spec["resources"].([]any)
	for _, r := range resources {
		rm, _ := r.(map[string]any)
		res := kro.Resource{ID: str(rm, "id"), Template: mapOf(rm, "template"), IncludeWhen: strs(rm, "includeWhen"), ReadyWhen: strs(rm, "readyWhen")}
		if e := mapOf(rm, "externalRef"); e != nil {
			meta := mapOf(e, "metadata")
			res.ExternalRef = &kro.ExternalRef{APIVersion: str(e, "apiVersion"), Kind: str(e, "kind"), Name: str(meta, "name"), Namespace: str(meta, "namespace")}
		}
		dims, _ := rm["forEach"].([]any)
		for _, d := range dims {
			dm, _ := d.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(dm)) {
				res.ForEach = append(res.ForEach, kro.Dimension{Name: name, Expr: str(dm, name)})
			}
		}
		rgd.Resources = append(rgd.Resources, res)
	}
	return rgd, nil
}

// primitiveKinds lists the primitives' kinds, sorted.
func primitiveKinds(kinds map[string]kind) []string {
	var out []string
	for name, k := range kinds {
		if k.primitive {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
