package rgd

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/schemas"
)

// kind is a kind a stack's resources may have, with the schema its CEL is
// typed with.
type kind struct {
	apiVersion string
	schema     *kro.Schema
	primitive  bool // one of the orchestrator's primitives
}

var (
	kindsOnce sync.Once
	kindsVal  map[string]kind
	kindsErr  error
)

// Prepare reads the embedded CRDs of the kinds stacks use. Compile calls it
// on another goroutine while the spec loads; Compile (of this package)
// waits for it if it has not finished.
func Prepare() { loadKinds() }

// loadKinds reads the embedded CRDs (the primitives and Argo CD's
// Application) once; the result is shared and never modified.
func loadKinds() (map[string]kind, error) {
	kindsOnce.Do(func() { kindsVal, kindsErr = readKinds() })
	return kindsVal, kindsErr
}

func readKinds() (map[string]kind, error) {
	kinds := map[string]kind{}
	files, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for _, crd := range files[name] {
			group, _ := object.Lookup(crd, "spec", "group").(string)
			kindName, _ := object.Lookup(crd, "spec", "names", "kind").(string)
			versions, _ := object.Lookup(crd, "spec", "versions").([]any)
			for _, v := range versions {
				if served, _ := object.Lookup(v, "served").(bool); !served {
					continue
				}
				version, _ := object.Lookup(v, "name").(string)
				openAPI, _ := object.Lookup(v, "schema", "openAPIV3Schema").(map[string]any)
				kinds[kindName] = kind{
					apiVersion: group + "/" + version,
					schema:     SchemaFromOpenAPI(openAPI),
					// Argo CD's and kro's own kinds are not primitives.
					primitive: group != "argoproj.io" && group != "kro.run",
				}
			}
		}
	}
	return kinds, nil
}

// SchemaFromOpenAPI converts a structural OpenAPI v3 schema (a CRD's
// openAPIV3Schema, as plain data) into a kro.Schema.
func SchemaFromOpenAPI(m map[string]any) *kro.Schema {
	if m == nil {
		return &kro.Schema{}
	}
	s := &kro.Schema{}
	s.Type, _ = m["type"].(string)
	s.Description, _ = m["description"].(string)
	s.PreserveUnknown, _ = m["x-kubernetes-preserve-unknown-fields"].(bool)
	s.IntOrString, _ = m["x-kubernetes-int-or-string"].(bool)
	s.Pattern, _ = m["pattern"].(string)
	s.Default = m["default"]
	if e, ok := m["enum"].([]any); ok {
		s.Enum = e
	}
	if props, ok := m["properties"].(map[string]any); ok {
		s.Properties = map[string]*kro.Schema{}
		for name, p := range props {
			pm, _ := p.(map[string]any)
			s.Properties[name] = SchemaFromOpenAPI(pm)
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	if items, ok := m["items"].(map[string]any); ok {
		s.Items = SchemaFromOpenAPI(items)
	}
	switch ap := m["additionalProperties"].(type) {
	case map[string]any:
		s.AdditionalProperties = SchemaFromOpenAPI(ap)
	case bool:
		if ap {
			s.AdditionalProperties = &kro.Schema{}
		}
	}
	if s.Type == "object" && s.Properties == nil && s.AdditionalProperties == nil {
		// An object with neither is open, as Kubernetes reads it.
		s.PreserveUnknown = true
	}
	return s
}

// FromObject reads a ResourceGraphDefinition (as decoded YAML) back into a
// kro.RGD, with each resource typed by the embedded schema of its kind. It
// lets a rendered RGD be checked again from its bytes, as kro will read it.
func FromObject(obj map[string]any) (*kro.RGD, error) {
	kinds, err := loadKinds()
	if err != nil {
		return nil, err
	}
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
	rgd := &kro.RGD{
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
		tmpl := mapOf(rm, "template")
		res := kro.Resource{ID: str(rm, "id"), Template: tmpl, IncludeWhen: strs(rm, "includeWhen"), ReadyWhen: strs(rm, "readyWhen")}
		if k, ok := kinds[str(tmpl, "kind")]; ok && k.apiVersion == str(tmpl, "apiVersion") {
			res.Schema = k.schema
		}
		rgd.Resources = append(rgd.Resources, res)
	}
	return rgd, nil
}
