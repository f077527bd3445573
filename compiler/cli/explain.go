package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/platc/platc/compiler/explain"
	"github.com/platc/platc/compiler/model"
)

func runExplain(c *call, asJSON bool) int {
	env, app, ok := strings.Cut(c.args[0], "/")
	if !ok || env == "" || app == "" {
		return c.usagef("%s", c.cmd.missing)
	}
	valuesPath := ""
	if len(c.args) == 2 {
		valuesPath = c.args[1]
	}
	c.keepRenders = true // for the chart's defaults
	repo, code := c.compile(c.rep, false, false)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	if msg := known("environment", env, model.EnvNames(res.Spec.Environments)); msg != "" {
		return c.errorf(ExitUsage, "%s", msg)
	}
	ex, err := explain.Explain(res.Spec, res.Info, res.Stacks, res.Layers, newRepoFS(repo.root), env, app)
	if err != nil {
		// The Application the arguments name is not there.
		return c.errorf(ExitUsage, "%v", err)
	}
	for _, a := range res.Charts.Apps() {
		if a.Env == env && a.Name == app {
			if ch, err := a.Chart(); err == nil {
				if name, data := ch.DefaultValues(); data != nil {
					ex.SetChartDefaults(fmt.Sprintf("chart %s %s, %s", ch.Name(), ch.Version(), ch.Digest), ch.Name()+"/"+name, data)
				}
			}
		}
	}
	if asJSON {
		out := struct {
			*explain.Explanation
			Path   string           `json:"path,omitempty"`
			Winner *explain.Setting `json:"winner,omitempty"`
			Layer  *int             `json:"winnerLayer,omitempty"`
		}{Explanation: ex, Path: valuesPath}
		if valuesPath != "" {
			if i, s, ok := ex.Winner(valuesPath); ok {
				out.Winner, out.Layer = &s, &i
			}
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return c.errorf(ExitUsage, "%v", err)
		}
		return ExitOK
	}
	// Aligned columns, without the spaces they leave at line ends.
	var buf strings.Builder
	writeExplanation(&buf, ex, valuesPath)
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(c.stdout, strings.TrimRight(line, " \n"))
	}
	return ExitOK
}

func writeExplanation(w io.Writer, ex *explain.Explanation, valuesPath string) {
	fmt.Fprintf(w, "%s/%s: chart %s\n", ex.Environment, ex.Application, ex.Chart)
	if ex.VersionFrom != "" {
		fmt.Fprintf(w, "  version: %s\n", ex.VersionFrom)
	}
	fmt.Fprintln(w, "Layers, lowest first; a later layer wins (parameters > valuesObject > values > valueFiles > chart defaults):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, l := range ex.Layers {
		what := l.Source
		if l.Note != "" {
			what = strings.TrimPrefix(what+": "+l.Note, ": ")
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\n", i+1, l.Kind, what)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if valuesPath == "" {
		fmt.Fprintln(w, "Values Helm gets, and the layer each comes from (chart defaults not shown):")
		for _, v := range ex.Values() {
			fmt.Fprintf(tw, "  %s\t%s\t%d %s\t%s\n", v.Path, show(v.Value), v.Layer+1, ex.Layers[v.Layer].Kind, v.Pos)
		}
		tw.Flush()
		return
	}
	fmt.Fprintf(w, "%s:\n", valuesPath)
	at := ex.At(valuesPath)
	winner, _, ok := ex.Winner(valuesPath)
	for i, l := range ex.Layers {
		switch {
		case !l.Known:
			fmt.Fprintf(tw, "  %d %s\t?\t%s\n", i+1, l.Kind, l.Note)
		case len(at[i]) == 0:
			fmt.Fprintf(tw, "  %d %s\t-\t\n", i+1, l.Kind)
		default:
			for _, s := range at[i] {
				mark := ""
				if i == winner && (s.Path == valuesPath || strings.HasPrefix(valuesPath, s.Path+".")) {
					mark = "  <- wins"
				}
				fmt.Fprintf(tw, "  %d %s\t%s = %s\t%s%s\n", i+1, l.Kind, s.Path, show(s.Value), s.Pos, mark)
			}
		}
	}
	tw.Flush()
	if !ok {
		fmt.Fprintln(w, "No layer platc sees sets it: the chart's default applies.")
	}
}

// show writes a value as JSON, cut short where it is long: -json has it
// whole.
func show(v any) string {
	var b strings.Builder
	if err := jsonEncoder(&b).Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) > 72 {
		return s[:69] + "..."
	}
	return s
}
