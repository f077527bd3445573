package release

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// Change is one chart version a promotion or a bump sets.
type Change struct {
	// Env is the environment whose own pin is set; "" for the platform's
	// pin (charts.<chart>.version).
	Env      string
	Chart    string
	From, To string
	// Pos is the literal edited, or, for a new pin (New), where the
	// environment is declared.
	Pos diag.Pos
	New bool
}

// Versions is an edit of chart versions: what Promote and Bump return.
type Versions struct {
	Files   map[string][]byte // the edited spec files, by path
	Changes []Change
	// Moves are the pinned environments the edit also releases (a tag
	// was given).
	Moves []Move
}

// set is one version to set: in an environment's own pin, or (env nil)
// in the platform's.
type set struct {
	env     *model.Environment
	chart   *model.Chart // the platform's
	version string
}

// Promote sets the versions environment to runs of the named charts (all
// when empty) to those from runs, writing a pin of its own where to runs
// the platform's. A promotion into a pinned environment needs a tag, to
// which it is released in the same edit (Pin's rules apply). Problems go
// to log; nothing is written.
func Promote(fsys fs.FS, spec *model.Spec, from, to string, charts []string, tag string, log *diag.Log) *Versions {
	src, dst := spec.Environment(from), spec.Environment(to)
	switch {
	case src == nil:
		log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown environment %q", from)
	case dst == nil:
		log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown environment %q", to)
	case from == to:
		log.Reportf(diag.Usage, diag.Pos{}, "", "promote from one environment into another: %s is both", from)
	}
	if log.HasErrors() {
		return nil
	}
	var sets []set
	for _, c := range spec.Charts {
		if len(charts) > 0 && !slices.Contains(charts, c.Name) {
			continue
		}
		if v := spec.ChartIn(src, c.Name).Version; v != spec.ChartIn(dst, c.Name).Version {
			sets = append(sets, set{env: dst, chart: c, version: v})
		}
	}
	for _, name := range charts {
		if spec.Chart(name) == nil {
			log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown chart %q", name)
		}
	}
	return apply(fsys, spec, sets, tag, "promote", log)
}

// Bump sets the version of a chart: the platform's pin, or, for each of
// envs, the environment's own (written where it has none). version must
// be an exact pin (check.PinProblem). As for Promote, a change that
// reaches a pinned environment needs a tag to release it to.
func Bump(fsys fs.FS, spec *model.Spec, chart, version string, envs []string, tag string, log *diag.Log) *Versions {
	c := spec.Chart(chart)
	if c == nil {
		log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown chart %q", chart)
		return nil
	}
	var sets []set
	if len(envs) == 0 && c.Version != version {
		sets = append(sets, set{chart: c, version: version})
	}
	for _, name := range envs {
		env := spec.Environment(name)
		if env == nil {
			log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown environment %q", name)
			continue
		}
		if spec.ChartIn(env, chart).Version != version {
			sets = append(sets, set{env: env, chart: c, version: version})
		}
	}
	if log.HasErrors() {
		return nil
	}
	return apply(fsys, spec, sets, tag, "bump", log)
}

