package cli

import (
	"flag"
	"slices"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	reportpage "github.com/platc/platc/compiler/report"
)

// graphFlags are the flags of platc graph, and what runs it: it prints the
// order of delivery of the environments named, or of every one.
func graphFlags(fs *flag.FlagSet) func(*call) int {
	format := &choice{value: "dot", allowed: []string{"dot", "mermaid"}}
	fs.Var(format, "format", "print the graph as `format`: dot (Graphviz) or mermaid (a Mermaid flowchart)")
	var named stringList
	fs.Var(&named, "env", "only the modules this `environment` delivers (repeatable)")
	return func(c *call) int {
		repo, code := c.compileOnly()
		if repo == nil {
			return code
		}
		spec := repo.res.Spec
		for _, n := range named {
			if msg := known("environment", n, model.EnvNames(spec.Environments)); msg != "" {
				return c.errorf(ExitUsage, "-env: %s", msg)
			}
		}
		envs := spec.Environments
		if len(named) > 0 {
			envs = slices.DeleteFunc(slices.Clone(envs), func(e *model.Environment) bool { return !slices.Contains(named, e.Name) })
		}
		g := reportpage.NewGraph(spec, repo.res.Info, envs)
		write := g.DOT
		if format.value == "mermaid" {
			write = g.Mermaid
		}
		if err := write(c.stdout); err != nil {
			return c.rep.failf(diag.IO, "writing the graph: %v", err)
		}
		return ExitOK
	}
}
