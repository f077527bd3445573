// Package crdsubset tells how a CustomResourceDefinition is not a subset of
// another: how the CRDs platc embeds (schemas/crds) are not subsets of the
// ones Argo CD and kro ship. The conformance modules compare them, with
// upstream's CRDs read from upstream's module at the version platc targets
// (conformance/argocd and conformance/kro, TestEmbeddedCRDsAreSubsets);
// platc's module has no upstream CRD to compare with. Wellformed checks one
// CRD as written by hand (schemas/crds_test.go).
package crdsubset

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// CRD is the part of a CustomResourceDefinition the comparison reads.
type CRD struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind     string `json:"kind"`
			ListKind string `json:"listKind"`
			Plural   string `json:"plural"`
			Singular string `json:"singular"`
		} `json:"names"`
		Scope    string    `json:"scope"`
		Versions []Version `json:"versions"`
	} `json:"spec"`
}

// Version is one version of a CRD.
type Version struct {
	Name    string `json:"name"`
	Served  bool   `json:"served"`
	Storage bool   `json:"storage"`
	Schema  struct {
		OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
	} `json:"schema"`
}

// ID is the CRD's group and kind: "argoproj.io/Application".
func (c *CRD) ID() string { return c.Spec.Group + "/" + c.Spec.Names.Kind }

func (c *CRD) version(name string) *Version {
	for i := range c.Spec.Versions {
		if c.Spec.Versions[i].Name == name {
			return &c.Spec.Versions[i]
		}
	}
	return nil
}