// apply edits the spec files for sets, and releases the pinned
// environments they reach to tag.
func apply(fsys fs.FS, spec *model.Spec, sets []set, tag, verb string, log *diag.Log) *Versions {
	out := &Versions{Files: map[string][]byte{}}
	ed := &editor{fsys: fsys, log: log, orig: map[string][]byte{}, parsed: map[string]*ast.File{}, edits: map[string][]edit{}}

	// A pinned environment runs the charts of its release: what reaches
	// one is released with it, or refused.
	var reached []string
	for _, s := range sets {
		for _, env := range spec.Environments {
			if env.Pinned && (s.env == env || s.env == nil && env.Pin(s.chart.Name) == nil) && !slices.Contains(reached, env.Name) {
				reached = append(reached, env.Name)
				if tag == "" {
					log.Reportf(diag.Release, env.At("revision"), env.FieldPath("revision"), "%s", pinnedRefusal(verb, env, s))
				}
			}
		}
	}
	switch {
	case tag != "" && len(reached) == 0:
		log.Reportf(diag.Release, diag.Pos{}, "", "-release %s: the %s reaches no pinned environment, so there is nothing to release: leave -release out, or run platc release", tag, verb)
	case tag != "" && !log.HasErrors():
		slices.Sort(reached)
		_, out.Moves = Pin(fsys, spec, tag, reached, log)
		for _, m := range out.Moves {
			env := spec.Environment(m.Env)
			ed.replace(m.Pos, env.FieldPath("revision"), m.From, m.To)
		}
	}
	if log.HasErrors() {
		return nil
	}

	edited := map[diag.Pos]bool{}
	inserts := map[*model.Environment][]set{}
	var order []*model.Environment
	for _, s := range sets {
		ch := Change{Chart: s.chart.Name, From: spec.ChartIn(s.env, s.chart.Name).Version, To: s.version}
		if s.env != nil {
			ch.Env = s.env.Name
		}
		var pin *model.Node
		switch {
		case s.env == nil:
			pin = &s.chart.Node
		case s.env.Pin(s.chart.Name) != nil:
			pin = &s.env.Pin(s.chart.Name).Node
		default:
			ch.New, ch.Pos = true, s.env.Pos
			if inserts[s.env] == nil {
				order = append(order, s.env)
			}
			inserts[s.env] = append(inserts[s.env], s)
			out.Changes = append(out.Changes, ch)
			continue
		}
		ch.Pos = pin.At("version")
		if others := sharedWith(spec, ch.Pos, sets); len(others) > 0 {
			log.Reportf(diag.SpecEdit, ch.Pos, pin.FieldPath("version"), "the version is written once for %s and %s (through CUE: a pattern or a definition): a %s of %s would change them all; %s them together, or edit the spec by hand", owner(s.env), diag.List(others), verb, s.chart.Name, verb)
			continue
		}
		// Several environments sharing one pin, all of them set: one
		// edit.
		if !edited[ch.Pos] {
			ed.replace(ch.Pos, pin.FieldPath("version"), ch.From, s.version)
			edited[ch.Pos] = true
		}
		out.Changes = append(out.Changes, ch)
	}
	for _, env := range order {
		ed.insertPins(spec, env, inserts[env])
	}
	if log.HasErrors() {
		return nil
	}
	out.Files = ed.result()
	return out
}

// pinnedRefusal says why a change that reaches the pinned environment env
// is refused without a tag, and what to do.
func pinnedRefusal(verb string, env *model.Environment, s set) string {
	next := "vX.Y.Z"
	if m := releaseTag().FindStringSubmatch(env.Revision); m != nil {
		patch, _ := strconv.Atoi(m[3])
		next = fmt.Sprintf("v%s.%s.%d", m[1], m[2], patch+1)
	}
	what := fmt.Sprintf("%s %s, the platform's pin", s.chart.Name, s.chart.Version)
	if p := env.Pin(s.chart.Name); p != nil {
		what = fmt.Sprintf("%s %s, its own pin", s.chart.Name, p.Version)
	}
	how := map[string]string{"promote": "promote into", "bump": "bump only"}[verb]
	return fmt.Sprintf("pinned environment %s runs the charts of its release %s (%s): a new version reaches it with a release; %s and release in one edit with -release %s (or a later tag), or %s environments that are not pinned",
		env.Name, env.Revision, what, verb, next, how)
}

// sharedWith returns who else's version is the literal at pos (several
// environments sharing one pin through CUE, a definition or a pattern),
// leaving out those sets edits too.
func sharedWith(spec *model.Spec, pos diag.Pos, sets []set) []string {
	edited := func(env *model.Environment, chart string) bool {
		return slices.ContainsFunc(sets, func(s set) bool { return s.env == env && s.chart.Name == chart })
	}
	var out []string
	for _, c := range spec.Charts {
		if c.At("version") == pos && !edited(nil, c.Name) {
			out = append(out, owner(nil))
		}
	}
	for _, env := range spec.Environments {
		for _, p := range env.Charts {
			if p.At("version") == pos && !edited(env, p.Chart) {
				out = append(out, owner(env))
			}
		}
	}
	return out
}

// owner is who a pin is: the platform, or an environment by name.
func owner(env *model.Environment) string {
	if env == nil {
		return "the platform"
	}
	return env.Name
}

// Describe is one line for a change: what moved where.
func (c Change) Describe() string {
	s := fmt.Sprintf("%s: %s %s -> %s", cmp.Or(c.Env, "the platform"), c.Chart, c.From, c.To)
	if c.New {
		s += " (a pin of its own, written in " + c.Pos.File + ")"
	} else {
		s += " (" + c.Pos.String() + ")"
	}
	return strings.TrimSpace(s)
}
