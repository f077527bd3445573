// Package report builds the page saying what a platform delivers (platc
// report): one self-contained HTML file, for an environment or a release,
// that opens from disk and prints. It shows the environment/module
// matrix, the delivery order, each environment's values overrides,
// AppProject permissions in plain words, clients' instances and where
// their values come from, changes since an earlier render, and a
// rehearsal's verdicts; and the module graph as DOT and Mermaid (platc
// graph).
//
// Every fact comes from the compiler's results, computed by the caller; it
// reads no file and never parses the output. The page is made with
// html/template from sorted data, without a timestamp, so the same results
// give the same bytes. It is a view for the CLI, like explain, not a stage.
package report

import (
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/diff"
	"github.com/platc/platc/compiler/model"
)

// Input is what a page is made of.
type Input struct {
	Result *compiler.Result // a compilation without errors, with Options.KeepFiles
	// Repo is the platform's repository, for the values files of its
	// chart modules (explain); nil leaves them unknown.
	Repo fs.FS
	// Envs are the environments the page is about, by name, each one of
	// the spec's; nil for every environment.
	Envs []string
	// Tag, when the page is a release's, is the release tag.
	Tag string
	// Since, when set, is what changed since an earlier render.
	Since *Since
	// Rehearsal, when set, is a delivery rehearsal's report.
	Rehearsal *Rehearsal
}

// Since is what platc diff finds between an earlier render and this one.
type Since struct {
	Rev      string // the earlier render, as the user named it
	Objects  []diff.ObjectDiff
	Versions []diff.VersionChange
}

// Released returns the names of the pinned environments that pin tag,
// sorted: a release's environments.
func Released(spec *model.Spec, tag string) []string {
	var out []string
	for _, env := range spec.Environments {
		if env.Pinned && env.Revision == tag {
			out = append(out, env.Name)
		}
	}
	return out
}

// page is what the template reads.
type page struct {
	Title, Scope string
	Platform     model.Platform
	Counts       []count
	Envs         []envColumn
	Modules      []moduleRow
	Graph        *picture
	Implicit     bool // the graph has an implicit edge (a legend for it)
	Projects     []envProjects
	Overrides    []envValues
	Clients      []clientSection
	Since        *Since
	SinceEnvs    []changeGroup
	// SinceVersions are the chart versions of the environments that
	// changed.
	SinceVersions []diff.VersionChange
	Rehearsal     *Rehearsal
	Problems      []string // the compilation's warnings
}

type count struct {
	N    int
	What string
}

//go:embed page.html
var pageFS embed.FS

// pageTemplate is parsed on first use: only report needs it.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page.html").Funcs(template.FuncMap{
		"join":  strings.Join,
		"add":   func(a, b int) int { return a + b },
		"value": show,
	}).ParseFS(pageFS, "page.html"))
})

