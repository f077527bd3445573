package rgd

import (
	"bytes"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/schemas"
)

// kind is a kind a stack's resources may have, with the schema its CEL is
// typed with.
type kind struct {
	apiVersion string
	schema     *kro.Schema
	primitive  bool // one of the orchestrator's primitives
}

// loadKinds reads the embedded CRDs: the primitives and Argo CD's
// Application.
func loadKinds() (map[string]kind, error) {
	kinds := map[string]kind{}
	files := schemas.CRDs()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, doc := range bytes.Split(files[name], []byte("\n---\n")) {
			var crd struct {
				Spec struct {
					Group    string
					Names    struct{ Kind string }
					Versions []struct {
						Name   string
						Served bool
						Schema struct {
							OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
						}
					}
				}
			}
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				kinds[crd.Spec.Names.Kind] = kind{
					apiVersion: crd.Spec.Group + "/" + v.Name,
					schema:     SchemaFromOpenAPI(v.Schema.OpenAPIV3Schema),
					primitive:  crd.Spec.Group != "argoproj.io",
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
