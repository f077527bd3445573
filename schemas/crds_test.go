package schemas_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/internal/crdsubset"
	"github.com/platc/platc/schemas"
)

// TestEmbeddedCRDsAreValid checks every CRD in crds/: an
// apiextensions.k8s.io/v1 CustomResourceDefinition named after its group and
// plural (file and object), with a served and a storage version, whose schema
// is structural; and that compiler/validate builds a validator from them all.
func TestEmbeddedCRDsAreValid(t *testing.T) {
	entries, err := os.ReadDir("crds")
	if err != nil {
		t.Fatal(err)
	}
	embedded := schemas.CRDs()
	if len(entries) == 0 {
		t.Fatal("crds/ is empty")
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".yaml") {
			t.Errorf("crds/%s: not embedded: every file of crds/ is a CRD named <group>_<plural>.yaml", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join("crds", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded["schemas/crds/"+name], data) {
			t.Errorf("crds/%s: schemas.CRDs() does not return it as schemas/crds/%s", name, name)
		}
		crds, err := crdsubset.Parse(data)
		if err != nil {
			t.Errorf("crds/%s: %v", name, err)
			continue
		}
		if len(crds) != 1 {
			t.Errorf("crds/%s: %d CustomResourceDefinitions, want one a file", name, len(crds))
			continue
		}
		for _, d := range validityDiffs(crds[0], name) {
			t.Errorf("crds/%s: %s", name, d)
		}
	}
	if _, err := validate.FromCRDs(embedded); err != nil {
		t.Errorf("validate.FromCRDs: %v", err)
	}
}

func validityDiffs(c *crdsubset.CRD, file string) []string {
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

var update = flag.Bool("update", false, "rewrite crds.json from crds/")

// TestCRDsJSON checks that crds.json is made from the YAML files of crds/
// (with -update, rewrites it), and that CRDObjects reads from it what
// decoding each YAML document gives. The bytes' check implies the files
// and documents; the values' check guards what crds.json relies on, that
// sigs.k8s.io/yaml decodes a document as its JSON conversion (true of
// v1.6.0, whose Unmarshal is that conversion): an upgrade that decodes
// numbers otherwise fails here.
func TestCRDsJSON(t *testing.T) {
	want, err := crdsJSON(schemas.CRDs())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("crds.json", want, 0o666); err != nil {
			t.Fatal(err)
		}
		return // the binary embeds the file it had: the next run checks it
	}
	got, err := os.ReadFile("crds.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("crds.json is not made from crds/: run go test ./schemas -update")
	}
	objects, err := schemas.CRDObjects()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range schemas.CRDs() {
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			var m map[string]any
			if err := yaml.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			if i >= len(objects[name]) || !reflect.DeepEqual(objects[name][i], m) {
				t.Errorf("%s: document %d decodes to other values than its YAML", name, i+1)
			}
		}
	}
}

// crdsJSON is what crds.json holds for the files of CRDs: by file name,
// each document converted to JSON by sigs.k8s.io/yaml, indented.
func crdsJSON(files map[string][]byte) ([]byte, error) {
	out := map[string][]json.RawMessage{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		out[name] = []json.RawMessage{}
		for i, doc := range bytes.Split(files[name], []byte("\n---\n")) {
			data, err := yaml.YAMLToJSON(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
			}
			out[name] = append(out[name], data)
		}
	}
	data, err := json.MarshalIndent(out, "", "\t")
	return append(data, '\n'), err
}
