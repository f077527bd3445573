package rgd

import (
	"slices"

	"github.com/platc/platc/compiler/kro"
)

// kind is a kind a stack's primitives may have.
type kind struct {
	apiVersion string
	required   []string // the fields its CRD requires
	specFields []string // the fields of its spec
	primitive  bool     // one of the orchestrator's primitives
}

// Prepare reads the embedded CRDs of the kinds stacks use, into kro's
// schema resolver. Compile calls it on another goroutine while the spec
// loads; Compile (of this package) waits for it if it has not finished.
func Prepare() { _, _ = kro.Embedded() }

// loadKinds returns the kinds of the embedded CRDs by kind name.
func loadKinds() (*kro.Kinds, map[string]kind, error) {
	kinds, err := kro.Embedded()
	if err != nil {
		return nil, nil, err
	}
	out := map[string]kind{}
	for _, k := range kinds.List() {
		out[k.Kind] = kind{
			apiVersion: k.APIVersion,
			required:   k.Required,
			specFields: k.SpecFields,
			// Argo CD's and kro's own kinds, and Kubernetes', are not
			// primitives.
			primitive: !k.Builtin && k.Group != "argoproj.io" && k.Group != "kro.run",
		}
	}
	return kinds, out, nil
}

// primitiveKinds lists the primitives' kinds, sorted.
func primitiveKinds(kinds map[string]kind) []string {
	var out []string
	for name, k := range kinds {
		if k.primitive {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
