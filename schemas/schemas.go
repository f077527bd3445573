// Package schemas embeds the schemas platc needs at run time: the CUE
// definition of the spec language; the CustomResourceDefinitions of the
// kinds platc renders or stacks reference (the part of Argo CD's
// Application and AppProject that platc renders, kro's
// ResourceGraphDefinition, the orchestrator's primitives); the published
// schemas of the few Kubernetes kinds stacks may use (builtin.go); and the
// fields upstream's CRDs declare beyond platc's (upstream.go). The binary
// carries them, so a user's spec is checked without copying them into the
// user's repository.
package schemas

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"
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
//
// They are decoded from crds.json, which holds the same documents as
// JSON, as sigs.k8s.io/yaml converts them before decoding (so the values
// are those of decoding the YAML), and decodes much faster.
// TestCRDsJSON fails when crds.json is not made from crds/ (go test
// ./schemas -update rewrites it).
var CRDObjects = sync.OnceValues(func() (map[string][]map[string]any, error) {
	var out map[string][]map[string]any
	if err := json.Unmarshal(crdsJSON, &out); err != nil {
		return nil, fmt.Errorf("schemas/crds.json: %w", err)
	}
	return out, nil
})

//go:embed crds.json
var crdsJSON []byte

// CRDsDigest is a digest of the embedded CustomResourceDefinitions as
// CRDObjects decodes them: part of the cache key of whatever is computed
// from them, so that an entry never answers for other CRDs.
var CRDsDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(crdsJSON)
	return hex.EncodeToString(sum[:])
})
