package validate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// This file turns a CRD's structural OpenAPI v3 schema into a JSON Schema
// (draft 2020-12) that the jsonschema library compiles.
//
// Conversion rules, node by node:
//
//   - Strictness: an object schema with "properties" and no
//     "additionalProperties" gets "additionalProperties": false. The API
//     server would silently prune unknown fields; a typo should fail.
//   - "x-kubernetes-preserve-unknown-fields": true leaves the node open
//     (declared properties are still checked).
//   - "x-kubernetes-int-or-string": true becomes "type": ["integer",
//     "string"] (plus "null" when nullable), replacing any "type" and the
//     generators' "anyOf": a type list gives one message, not one per
//     branch.
//   - "nullable": true adds "null" to the type (and to "enum", if any).
//   - OpenAPI v3.0's boolean "exclusiveMinimum"/"exclusiveMaximum" become
//     draft 2020-12's numeric ones.
//   - A property with a "default" is dropped from its parent's "required":
//     the API server defaults before validating (kro's
//     spec.schema.scope is one).
//   - "format" is dropped: asserting it would not match Kubernetes
//     (int32/int64 are range checks there, date-time parsing differs).
//   - Annotations and Kubernetes-only keywords (description, default,
//     x-kubernetes-validations, list/map types, ...) are dropped: they
//     have no JSON Schema meaning.
//   - Inside anyOf/allOf/oneOf/not, Kubernetes allows only value
//     validations repeating the outer structure, so no
//     additionalProperties: false is added there: it would reject
//     declared fields.
//
// Any keyword outside Kubernetes' JSONSchemaProps is an error, so a
// constraint is never skipped silently.

// objectMetaSchema is the strict schema for metadata in a manifest: the
// ObjectMeta fields a person or a compiler may set. Everything else
// (uid, resourceVersion, managedFields, ...) belongs to the cluster.
func objectMetaSchema() map[string]any {
	stringMap := func() map[string]any {
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"name":         map[string]any{"type": "string"},
			"generateName": map[string]any{"type": "string"},
			"namespace":    map[string]any{"type": "string"},
			"labels":       stringMap(),
			"annotations":  stringMap(),
			"finalizers":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		},
	}
}

// rootSchema converts the openAPIV3Schema of one CRD version into the JSON
// Schema for objects of apiVersion and kind.
func rootSchema(openAPI map[string]any, apiVersion, kind string) (map[string]any, error) {
	root, err := convert(openAPI, true, "")
	if err != nil {
		return nil, err
	}
	props, _ := root["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		root["properties"] = props
		if _, ok := root["additionalProperties"]; !ok && !isTrue(openAPI["x-kubernetes-preserve-unknown-fields"]) {
			root["additionalProperties"] = false
		}
	}
	root["type"] = "object"
	props["apiVersion"] = map[string]any{"type": "string", "const": apiVersion}
	props["kind"] = map[string]any{"type": "string", "const": kind}

	meta := objectMetaSchema()
	crdProps, _ := openAPI["properties"].(map[string]any)
	if crdMeta, ok := crdProps["metadata"].(map[string]any); ok && hasConstraints(crdMeta) {
		// A CRD may restrict metadata.name (pattern, maxLength): check
		// that too, on top of the strict built-in schema.
		extra, err := convert(crdMeta, false, "/properties/metadata")
		if err != nil {
			return nil, err
		}
		meta = map[string]any{"allOf": []any{meta, extra}}
	}
	props["metadata"] = meta

	req := []any{"apiVersion", "kind"}
	old, _ := root["required"].([]any)
	for _, r := range old {
		if r != "apiVersion" && r != "kind" {
			req = append(req, r)
		}
	}
	root["required"] = req
	return root, nil
}

// hasConstraints reports whether a CRD's metadata schema says more than
// "type: object".
func hasConstraints(s map[string]any) bool {
	for k := range s {
		if k != "type" && k != "description" {
			return true
		}
	}
	return false
}

