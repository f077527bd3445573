package kro

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kubernetes-sigs/kro/pkg/features"
	"k8s.io/component-base/featuregate"
)

// Gates are the platform kro's feature gates, by pkg/features name; an
// unnamed gate, and the zero value, have kro's defaults.
type Gates map[string]bool

// KnownGates are the names of kro's feature gates, sorted.
func KnownGates() []string { return slices.Sorted(maps.Keys(defaultGates())) }

// defaultGates are kro's own gates and their declared defaults (its
// FeatureSpecs, not the process-wide gate's state, which withGates sets;
// component-base adds gates of its own, such as AllAlpha, which kro's
// flag takes too but platc does not name).
var defaultGates = sync.OnceValue(func() map[string]bool {
	all := features.FeatureGate.GetAll()
	out := map[string]bool{}
	for _, f := range []featuregate.Feature{features.CELOmitFunction, features.InstanceConditionEvents, features.InstanceConditionMetrics} {
		out[string(f)] = all[f].Default
	}
	return out
})

// Default reports kro's default for the gate name.
func Default(name string) bool { return defaultGates()[name] }

// Check returns what kro's pkg/features says of g: an unknown gate, or
// one kro will not set (a gate locked to its default).
func (g Gates) Check() error {
	for _, name := range slices.Sorted(maps.Keys(g)) {
		if _, ok := defaultGates()[name]; !ok {
			return fmt.Errorf("unknown feature gate %q", name)
		}
	}
	return features.FeatureGate.DeepCopy().SetFromMap(g)
}

// On reports whether the gate name is on in g.
func (g Gates) On(name string) bool {
	if on, ok := g[name]; ok {
		return on
	}
	return Default(name)
}

// key is the gates that differ from kro's defaults, in a stable form:
// part of every cache key of what they change.
func (g Gates) key() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(g)) {
		if g[name] != Default(name) {
			out = append(out, fmt.Sprintf("%s=%t", name, g[name]))
		}
	}
	return strings.Join(out, ",")
}

// gateState is what kro's process-wide gates (features.FeatureGate, which
// its graph builder reads) are set to, and how many builds read them: a
// build under other gates waits until none does.
var gateState = struct {
	mu    sync.Mutex
	cond  *sync.Cond
	key   string
	users int
}{}

func init() { gateState.cond = sync.NewCond(&gateState.mu) }

// withGates runs fn with kro's gates set to g. Builds under the same
// gates run together; under others, one set after the other. The gates are
// set again whenever no build reads them, whatever they were left at: code
// beside platc's (a test's own kro build) may set them too.
func withGates(g Gates, fn func()) {
	key := g.key()
	s := &gateState
	s.mu.Lock()
	for s.key != key && s.users > 0 {
		s.cond.Wait()
	}
	if s.users == 0 {
		set := maps.Clone(defaultGates())
		maps.Copy(set, g)
		if err := features.FeatureGate.SetFromMap(set); err != nil {
			s.mu.Unlock()
			panic(fmt.Sprintf("kro: setting feature gates %v that Check accepted: %v", set, err))
		}
		s.key = key
	}
	s.users++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.users--
		if s.users == 0 {
			s.cond.Broadcast()
		}
		s.mu.Unlock()
	}()
	fn()
}
