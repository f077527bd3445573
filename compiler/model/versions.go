package model

import (
	"slices"
	"strings"

	"golang.org/x/mod/semver"
)

// ChartPin is an environment's own version of a chart of the platform
// (environments.<env>.charts.<chart>.version): the repository and the
// chart stay the platform's, so that one chart runs at several versions
// across environments, each an exact pin.
type ChartPin struct {
	Node
	Env     string // the environment's name
	Chart   string // the chart's name in Spec.Charts
	Version string
}

// resolvePins makes, for each environment that pins charts of its own, the
// charts as it runs them: a copy of the platform's with the environment's
// version. An environment without pins gets nothing, and costs nothing: its
// charts are the platform's (ChartIn).
func (s *Spec) resolvePins() {
	for _, env := range s.Environments {
		for _, p := range env.Charts {
			c := s.charts[p.Chart]
			if c == nil || !p.OK("version") || p.Version == "" {
				// An unknown chart, or a version that is not one: load or
				// check reports it, and the environment is judged with
				// the platform's version rather than none.
				continue
			}
			if env.charts == nil {
				env.charts = make(map[string]*Chart, len(env.Charts))
			}
			// The copy is placed at the environment's pin: what is said
			// of this version (not locked, not pulled) is said there.
			run := *c
			run.Node, run.Version, run.Pin = p.Node, p.Version, p
			env.charts[p.Chart] = &run
			if s.pinned == nil {
				s.pinned = map[string]bool{}
			}
			s.pinned[p.Chart] = true
		}
	}
}

// ChartIn returns the chart named name as the environment env runs it:
// the platform's pin, or a copy of it with the environment's own version
// (whose Pin says where it is written). With a nil env, the platform's.
// It returns nil for a chart the spec does not declare.
func (s *Spec) ChartIn(env *Environment, name string) *Chart {
	if env != nil && env.charts != nil {
		if c := env.charts[name]; c != nil {
			return c
		}
	}
	return s.charts[name]
}

// PinnedSomewhere reports whether some environment runs the chart named
// name at a version of its own.
func (s *Spec) PinnedSomewhere(name string) bool { return s.pinned[name] }

// Pin returns the environment's own pin of the chart named chart, or nil
// where it runs the platform's version.
func (env *Environment) Pin(chart string) *ChartPin {
	for _, p := range env.Charts {
		if p.Chart == chart {
			return p
		}
	}
	return nil
}

// ChartVersion is one version of a chart that the spec runs somewhere.
type ChartVersion struct {
	Chart   *Chart // the platform's pin
	Version string
	// Platform says whether the platform's pin names this version;
	// Envs are the environments that pin it on their own, sorted.
	Platform bool
	Envs     []string
}

// ChartVersions returns every version of every chart the spec pins (the
// platform's and the environments' own), one entry per chart and version,
// sorted by chart name and then by version: what a lock file of the
// charts holds, one entry per (repository, chart, version).
func (s *Spec) ChartVersions() []ChartVersion {
	var out []ChartVersion
	for _, c := range s.Charts {
		first := len(out)
		out = append(out, ChartVersion{Chart: c, Version: c.Version, Platform: true})
		for _, env := range s.Environments {
			p := env.Pin(c.Name)
			if p == nil {
				continue
			}
			i := slices.IndexFunc(out[first:], func(v ChartVersion) bool { return v.Version == p.Version })
			if i < 0 {
				out = append(out, ChartVersion{Chart: c, Version: p.Version})
				i = len(out) - first - 1
			}
			out[first+i].Envs = append(out[first+i].Envs, env.Name)
		}
		slices.SortFunc(out[first:], func(a, b ChartVersion) int { return CompareVersions(a.Version, b.Version) })
	}
	return out
}

// PinnedVersions returns a chart for every chart and version the spec
// runs (ChartVersions): the platform's pin, and, for a version that only
// environments pin, the chart as the first of them runs it (placed at its
// pin). It is what platc charts pull locks.
func (s *Spec) PinnedVersions() []*Chart {
	var out []*Chart
	for _, v := range s.ChartVersions() {
		if v.Platform {
			out = append(out, v.Chart)
		} else if c := s.ChartIn(s.Environment(v.Envs[0]), v.Chart.Name); c != nil && c.Version == v.Version {
			out = append(out, c)
		}
	}
	return out
}

// CompareVersions orders two chart versions as semantic versions (with or
// without a leading v), and by their text where one is not.
func CompareVersions(a, b string) int {
	va, vb := "v"+strings.TrimPrefix(a, "v"), "v"+strings.TrimPrefix(b, "v")
	if semver.IsValid(va) && semver.IsValid(vb) {
		if c := semver.Compare(va, vb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}
