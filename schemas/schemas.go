// Package schemas embeds the schemas platc needs at run time: the CUE
// definition of the spec language, and the CustomResourceDefinitions of the
// kinds product stacks reference (the orchestrator's primitives, and the part
// of Argo CD's Application that platc renders). The binary carries them, so a
// user's spec is checked without copying them into the user's repository.
package schemas

import (
	"embed"
	"io/fs"
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