// Parse reads every CustomResourceDefinition of a YAML stream (documents
// separated by ---), skipping empty documents.
func Parse(data []byte) ([]*CRD, error) {
	var out []*CRD
	var docs [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if strings.TrimRight(string(line), " \t\r\n") == "---" {
			docs = append(docs, bytes.Clone(cur.Bytes()))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	docs = append(docs, cur.Bytes())
	for i, doc := range docs {
		var probe any
		if err := yaml.Unmarshal(doc, &probe); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if probe == nil {
			continue
		}
		c := &CRD{}
		if err := yaml.Unmarshal(doc, c); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// Compare compares the CRDs of kinds (group/kind, such as
// "argoproj.io/Application") in the files ours with those in the files up,
// both by file name, and returns how each of ours is not a subset of
// upstream's, one line per difference. A kind of kinds that either side
// lacks is a difference, so that a comparison never passes by comparing
// nothing.
func Compare(ours, up map[string][]byte, kinds ...string) ([]string, error) {
	oursByID, err := byID(ours)
	if err != nil {
		return nil, err
	}
	upByID, err := byID(up)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range kinds {
		o, u := oursByID[k], upByID[k]
		switch {
		case o == nil:
			out = append(out, k+": no CRD of ours")
		case u == nil:
			out = append(out, k+": no upstream CRD")
		default:
			for _, d := range Diffs(o, u) {
				out = append(out, k+" "+d)
			}
		}
	}
	return out, nil
}

// byID parses the CRDs of files, by ID.
func byID(files map[string][]byte) (map[string]*CRD, error) {
	out := map[string]*CRD{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		crds, err := Parse(files[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, c := range crds {
			out[c.ID()] = c
		}
	}
	return out, nil
}

// Diffs lists how ours is not a subset of up, one line per difference:
// ours must have up's name, names and scope; each of its versions must be
// up's, served only if up serves it; every property path it declares, up
// must declare with the same type, format, value constraints (pattern,
// enum, bounds) and default; every field up requires at a node it
// declares, it must declare and require too. So everything ours accepts,
// up accepts (CEL rules aside).
func Diffs(ours, up *CRD) []string {
	var out []string
	report := func(path, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	for _, f := range []struct{ field, ours, up string }{
		{"metadata.name", ours.Metadata.Name, up.Metadata.Name},
		{"spec.names.listKind", ours.Spec.Names.ListKind, up.Spec.Names.ListKind},
		{"spec.names.plural", ours.Spec.Names.Plural, up.Spec.Names.Plural},
		{"spec.names.singular", ours.Spec.Names.Singular, up.Spec.Names.Singular},
		{"spec.scope", ours.Spec.Scope, up.Spec.Scope},
	} {
		if f.ours != f.up {
			report(f.field, "%q, upstream %q", f.ours, f.up)
		}
	}
	for _, v := range ours.Spec.Versions {
		uv := up.version(v.Name)
		switch {
		case uv == nil:
			report(v.Name, "version not in the upstream CRD")
			continue
		case v.Served && !uv.Served:
			report(v.Name, "version served here, not upstream")
		}
		c := &comparison{report: func(path, format string, args ...any) {
			report(v.Name+" "+path, format, args...)
		}}
		c.node(".", v.Schema.OpenAPIV3Schema, uv.Schema.OpenAPIV3Schema)
	}
	return out
}

type comparison struct {
	report func(path, format string, args ...any)
}

// constraints are the value validations that upstream sets on a node and a
// subset must keep, with the same value (it may add its own).
var constraints = []string{
	"format", "default", "enum", "pattern",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf",
}

// node compares the schema node ours, at path, with the upstream node up.
func (c *comparison) node(path string, ours, up map[string]any) {
	if isTrue(up, "x-kubernetes-preserve-unknown-fields") && typeOf(up) == "" {
		return // upstream accepts any value here
	}
	if typeOf(ours) != typeOf(up) {
		c.report(path, "type %s, upstream %s", show(typeOf(ours)), show(typeOf(up)))
		return
	}
	if isTrue(ours, "nullable") && !isTrue(up, "nullable") {
		c.report(path, "nullable here, not upstream")
	}
	if isTrue(ours, "x-kubernetes-preserve-unknown-fields") && !isTrue(up, "x-kubernetes-preserve-unknown-fields") {
		c.report(path, "x-kubernetes-preserve-unknown-fields here, not upstream (upstream prunes unknown fields)")
	}
	for _, k := range constraints {
		uv, ok := up[k]
		if ok && !reflect.DeepEqual(ours[k], uv) {
			if ov, ok := ours[k]; ok {
				c.report(path, "%s %v, upstream %v", k, ov, uv)
			} else {
				c.report(path, "no %s, upstream %v", k, uv)
			}
		}
	}

	upPreserve := isTrue(up, "x-kubernetes-preserve-unknown-fields")
	upProps, _ := up["properties"].(map[string]any)
	upAdditional, _ := up["additionalProperties"].(map[string]any)
	ourProps, _ := ours["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(ourProps)) {
		p := join(path, name)
		op, _ := ourProps[name].(map[string]any)
		if upp, ok := upProps[name].(map[string]any); ok {
			c.node(p, op, upp)
		} else if upAdditional != nil {
			c.node(p, op, upAdditional)
		} else if !upPreserve {
			c.report(p, "not in the upstream CRD")
		}
	}
	if oa, ok := ours["additionalProperties"].(map[string]any); ok {
		p := join(path, "*")
		if upAdditional != nil {
			c.node(p, oa, upAdditional)
		} else if !upPreserve {
			c.report(p, "additionalProperties here, not upstream")
		}
	}
	if oi, ok := ours["items"].(map[string]any); ok {
		p := strings.TrimSuffix(path, ".") + "[]"
		if ui, ok := up["items"].(map[string]any); ok {
			c.node(p, oi, ui)
		} else if !upPreserve {
			c.report(p, "items here, not upstream")
		}
	}

	ourRequired := strs(ours["required"])
	for _, r := range strs(up["required"]) {
		switch {
		case ourProps[r] == nil:
			c.report(path, "upstream requires %q: declare it, required", r)
		case !slices.Contains(ourRequired, r):
			c.report(path, "upstream requires %q, optional here", r)
		}
	}
}

// Wellformed lists what is wrong with c as a CRD written by hand and kept
// in file: an apiextensions.k8s.io/v1 CustomResourceDefinition named after
// its group and plural (file and object), with served versions and one
// storage version, whose schemas are structural.
func Wellformed(c *CRD, file string) []string {
	var out []string
	report := func(path, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if c.APIVersion != "apiextensions.k8s.io/v1" || c.Kind != "CustomResourceDefinition" {
		report("kind", "%s %s, want apiextensions.k8s.io/v1 CustomResourceDefinition", c.APIVersion, c.Kind)
	}
	n := c.Spec.Names
	if c.Spec.Group == "" || n.Kind == "" || n.ListKind == "" || n.Plural == "" || n.Singular == "" {
		report("spec", "want spec.group and spec.names.kind, listKind, plural and singular")
	}
	if want := n.Plural + "." + c.Spec.Group; c.Metadata.Name != want {
		report("metadata.name", "%q, want %q", c.Metadata.Name, want)
	}
	if want := c.Spec.Group + "_" + n.Plural + ".yaml"; file != want {
		report("file", "named %s, want %s", file, want)
	}
	if c.Spec.Scope != "Namespaced" && c.Spec.Scope != "Cluster" {
		report("spec.scope", "%q, want Namespaced or Cluster", c.Spec.Scope)
	}
	served, storage := 0, 0
	for _, v := range c.Spec.Versions {
		if v.Served {
			served++
		}
		if v.Storage {
			storage++
		}
		s := v.Schema.OpenAPIV3Schema
		if s == nil {
			report("version "+v.Name, "no schema.openAPIV3Schema")
			continue
		}
		if typeOf(s) != "object" {
			report("version "+v.Name, "openAPIV3Schema has type %s, want object", show(typeOf(s)))
		}
		structural(".", s, func(path, format string, args ...any) {
			report("version "+v.Name+" "+path, format, args...)
		})
	}
	if served == 0 {
		report("spec.versions", "no served version")
	}
	if storage != 1 {
		report("spec.versions", "%d storage versions, want 1", storage)
	}
	return out
}

// structural checks the rules of a structural schema that a hand-written one
// can break: every node has a type, except where unknown fields are preserved
// or the value is an int-or-string; an array has items; an object has not
// both properties and additionalProperties; required fields are declared.
func structural(path string, s map[string]any, report func(path, format string, args ...any)) {
	t := typeOf(s)
	if t == "" && !isTrue(s, "x-kubernetes-preserve-unknown-fields") {
		report(path, "no type")
	}
	if t == "int-or-string" {
		if typ, ok := s["type"]; ok {
			report(path, "x-kubernetes-int-or-string with type %v", typ)
		}
	}
	props, hasProps := s["properties"].(map[string]any)
	additional, hasAdditional := s["additionalProperties"].(map[string]any)
	items, hasItems := s["items"].(map[string]any)
	if (hasProps || hasAdditional) && t != "object" {
		report(path, "properties on a node of type %s", show(t))
	}
	if hasProps && hasAdditional {
		report(path, "both properties and additionalProperties")
	}
	if t == "array" && !hasItems {
		report(path, "an array without items")
	}
	if hasItems && t != "array" {
		report(path, "items on a node of type %s", show(t))
	}
	for _, r := range strs(s["required"]) {
		if props[r] == nil {
			report(path, "requires %q, which it does not declare", r)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := props[name].(map[string]any)
		if !ok {
			report(join(path, name), "not a schema")
			continue
		}
		structural(join(path, name), p, report)
	}
	if hasAdditional {
		structural(join(path, "*"), additional, report)
	}
	if hasItems {
		structural(strings.TrimSuffix(path, ".")+"[]", items, report)
	}
}

// typeOf is a node's type, "int-or-string" for x-kubernetes-int-or-string.
func typeOf(s map[string]any) string {
	if isTrue(s, "x-kubernetes-int-or-string") {
		return "int-or-string"
	}
	t, _ := s["type"].(string)
	return t
}

func show(t string) string {
	if t == "" {
		return "(none)"
	}
	return t
}

func isTrue(s map[string]any, key string) bool {
	b, _ := s[key].(bool)
	return b
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// join appends a property name to a path: "." + "spec" is ".spec".
func join(path, name string) string {
	if path == "." {
		return "." + name
	}
	return path + "." + name
}

// Fields lists the fields the CRDs of kinds (group/kind) in files declare,
// one line per field: "group/Kind version path", sorted. A path is
// property names each after a dot (".spec.source"); "[]" stands for a list's items, "*" for any
// key of a map (additionalProperties), and a last "**" for anything
// below a field that keeps unknown fields
// (x-kubernetes-preserve-unknown-fields). platc embeds these lines of
// upstream's CRDs (schemas/upstream-fields.txt) to tell a field its
// own, smaller CRDs lack from one no CRD declares.
func Fields(files map[string][]byte, kinds ...string) ([]string, error) {
	byKind, err := byID(files)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range kinds {
		c := byKind[k]
		if c == nil {
			return nil, fmt.Errorf("%s: no CRD", k)
		}
		for _, v := range c.Spec.Versions {
			var walk func(path string, s map[string]any)
			walk = func(path string, s map[string]any) {
				if path != "." {
					out = append(out, k+" "+v.Name+" "+path)
				}
				if isTrue(s, "x-kubernetes-preserve-unknown-fields") {
					out = append(out, k+" "+v.Name+" "+join(path, "**"))
				}
				if props, ok := s["properties"].(map[string]any); ok {
					for _, name := range slices.Sorted(maps.Keys(props)) {
						if p, ok := props[name].(map[string]any); ok {
							walk(join(path, name), p)
						}
					}
				}
				if items, ok := s["items"].(map[string]any); ok {
					walk(join(path, "[]"), items)
				}
				if ap, ok := s["additionalProperties"].(map[string]any); ok {
					walk(join(path, "*"), ap)
				}
			}
			walk(".", v.Schema.OpenAPIV3Schema)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
