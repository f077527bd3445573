// Package schemas embeds the schemas platc needs at run time: the spec
// language's CUE definition; the CRDs of kinds platc renders or stacks
// reference (Argo CD's Application and AppProject as platc renders them,
// kro's ResourceGraphDefinition, the primitives); the published schemas of
// the built-in kinds stacks may use (builtin.go); and the fields
// upstream's CRDs declare beyond platc's (upstream.go). The binary carries
// them, so users need not copy them.
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

// CRDObjects returns the embedded CRDs decoded as plain data, the
// documents of each file by file name. They are decoded once per process
// and shared: treat them as read-only.
//
// They are decoded from crds.json, the same documents converted to JSON as
// sigs.k8s.io/yaml does, which decodes faster. TestCRDsJSON checks it
// matches crds/ (go test ./schemas -update rewrites it).
var CRDObjects = sync.OnceValues(func() (map[string][]map[string]any, error) {
	var out map[string][]map[string]any
	if err := json.Unmarshal(crdsJSON, &out); err != nil {
		return nil, fmt.Errorf("schemas/crds.json: %w", err)
	}
	return out, nil
})

//go:embed crds.json
var crdsJSON []byte

// CRDsDigest digests the embedded CRDs as CRDObjects decodes them, for
// the cache keys of what is computed from them.
var CRDsDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(crdsJSON)
	return hex.EncodeToString(sum[:])
})
