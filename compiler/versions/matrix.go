package versions

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/rgd"
)

// Matrix is which version of each chart every environment runs: charts
// by environments, with the platform's pin and every environment's own.
type Matrix struct {
	Environments []Env `json:"environments"`
	Charts       []Row `json:"charts"`
}

// Env is an environment, a column of the matrix.
type Env struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
	Pinned   bool   `json:"pinned,omitempty"`
}

// Row is one chart.
type Row struct {
	Name     string `json:"name"` // charts.<name>
	RepoURL  string `json:"repoURL"`
	Chart    string `json:"chart"`
	Version  string `json:"version"` // the platform's pin
	Position string `json:"position"`
	// Environments are the versions each environment runs, in the order
	// of Matrix.Environments.
	Environments []Cell `json:"environments"`
}

// Cell is the version of one chart in one environment.
type Cell struct {
	Environment string `json:"environment"`
	Version     string `json:"version"`
	// Own says the environment pins the version itself, at Position;
	// otherwise it runs the platform's.
	Own      bool   `json:"own,omitempty"`
	Position string `json:"position,omitempty"`
	// Deployed says whether something in the environment installs the
	// chart: a chart module it delivers, or a stack module of an
	// instance there.
	Deployed bool `json:"deployed"`
}

// NewMatrix is the matrix of a compiled spec.
func NewMatrix(spec *model.Spec, info *check.Info, stacks *rgd.Compiled) *Matrix {
	m := &Matrix{Environments: []Env{}, Charts: []Row{}}
	for _, env := range spec.Environments {
		m.Environments = append(m.Environments, Env{Name: env.Name, Revision: env.Revision, Pinned: env.Pinned})
	}
	deployed := deployedCharts(spec, info, stacks)
	for _, c := range spec.Charts {
		row := Row{Name: c.Name, RepoURL: c.RepoURL, Chart: c.Chart, Version: c.Version, Position: c.At("version").String(), Environments: []Cell{}}
		for _, env := range spec.Environments {
			run := spec.ChartIn(env, c.Name)
			cell := Cell{Environment: env.Name, Version: run.Version, Deployed: deployed[env.Name+"\x00"+c.Name]}
			if run.Pin != nil {
				cell.Own, cell.Position = true, run.Pin.At("version").String()
			}
			row.Environments = append(row.Environments, cell)
		}
		m.Charts = append(m.Charts, row)
	}
	return m
}

// deployedCharts says, by environment and chart, whether the environment
// installs the chart.
func deployedCharts(spec *model.Spec, info *check.Info, stacks *rgd.Compiled) map[string]bool {
	out := map[string]bool{}
	for _, env := range spec.Environments {
		for _, mod := range spec.Modules {
			if !check.Delivered(env, mod.Name, info.Parent) {
				continue
			}
			if mod.Kind.Info().Syncs == model.SyncsChart {
				out[env.Name+"\x00"+mod.Chart] = true
			}
			for _, src := range mod.ExtraSourcesIn(env) {
				if src.Chart != "" {
					out[env.Name+"\x00"+src.Chart] = true
				}
			}
		}
	}
	if stacks != nil {
		for _, inst := range stacks.Instances {
			for _, sm := range inst.Stack.Model.Modules {
				out[inst.Env.Name+"\x00"+sm.Chart] = true
			}
		}
	}
	return out
}

func (e Env) heading() string {
	if e.Pinned {
		return fmt.Sprintf("%s (pinned %s)", e.Name, e.Revision)
	}
	return e.Name
}

// Text writes the matrix as a table: a column per environment, an
// environment's own pin marked *, "-" where nothing installs the chart;
// then where each own pin is written.
func (m *Matrix) Text(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"chart", "platform"}
	for _, e := range m.Environments {
		head = append(head, e.heading())
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	var own []string
	for _, r := range m.Charts {
		line := []string{r.Name, r.Version}
		for _, c := range r.Environments {
			v := c.Version
			switch {
			case !c.Deployed:
				v = "-"
			case c.Own:
				v += " *"
			}
			if c.Own {
				own = append(own, fmt.Sprintf("  %s: %s %s (%s)", c.Environment, r.Name, c.Version, c.Position))
			}
			line = append(line, v)
		}
		fmt.Fprintln(tw, strings.Join(line, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(own) > 0 {
		fmt.Fprintln(w, "\n* the environment's own pin; - nothing installs the chart there. Own pins:")
		for _, o := range own {
			fmt.Fprintln(w, o)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// Markdown writes the matrix as a Markdown table, for a pull request's
// comment: an environment's own pin in bold, "-" where nothing installs
// the chart.
func (m *Matrix) Markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| chart | platform |")
	for _, e := range m.Environments {
		b.WriteString(" " + mdEscape(e.heading()) + " |")
	}
	b.WriteString("\n|---|---|")
	for range m.Environments {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range m.Charts {
		b.WriteString("| " + mdEscape(r.Name) + " | " + mdEscape(r.Version) + " |")
		for _, c := range r.Environments {
			v := mdEscape(c.Version)
			switch {
			case !c.Deployed:
				v = "-"
			case c.Own:
				v = "**" + v + "**"
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n**Bold**: the environment's own pin. -: nothing installs the chart there.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a cell one cell: a | would end it.
func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