func isTrue(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// convert converts one schema node. strict says whether object schemas
// with properties get additionalProperties: false. at is the node's
// location in the CRD schema, for error messages.
func convert(s map[string]any, strict bool, at string) (map[string]any, error) {
	out := map[string]any{}
	intOrString := isTrue(s["x-kubernetes-int-or-string"])
	preserve := isTrue(s["x-kubernetes-preserve-unknown-fields"])
	nullable := isTrue(s["nullable"])
	// sub converts the sub-schema v, at at.
	sub := func(v any, strict bool, at string) (map[string]any, error) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a schema, got %T", at, v)
		}
		return convert(m, strict, at)
	}

	keys := slices.AppendSeq(make([]string, 0, len(s)), maps.Keys(s))
	slices.Sort(keys)
	for _, k := range keys {
		v := s[k]
		switch k {
		case "description", "title", "default", "example", "externalDocs", "format", "id", "$schema", "nullable":
			// Not carried over (nullable: below).
		case "maximum", "minimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
			"uniqueItems", "multipleOf", "maxProperties", "minProperties":
			// The same in OpenAPI v3 and draft 2020-12.
			out[k] = v
		case "type":
			if intOrString {
				continue
			}
			t, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s/type: want a string, got %T", at, v)
			}
			out["type"] = t
		case "enum", "required":
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/%s: want a list, got %T", at, k, v)
			}
			out[k] = append([]any(nil), l...)
		case "exclusiveMinimum", "exclusiveMaximum":
			// Handled below, together with minimum/maximum.
		case "properties":
			p, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: want a map, got %T", at, v)
			}
			props := make(map[string]any, len(p))
			for name, ps := range p {
				c, err := sub(ps, strict, at+"/properties/"+name)
				if err != nil {
					return nil, err
				}
				props[name] = c
			}
			out["properties"] = props
		case "additionalProperties":
			switch ap := v.(type) {
			case bool:
				out[k] = ap
			case map[string]any:
				c, err := convert(ap, strict, at+"/"+k)
				if err != nil {
					return nil, err
				}
				out[k] = c
			default:
				return nil, fmt.Errorf("%s/%s: want a schema or a bool, got %T", at, k, v)
			}
		case "items":
			c, err := sub(v, strict, at+"/items")
			if err != nil {
				return nil, err
			}
			out["items"] = c
		case "anyOf", "allOf", "oneOf":
			if intOrString && k == "anyOf" {
				continue // replaced by the type list below
			}
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/%s: want a list, got %T", at, k, v)
			}
			var conv []any
			for i, item := range list {
				c, err := sub(item, false, fmt.Sprintf("%s/%s/%d", at, k, i))
				if err != nil {
					return nil, err
				}
				conv = append(conv, c)
			}
			out[k] = conv
		case "not":
			c, err := sub(v, false, at+"/not")
			if err != nil {
				return nil, err
			}
			out["not"] = c
		default:
			if !strings.HasPrefix(k, "x-kubernetes-") {
				return nil, fmt.Errorf("%s: unsupported schema keyword %q", at, k)
			}
		}
	}

	for _, b := range []struct{ excl, bound string }{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		if isTrue(s[b.excl]) {
			if bound, ok := out[b.bound]; ok {
				out[b.excl] = bound
				delete(out, b.bound)
			}
		}
	}

	if intOrString {
		out["type"] = []any{"integer", "string"}
	}
	if nullable {
		switch t := out["type"].(type) {
		case string:
			out["type"] = []any{t, "null"}
		case []any:
			out["type"] = append(t, "null")
		}
		if e, ok := out["enum"].([]any); ok {
			out["enum"] = append(e, nil)
		}
	}

	// Required fields that have a default are filled in by the API server.
	if req, ok := out["required"].([]any); ok {
		props, _ := s["properties"].(map[string]any)
		kept := slices.DeleteFunc(req, func(r any) bool { // req is out's own copy
			name, _ := r.(string)
			ps, _ := props[name].(map[string]any)
			_, hasDefault := ps["default"]
			return hasDefault
		})
		if len(kept) == 0 {
			delete(out, "required")
		} else {
			out["required"] = kept
		}
	}

	if isTrue(s["x-kubernetes-embedded-resource"]) {
		// An embedded object always may carry apiVersion, kind and metadata.
		if props, ok := out["properties"].(map[string]any); ok {
			for name, sch := range map[string]map[string]any{
				"apiVersion": {"type": "string"},
				"kind":       {"type": "string"},
				"metadata":   {"type": "object"},
			} {
				if _, ok := props[name]; !ok {
					props[name] = sch
				}
			}
		}
	}

	if strict && !preserve {
		if _, hasProps := out["properties"]; hasProps {
			if _, hasAP := out["additionalProperties"]; !hasAP {
				out["additionalProperties"] = false
			}
		}
	}
	return out, nil
}
