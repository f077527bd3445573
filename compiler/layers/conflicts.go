package layers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// platformKey is a value the platform sets in a stack module's valuesObject.
type platformKey struct {
	labels   []string
	specPath string // where the spec sets it
	wiring   bool   // set by wiring, not by the module's values
	list     bool   // the value is a list
}

// platformKeys returns the leaves the platform sets in a stack module's
// valuesObject: the module's values, then its wiring (which wins).
func platformKeys(m *model.StackModule) []platformKey {
	var out []platformKey
	ValueLeaves(nil, m.Values, func(labels []string, v any) {
		_, list := v.([]any)
		out = append(out, platformKey{labels: labels, specPath: AppendLabels(m.FieldPath("values"), labels), list: list})
	})
	for _, w := range m.Wiring {
		if w.ValuesPath != nil {
			out = append(out, platformKey{labels: w.ValuesPath, specPath: w.Path, wiring: true, list: strings.HasPrefix(strings.TrimSpace(w.Expr), "${[")})
		}
	}
	return out
}

// conflicts reports every key of a client's file that the platform also
// sets: the platform's valuesObject wins over every values file, so the
// client's value has no effect, and Argo CD says nothing.
func conflicts(f *File, strict bool, spec *model.Spec, log *diag.Log) {
	keys := platformKeys(f.Module)
	exact := map[string]platformKey{}
	under := map[string]platformKey{} // a proper prefix of a platform key -> that key
	for _, k := range keys {
		exact[JoinLabels(k.labels)] = k // wiring, last, wins over values
		for i := 1; i < len(k.labels); i++ {
			if _, ok := under[JoinLabels(k.labels[:i])]; !ok {
				under[JoinLabels(k.labels[:i])] = k
			}
		}
	}
	var walk func(labels []string, n *Node, keyPos diag.Pos)
	walk = func(labels []string, n *Node, keyPos diag.Pos) {
		if n.Kind == Map && len(n.Keys) > 0 {
			// A mapping merges with the platform's: look deeper, unless
			// the platform sets this key to something that replaces it.
			if k, ok := exact[JoinLabels(labels)]; ok && len(labels) > 0 {
				report(log, strict, f, labels, keyPos, k, n, spec)
				return
			}
			for i, k := range n.Keys {
				walk(append(slices.Clip(labels), k.Name), n.Values[i], k.Pos)
			}
			return
		}
		// A leaf (a scalar, a list, an empty mapping): any platform key at
		// it, above it, or below it makes it void.
		for i := len(labels); i >= 1; i-- {
			if k, ok := exact[JoinLabels(labels[:i])]; ok {
				report(log, strict, f, labels, keyPos, k, n, spec)
				return
			}
		}
		if k, ok := under[JoinLabels(labels)]; ok {
			report(log, strict, f, labels, keyPos, k, n, spec)
		}
	}
	walk(nil, f.Tree, f.Tree.Pos)
}

func report(log *diag.Log, strict bool, f *File, labels []string, keyPos diag.Pos, k platformKey, n *Node, spec *model.Spec) {
	by := "values"
	if k.wiring {
		by = "wiring"
	}
	msg := fmt.Sprintf("the platform also sets %s, in its %s (%s, %s), and the platform wins: Argo CD applies valuesObject over every values file, so this value is ignored; remove it, or ask the platform team to make it a stack field",
		ValuesPath(k.labels), by, spec.PosOf(k.specPath), k.specPath)
	if n.Kind == List || k.list {
		msg += "; lists are replaced, not merged, so no item of this list is kept"
	}
	log.ReportStrictf(strict, diag.ValuesConflict, keyPos, ValuesPath(labels), "%s", msg)
}

// JoinLabels makes a map key of a values path: its labels joined by a
// byte no key holds.
func JoinLabels(labels []string) string { return strings.Join(labels, "\x00") }
