// Package rgdobject reads a rendered ResourceGraphDefinition back into a
// kro.RGD, so that the tests (compiler's TestRenderedRGDsCheck,
// conformance/kro) check it again from its bytes, as kro will read it.
package rgdobject

import (
	"fmt"
	"maps"
	"slices"

	"github.com/platc/platc/compiler/kro"
)

// Read reads a ResourceGraphDefinition (as decoded YAML) into a kro.RGD.
func Read(obj map[string]any) (*kro.RGD, error) {
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
