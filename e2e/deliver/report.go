package deliver

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// A Check is one verdict of a delivery beyond the Applications' states:
// the order of sync waves, a lifecycle step (prune, self-heal, a
// release, a client's change).
type Check struct {
	Name   string `json:"name"`
	Env    string `json:"environment"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail,omitempty"`
	// Seconds is how long the step took to converge.
	Seconds float64 `json:"seconds,omitempty"`
}

// Report gathers what deliveries found: each environment's final state
// and every check. It is safe for concurrent use.
type Report struct {
	mu        sync.Mutex
	Apps      []*App      `json:"applications"`
	RGDs      []*RGD      `json:"resourceGraphDefinitions"`
	Instances []*Instance `json:"instances"`
	Checks    []*Check    `json:"checks"`
	// Charts are the chart versions the platforms pin, and how each was
	// served.
	Charts []*ChartPin `json:"charts,omitempty"`
	// Failures are what stopped a delivery before it settled.
	Failures []string `json:"failures,omitempty"`
}

// AddState records an environment's final state, its Applications'
// environment named platform/env.
func (r *Report) AddState(platform string, s *State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := func(env string) string {
		if platform == "" {
			return env
		}
		return platform + "/" + env
	}
	for _, a := range s.Apps {
		a := *a
		a.Env = name(a.Env)
		r.Apps = append(r.Apps, &a)
	}
	for _, g := range s.RGDs {
		g := *g
		g.Env = name(g.Env)
		r.RGDs = append(r.RGDs, &g)
	}
	for _, i := range s.Instances {
		i := *i
		i.Env = name(i.Env)
		r.Instances = append(r.Instances, &i)
	}
}

// AddPins records the chart versions a platform pins (Rig.Pins).
func (r *Report) AddPins(pins []*ChartPin) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Charts = append(r.Charts, pins...)
}

// AddCheck records a check.
func (r *Report) AddCheck(c *Check) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Checks = append(r.Checks, c)
}

// Fail records what stopped a delivery.
func (r *Report) Fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
}

func (r *Report) sorted() {
	slices.SortFunc(r.Apps, func(a, b *App) int {
		return strings.Compare(a.Env+" "+a.Namespace+"/"+a.Name, b.Env+" "+b.Namespace+"/"+b.Name)
	})
	slices.SortFunc(r.RGDs, func(a, b *RGD) int { return strings.Compare(a.Env+" "+a.Name, b.Env+" "+b.Name) })
	slices.SortStableFunc(r.Checks, func(a, b *Check) int { return strings.Compare(a.Env, b.Env) })
}

// Table is the report as a person reads it: a table of Applications
// (environment, sync, health, verdict, first condition or error), the
// RGDs and instances, then the checks.
func (r *Report) Table() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sorted()
	s := &State{Apps: r.Apps, RGDs: r.RGDs, Instances: r.Instances}
	var b strings.Builder
	b.WriteString(s.Table())
	if len(r.Checks) > 0 {
		b.WriteString("\n")
		for _, c := range r.Checks {
			verdict := "pass"
			if !c.Pass {
				verdict = "FAIL"
			}
			fmt.Fprintf(&b, "%s  %-4s  %s", c.Env, verdict, c.Name)
			if c.Seconds > 0 {
				fmt.Fprintf(&b, " (%.0f s)", c.Seconds)
			}
			if c.Detail != "" {
				fmt.Fprintf(&b, ": %s", c.Detail)
			}
			b.WriteString("\n")
		}
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "FAIL %s\n", f)
	}
	return b.String()
}

// Summary is the last line of the e2e run: it starts with "e2e:" and
// gives the counts.
func (r *Report) Summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[string]int{}
	envs := map[string]bool{}
	for _, a := range r.Apps {
		n[a.Verdict]++
		envs[a.Env] = true
	}
	active := 0
	for _, g := range r.RGDs {
		if g.State == "Active" && g.Established {
			active++
		}
	}
	passed := 0
	for _, c := range r.Checks {
		if c.Pass {
			passed++
		}
	}
	byHand := 0
	for _, a := range r.Apps {
		if a.ByHand != "" && a.Verdict == VerdictOK {
			byHand++
		}
	}
	line := fmt.Sprintf("e2e: %d environments, %d Applications: %d synced and healthy (%d by hand), %d synced and not healthy only on kwok, %d chart unreachable, %d blocked by an unreachable chart, %d unsigned, %d denied by a sync window, %d failed; %d/%d RGDs active; %d/%d checks passed",
		len(envs), len(r.Apps), n[VerdictOK], byHand, n[VerdictKwok], n[VerdictUnreachable], n[VerdictBlocked], n[VerdictUnsigned], n[VerdictWindow], n[VerdictWaiting]+n[VerdictFailed], active, len(r.RGDs), passed, len(r.Checks))
	if real := r.realCharts(); real != "" {
		line += "; " + real
	}
	if len(r.Failures) > 0 {
		line += fmt.Sprintf("; %d deliveries failed", len(r.Failures))
	}
	return line
}

// realCharts counts the real charts (ChartPin.Real) the platforms pin:
// how many chart versions were served, which were not and why, and the
// Applications delivered with them by verdict. Empty where no platform
// was delivered with a corpus.
func (r *Report) realCharts() string {
	served, corpus := 0, ""
	var missing []string
	for _, p := range r.Charts {
		if p.Corpus == "" {
			continue
		}
		corpus = p.Corpus
		switch {
		case p.Served && p.Real:
			served++
		case !p.Served:
			missing = append(missing, fmt.Sprintf("%s %s (%s)", p.Chart, p.Version, p.Why))
		}
	}
	if corpus == "" {
		return ""
	}
	line := fmt.Sprintf("real charts: %d chart versions served from %s", served, corpus)
	if len(missing) > 0 {
		slices.Sort(missing)
		line += fmt.Sprintf(", %d not: %s", len(slices.Compact(missing)), strings.Join(slices.Compact(missing), ", "))
	}
	n := map[string]int{}
	total := 0
	for _, a := range r.Apps {
		if a.RealChart {
			n[a.Verdict]++
			total++
		}
	}
	line += fmt.Sprintf("; %d Applications delivered with a real chart: %d synced and healthy, %d synced and not healthy only on kwok, %d blocked, %d failed", total, n[VerdictOK], n[VerdictKwok], n[VerdictBlocked], total-n[VerdictOK]-n[VerdictKwok]-n[VerdictBlocked])
	return line
}

// OK reports whether nothing failed: every Application ok, unreachable or
// blocked, every RGD active, every check passed, no delivery failed.
func (r *Report) OK() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.Apps {
		if !a.Settled() {
			return false
		}
	}
	for _, g := range r.RGDs {
		if g.State != "Active" || !g.Established {
			return false
		}
	}
	for _, c := range r.Checks {
		if !c.Pass {
			return false
		}
	}
	return len(r.Failures) == 0
}

// WriteJSON writes the report as JSON to path.
func (r *Report) WriteJSON(path string) error {
	r.mu.Lock()
	r.sorted()
	data, err := json.MarshalIndent(r, "", "  ")
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
