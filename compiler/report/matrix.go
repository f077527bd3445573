package report

import (
	"fmt"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// envColumn is an environment, a column of the matrix.
type envColumn struct {
	Name, Description, Revision string
	Pinned                      bool
	Destination, Project        string
}

func envColumns(envs []*model.Environment) []envColumn {
	var out []envColumn
	for _, e := range envs {
		dest := e.Destination.Server
		if e.Destination.Name != "" {
			dest = "cluster " + e.Destination.Name
		}
		out = append(out, envColumn{Name: e.Name, Description: e.Description, Revision: e.Revision, Pinned: e.Pinned, Destination: dest, Project: e.Project})
	}
	return out
}

// moduleRow is a module, a row of the matrix.
type moduleRow struct {
	Name, Description, Kind string
	Group                   string // the group that delivers it
	Wave                    int
	Needs                   []string
	Cells                   []cell
}

// cell is what one environment runs of one module.
type cell struct {
	On bool
	// Runs is what its Application syncs: a chart and its version, a
	// folder at a revision, a group's members, stacks.
	Runs string
	// Own says the environment runs a chart version of its own, and
	// where it is written.
	Own     string
	Project string
	// Off says why the environment does not run it.
	Off string
}

func moduleRows(res *compiler.Result, envs []*model.Environment) []moduleRow {
	spec, info := res.Spec, res.Info
	var out []moduleRow
	for _, m := range spec.Modules {
		row := moduleRow{Name: m.Name, Description: m.Description, Kind: m.Kind.Info().Field, Group: info.Parent[m.Name], Wave: info.Waves[m.Name], Needs: m.Needs}
		for _, env := range envs {
			row.Cells = append(row.Cells, moduleCell(res, env, m))
		}
		out = append(out, row)
	}
	return out
}

func moduleCell(res *compiler.Result, env *model.Environment, m *model.Module) cell {
	spec, info := res.Spec, res.Info
	if !check.Delivered(env, m.Name, info.Parent) {
		c := cell{Off: "disabled"}
		if check.Enabled(env, m.Name) {
			for g := info.Parent[m.Name]; g != ""; g = info.Parent[g] {
				if !check.Enabled(env, g) {
					c.Off = "its group " + g + " is disabled"
					break
				}
			}
		} else if s := env.Settings[m.Name]; s != nil && s.External != nil {
			c.Off = fmt.Sprintf("disabled: the environment's own, at %s", endpoint(s.External))
		}
		return c
	}
	c := cell{On: true, Project: env.Project}
	if s := env.Settings[m.Name]; s != nil && s.Project != "" {
		c.Project = s.Project
	}
	switch m.Kind.Info().Syncs {
	case model.SyncsChart:
		ch := spec.ChartIn(env, m.Chart)
		c.Runs = fmt.Sprintf("chart %s %s", ch.Chart, ch.Version)
		if ch.Pin != nil {
			c.Own = fmt.Sprintf("the environment's own version (%s); the platform's is %s", ch.Pin.At("version"), spec.Chart(m.Chart).Version)
		}
		if m.Manifests != "" {
			c.Runs += fmt.Sprintf(", and %s at %s", m.Manifests, env.Revision)
		}
	case model.SyncsRepoFolder:
		c.Runs = fmt.Sprintf("%s at %s", m.DirIn(env), m.RevisionIn(env))
		if m.RepoURL != "" {
			c.Runs = fmt.Sprintf("%s %s", m.RepoURL, c.Runs)
		}
		if info.Charts[m.Name] {
			c.Runs = "chart " + c.Runs
		}
	case model.SyncsMembers:
		var on []string
		for _, member := range m.Members {
			if check.Delivered(env, member, info.Parent) {
				on = append(on, member)
			}
		}
		c.Runs = "group of " + diag.OrNone(on)
	case model.SyncsInstances:
		n := 0
		for _, inst := range res.Stacks.Instances {
			if inst.Env == env && info.Instances[inst.Stack.Model.Name] == m {
				n++
			}
		}
		c.Runs = fmt.Sprintf("%d %s of %s", n, plural(n, "instance"), strings.Join(m.Stacks, ", "))
	case model.SyncsDefinitions:
		c.Runs = "definitions of " + strings.Join(m.Stacks, ", ")
	default:
		// A new kind of module says here what its Application syncs
		// (model.KindInfos).
		panic(fmt.Sprintf("platc report: module %s syncs what report has no words for (%d)", m.Name, m.Kind.Info().Syncs))
	}
	return c
}

func endpoint(e *model.Endpoint) string {
	s := fmt.Sprintf("%s:%d", e.Host, e.Port)
	if e.Scheme != "" {
		s = e.Scheme + "://" + s
	}
	return s
}
