package cli

import (
	"fmt"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/release"
)

// runPromote is platc promote FROM TO: TO's chart versions set to FROM's.
func runPromote(c *call, charts []string, tag string) int {
	from, to := c.args[0], c.args[1]
	if from == to {
		return c.usagef("%s is both environments: promote from one environment into another", from)
	}
	if tag != "" && !model.IsReleaseTag(tag) {
		return c.usagef("-release %q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
	}
	return editSpec(c, "edit", func(spec *model.Spec) string {
		for _, env := range []string{from, to} {
			if msg := known("environment", env, model.EnvNames(spec.Environments)); msg != "" {
				return msg
			}
		}
		for _, name := range charts {
			if msg := known("chart", name, chartNames(spec)); msg != "" {
				return "-chart " + name + ": " + msg
			}
		}
		return ""
	}, func(repo *compiled, log *diag.Log) *release.Versions {
		return release.Promote(repo.root.FS(), repo.res.Spec, from, to, charts, tag, log)
	}, fmt.Sprintf("%s runs the versions of %s already", to, from))
}

// runBump is platc bump CHART VERSION: the platform's pin, or the
// environments' own, set to VERSION.
func runBump(c *call, envs []string, tag string) int {
	chart, version := c.args[0], c.args[1]
	if msg := check.PinProblem(version); msg != "" {
		return c.usagef("%s", msg)
	}
	if tag != "" && !model.IsReleaseTag(tag) {
		return c.usagef("-release %q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
	}
	already := fmt.Sprintf("the platform pins %s %s already", chart, version)
	if len(envs) > 0 {
		already = fmt.Sprintf("%s runs %s %s already", diag.List(envs), chart, version)
	}
	return editSpec(c, "edit", func(spec *model.Spec) string {
		if msg := known("chart", chart, chartNames(spec)); msg != "" {
			return msg
		}
		for _, env := range envs {
			if msg := known("environment", env, model.EnvNames(spec.Environments)); msg != "" {
				return "-env " + env + ": " + msg
			}
		}
		return ""
	}, func(repo *compiled, log *diag.Log) *release.Versions {
		return release.Bump(repo.root.FS(), repo.res.Spec, chart, version, envs, tag, log)
	}, already)
}

// editSpec is what release, promote and bump share: the spec compiled
// as it is; the arguments checked against it (a usage error); the edit
// made, then compiled and checked as it will be; and only then the spec
// edits and the render written, in one journal. On any problem it writes
// nothing. what names the edit in a note of an interrupt; nothing is
// what it says when the edit changes nothing.
func editSpec(c *call, what string, args func(*model.Spec) string, edit func(*compiled, *diag.Log) *release.Versions, nothing string) int {
	// The compilation of the edit reports the spec's warnings again: those
	// of the spec as it is (now) are reported only where it is not
	// compiled.
	now := c.rep.buffered()
	repo, code := c.compile(now, false, true)
	c.rep.started = true
	if repo == nil {
		c.rep.take(now)
		return code
	}
	defer repo.close()
	if msg := args(repo.res.Spec); msg != "" {
		return c.rep.failf(diag.Usage, "%s", msg)
	}
	log := &diag.Log{}
	v := edit(repo, log)
	if log.HasErrors() {
		c.rep.take(now)
		c.rep.log(log)
		return ExitProblems
	}
	if len(v.Changes) == 0 && len(v.Moves) == 0 {
		c.rep.take(now)
		c.rep.summary("nothing to change: " + nothing)
		return ExitOK
	}
	next := compiler.Compile(overlay{FS: repo.root.FS(), files: v.Files}, repo.opts)
	c.noteGaps(next)
	c.rep.log(next.Log)
	if next.Log.HasErrors() {
		return ExitProblems
	}
	// The edit must mean what it says: each environment runs the version
	// set (a spec written in a way platc does not edit, such as a
	// comprehension, is refused rather than edited wrong).
	for _, ch := range v.Changes {
		env := next.Spec.Environment(ch.Env)
		if ch.Env == "" {
			env = nil
		}
		if got := next.Spec.ChartIn(env, ch.Chart); got == nil || got.Version != ch.To {
			c.rep.problem(diag.Problem{ID: diag.SpecEdit, Pos: ch.Pos, Msg: fmt.Sprintf("platc could not write %s %s for %s in the spec as it is written: write the pin by hand", ch.Chart, ch.To, ownerName(ch.Env))})
			return ExitProblems
		}
	}
	st, err := emit.Scan(newRepoFS(repo.root), next.OutDir)
	if err != nil {
		return c.rep.failf(writeID(err), "%v", err)
	}
	w, code := c.writeOutputs(repo, next, st, v.Files)
	if w == nil {
		return code
	}
	c.rep.versionChanges(v.Changes)
	c.rep.moved(v.Moves)
	c.rep.wrote(repo.counts(next), next.Gaps, next.OutDir, len(next.Outputs), w)
	if repo.ctx.Err() != nil {
		return c.rep.failf(diag.Interrupted, "interrupted: the %s was committed: it was finished", what)
	}
	return ExitOK
}

func ownerName(env string) string {
	if env == "" {
		return "the platform"
	}
	return "environment " + env
}

func chartNames(spec *model.Spec) []string {
	var out []string
	for _, c := range spec.Charts {
		out = append(out, c.Name)
	}
	return out
}

// jsonVersion is a chart version a promotion or a bump set.
type jsonVersion struct {
	Environment string `json:"environment,omitempty"` // "" for the platform's pin
	Chart       string `json:"chart"`
	From        string `json:"from"`
	To          string `json:"to"`
	New         bool   `json:"new,omitempty"` // a pin written for an environment that had none
	File        string `json:"file"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
}

func (r *report) versionChanges(changes []release.Change) {
	for _, ch := range changes {
		r.doc.Versions = append(r.doc.Versions, jsonVersion{Environment: ch.Env, Chart: ch.Chart, From: ch.From, To: ch.To, New: ch.New, File: ch.Pos.File, Line: ch.Pos.Line, Column: ch.Pos.Col})
		if r.format != jsonFormat {
			fmt.Fprintf(r.stdout, "platc: %s\n", ch.Describe())
		}
	}
}
