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
	"github.com/platc/platc/schemas"
	"github.com/platc/platc/testkit/crdsubset"
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
		for _, d := range crdsubset.Wellformed(crds[0], name) {
			t.Errorf("crds/%s: %s", name, d)
		}
	}
	if _, err := validate.FromCRDs(embedded); err != nil {
		t.Errorf("validate.FromCRDs: %v", err)
	}
}

var update = flag.Bool("update", false, "rewrite crds.json from crds/, and docs/spec.md")

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