// Write writes the page of in to w.
func Write(w io.Writer, in Input) error {
	p, err := build(in)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := pageTemplate().Execute(&b, p); err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// build gathers the page's facts, sorted.
func build(in Input) (*page, error) {
	res := in.Result
	if res == nil || res.Spec == nil {
		return nil, fmt.Errorf("the spec did not compile: a report describes a spec without errors")
	}
	if res.Files == nil {
		return nil, fmt.Errorf("the compilation kept no rendered files: compile with compiler.Options.KeepFiles")
	}
	spec := res.Spec
	envs, err := selected(spec, in.Envs)
	if err != nil {
		return nil, err
	}
	p := &page{Platform: spec.Platform, Since: in.Since, Rehearsal: in.Rehearsal}
	p.Title, p.Scope = titles(spec, envs, in.Tag)
	p.Envs = envColumns(envs)
	p.Modules = moduleRows(res, envs)
	g := NewGraph(spec, res.Info, envs)
	p.Graph = layout(g)
	p.Implicit = slices.ContainsFunc(g.Edges, func(e Edge) bool { return e.Implicit })
	p.Projects = projects(res, envs)
	if p.Overrides, err = overrides(res, in.Repo, envs); err != nil {
		return nil, err
	}
	if p.Clients, err = clients(res, in.Repo, envs); err != nil {
		return nil, err
	}
	p.Counts = counts(res, envs)
	if in.Since != nil {
		p.SinceEnvs = changeGroups(in.Since.Objects, envs)
		for _, v := range in.Since.Versions {
			if hasEnv(envs, v.Env) {
				p.SinceVersions = append(p.SinceVersions, v)
			}
		}
	}
	for _, pr := range res.Log.Problems() {
		if pr.Severity == diag.Warning {
			p.Problems = append(p.Problems, pr.String())
		}
	}
	return p, nil
}

// selected returns the environments named, in the spec's order, or
// every one.
func selected(spec *model.Spec, names []string) ([]*model.Environment, error) {
	if len(names) == 0 {
		return spec.Environments, nil
	}
	var out []*model.Environment
	for _, env := range spec.Environments {
		if slices.Contains(names, env.Name) {
			out = append(out, env)
		}
	}
	for _, n := range names {
		if spec.Environment(n) == nil {
			return nil, fmt.Errorf("the spec has no environment %q: name one of %s", n, diag.OrNone(model.EnvNames(spec.Environments)))
		}
	}
	return out, nil
}

func hasEnv(envs []*model.Environment, name string) bool {
	return slices.ContainsFunc(envs, func(e *model.Environment) bool { return e.Name == name })
}

// titles are the page's title and a line saying what it covers.
func titles(spec *model.Spec, envs []*model.Environment, tag string) (title, scope string) {
	names := model.EnvNames(envs)
	switch {
	case tag != "":
		return spec.Platform.Name + " " + tag, "Release " + tag + ", as the environments that pin it run it: " + strings.Join(names, ", ") + "."
	case len(envs) == len(spec.Environments):
		return spec.Platform.Name, "Every environment: " + strings.Join(names, ", ") + "."
	case len(envs) == 1:
		return spec.Platform.Name + ": " + envs[0].Name, "Environment " + envs[0].Name + "."
	}
	return spec.Platform.Name + ": " + strings.Join(names, ", "), "Environments " + strings.Join(names, ", ") + "."
}

// counts are what the environments' render holds, by kind, and the
// spec's modules and clients.
func counts(res *compiler.Result, envs []*model.Environment) []count {
	kinds := map[string]int{}
	for _, f := range res.Files {
		if f.Values || (f.Env != "" && !hasEnv(envs, f.Env)) {
			continue
		}
		for _, o := range f.Objects {
			if k, ok := o.Get("kind").(string); ok {
				kinds[k]++
			}
		}
	}
	out := []count{{len(envs), plural(len(envs), "environment")}, {len(res.Spec.Modules), plural(len(res.Spec.Modules), "module")}}
	for _, k := range []string{"Application", "AppProject", "ResourceGraphDefinition"} {
		if kinds[k] > 0 {
			out = append(out, count{kinds[k], plural(kinds[k], k)})
		}
	}
	instances := 0
	for _, inst := range res.Stacks.Instances {
		if slices.Contains(envs, inst.Env) {
			instances++
		}
	}
	if instances > 0 {
		out = append(out, count{instances, plural(instances, "stack instance")})
	}
	return out
}

func plural(n int, one string) string {
	if n == 1 {
		return one
	}
	return one + "s"
}

// changeGroup is the changes of one environment ("" for what every
// environment shares).
type changeGroup struct {
	Env     string
	Objects []diff.ObjectDiff
}

// changeGroups groups diffs (sorted by environment) by environment,
// keeping the report's environments and what they share.
func changeGroups(diffs []diff.ObjectDiff, envs []*model.Environment) []changeGroup {
	var out []changeGroup
	for _, d := range diffs {
		if d.Env != "" && !hasEnv(envs, d.Env) {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Env != d.Env {
			out = append(out, changeGroup{Env: d.Env})
		}
		out[len(out)-1].Objects = append(out[len(out)-1].Objects, d)
	}
	slices.SortStableFunc(out, func(a, b changeGroup) int { return cmp.Compare(a.Env, b.Env) })
	return out
}
