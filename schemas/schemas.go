// Package schemas embeds the schemas platc needs at run time: the CUE
// definition of the spec language, and the CustomResourceDefinitions of the
// kinds product stacks reference (the orchestrator's primitives, and the part
// of Argo CD's Application that platc renders). The binary carries them, so a
// user's spec is checked without copying them into the user's repository.
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"sigs.k8s.io/yaml"
)

// PlatformCUE is the CUE schema of the spec language; #Spec is its top.
//
//go:embed platform.cue
var PlatformCUE []byte

// PlatformFile is the name errors and `platc schema` use for PlatformCUE.
const PlatformFile = "schemas/platform.cue"

//go:embed crds/*.yaml
var crds embed.FS

// CRDs returns the embedded CustomResourceDefinitions, by file name.
func CRDs() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := fs.ReadDir(crds, "crds")
	for _, e := range entries {
		data, _ := fs.ReadFile(crds, "crds/"+e.Name())
		out["schemas/crds/"+e.Name()] = data
	}
	return out
}

// CRDObjects returns the embedded CustomResourceDefinitions decoded as plain
// data (map[string]any, []any, strings, float64, bools): the documents of
// each file, by file name, as CRDs names them. They are decoded once per
// process and shared: treat them as read-only.
var CRDObjects = sync.OnceValues(func() (map[string][]map[string]any, error) {
	files := CRDs()
	out := map[string][]map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for i, doc := range bytes.Split(files[name], []byte("\n---\n")) {
			var crd map[string]any
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
			}
			out[name] = append(out[name], crd)
		}
	}
	return out, nil
})
