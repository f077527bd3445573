package rgd

import "github.com/platc/platc/compiler/kro"

// Prepare reads the embedded CRDs of the kinds stacks use, into kro's
// schema resolver. Compile calls it on another goroutine while the spec
// loads; Compile (of this package) waits for it if it has not finished.
func Prepare() { _, _ = kro.Embedded() }

// primitives returns the kinds of the embedded CRDs a stack's primitives
// may have, by kind name: Argo CD's and kro's own kinds, and Kubernetes',
// are not primitives.
func primitives(kinds *kro.Kinds) map[string]kro.Kind {
	out := map[string]kro.Kind{}
	for _, k := range kinds.List() {
		if !k.Builtin && k.Group != "argoproj.io" && k.Group != "kro.run" {
			out[k.Kind] = k
		}
	}
	return out
}
