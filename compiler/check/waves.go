package check

import (
	"math"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// waves orders the modules of each apps file from their needs and returns
// each module's sync wave.
//
// A sync wave orders an Application only among the siblings in the same apps
// file, so a need that crosses files is lifted to the siblings that contain
// the two modules: a policy module that needs kyverno, a member of the
// platform-operators group, syncs after platform-operators. A module syncs
// one wave after the latest of what it needs; a hand-set wave must be later
// than all of them.
//
// A module that delivers instances of a stack needs, implicitly, the module
// that delivers the stack's definition: kro must know the kind first.
//
// A wave is at most MaxWave, hand-set or from needs.
func (c *checker) waves(parent map[string]string, definitions map[string]*model.Module) map[string]int {
	after := map[string][]string{} // module -> siblings it syncs after
	for _, m := range c.spec.Modules {
		needs := m.Needs
		if m.Kind.Info().Syncs == model.SyncsInstances {
			for _, s := range m.Stacks {
				if d := definitions[s]; d != nil && d != m && !slices.Contains(needs, d.Name) {
					needs = append(slices.Clip(needs), d.Name)
				}
			}
		}
		for _, n := range needs {
			if c.spec.Module(n) == nil || n == m.Name {
				continue // reported
			}
			a, b, ok := siblings(m.Name, n, parent)
			if !ok {
				c.log.Reportf(diag.Order, m.At("needs"), m.FieldPath("needs"), "%q needs %q, but one delivers the other: remove the need, the group syncs its members itself", m.Name, n)
				continue
			}
			if !slices.Contains(after[a], b) {
				after[a] = append(after[a], b)
			}
		}
	}

	names := make([]string, 0, len(c.spec.Modules))
	for _, m := range c.spec.Modules {
		names = append(names, m.Name)
		slices.Sort(after[m.Name])
	}
	waves := map[string]int{}
	cycle := func(cycle []string) {
		m := c.spec.Module(cycle[0])
		c.log.Reportf(diag.Cycle, m.At("needs"), m.FieldPath("needs"), "modules need each other: %s: remove one of these needs", strings.Join(cycle, " -> "))
	}
	depthFirst(names, func(name string) []string { return after[name] }, cycle, func(name string) {
		// floor is one after the latest wave of what it needs (which
		// may be a hand-set wave before 0; a need on a cycle has none
		// yet: 0); the wave is at least 0 unless set by hand.
		floor, latest := 0, ""
		for _, d := range after[name] {
			if w := waves[d] + 1; latest == "" || w > floor {
				floor, latest = w, d
			}
		}
		wave := max(floor, 0)
		m := c.spec.Module(name)
		switch {
		case m.Wave != nil && *m.Wave > MaxWave:
			c.reportf(diag.Order, &m.Node, "wave", "wave is more than %d, the latest sync wave Argo CD reads: it reads the annotation with strconv.Atoi, into an int of 32 bits on 32-bit builds, and syncs a wave it cannot read as wave 0; use a smaller wave", MaxWave)
			wave = MaxWave + 1
		case m.Wave != nil && *m.Wave < MinWave:
			c.reportf(diag.Order, &m.Node, "wave", "wave is less than %d, the earliest sync wave Argo CD reads (an int of 32 bits on 32-bit builds): use a larger wave", MinWave)
			wave = MinWave
		case m.Wave != nil:
			if latest != "" && *m.Wave < floor && floor <= MaxWave {
				c.reportf(diag.Order, &m.Node, "wave", "wave %d is not after wave %d of %q, which it needs: set wave to %d or more, or remove it", *m.Wave, floor-1, latest, floor)
			}
			wave = *m.Wave
		case wave == MaxWave+1 && latest != "" && waves[latest] == MaxWave:
			// Reported where the wave first passes the limit, not at
			// every module after it.
			c.reportf(diag.Order, &m.Node, "needs", "syncs after %q, at wave %d, the latest sync wave Argo CD reads: lower the wave of %q, or of what it needs", latest, MaxWave, latest)
		}
		// A wave past the limit stays one past it, so that the waves
		// after it cannot overflow.
		waves[name] = min(wave, MaxWave+1)
	})
	return waves
}

// depthFirst walks the graph from each of names in turn, each node's deps
// before it: done is called for each node once the walk leaves it, and
// cycle for each cycle it meets, from a node back to the same node.
func depthFirst(names []string, deps func(string) []string, cycle func([]string), done func(string)) {
	state := map[string]int{} // 0 new, 1 on the path, 2 done
	var path []string
	var visit func(name string)
	visit = func(name string) {
		switch state[name] {
		case 1:
			i := slices.Index(path, name)
			cycle(append(slices.Clone(path[i:]), name))
			return
		case 2:
			return
		}
		state[name] = 1
		path = append(path, name)
		for _, d := range deps(name) {
			visit(d)
		}
		path = path[:len(path)-1]
		state[name] = 2
		done(name)
	}
	for _, name := range names {
		visit(name)
	}
}

// MaxWave is the latest sync wave platc renders. Argo CD reads a sync wave
// with strconv.Atoi (gitops-engine, pkg/sync/syncwaves/waves.go, Wave)
// into an int, which is 32 bits on a 32-bit build, and takes a wave it
// cannot read for wave 0 (or the Helm hook weight).
const MaxWave = math.MaxInt32

// MinWave is the earliest sync wave platc renders, for the same reason.
const MinWave = math.MinInt32

// siblings lifts the need "a needs b" to the two modules that contain them
// and share a parent (the same apps file). It fails when one contains the
// other.
func siblings(a, b string, parent map[string]string) (string, string, bool) {
	chain := func(x string) []string {
		out := []string{x}
		for p := parent[x]; p != "" && !slices.Contains(out, p); p = parent[p] {
			out = append(out, p)
		}
		return out
	}
	ca, cb := chain(a), chain(b)
	if slices.Contains(ca, b) || slices.Contains(cb, a) {
		return "", "", false
	}
	// Walk both chains from the top while they agree; the first
	// disagreement is the pair of siblings.
	i, j := len(ca)-1, len(cb)-1
	for i > 0 && j > 0 && ca[i] == cb[j] {
		i, j = i-1, j-1
	}
	return ca[i], cb[j], ca[i] != cb[j]
}
