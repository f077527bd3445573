package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// reservedInstanceFields are the instance spec fields platc adds to every
// stack and fills for each client (chartVersions only to a stack whose
// charts an environment runs at a version of its own).
var reservedInstanceFields = []string{"values", "project", "chartVersions"}

// stacks checks the references of stacks and clients: what kro itself
// checks of a stack (ids, SimpleSchema, CEL, the graph) is package rgd's.
// It returns, for each stack, the module that delivers its definition and
// the module that delivers its instances.
func (c *checker) stacks() (definitions, instances map[string]*model.Module) {
	definitions, instances = map[string]*model.Module{}, map[string]*model.Module{}
	for _, m := range c.spec.Modules {
		var byKind map[string]*model.Module
		switch m.Kind.Info().Syncs {
		case model.SyncsDefinitions:
			byKind = definitions
		case model.SyncsInstances:
			byKind = instances
		default:
			continue
		}
		for i, name := range m.Stacks {
			if other := byKind[name]; other != nil {
				c.elemReportf(diag.Duplicate, m, model.Kinds[m.Kind], i, "module %q already delivers the %s of stack %q: one module does", other.Name, model.Kinds[m.Kind], name)
				continue
			}
			byKind[name] = m
		}
	}

	for _, st := range c.spec.Stacks {
		c.label(st.Pos, st.Path, st.Name)
		for _, f := range reservedInstanceFields {
			if _, ok := st.Spec[f]; ok {
				c.log.Reportf(diag.Name, c.spec.PosOf(st.FieldPath("spec")+"."+f), st.FieldPath("spec")+"."+f, "%q is a field platc adds to every stack's instances: rename yours", f)
			}
		}
		if msg := repoPathProblem(st.ValuesDir); msg != "" && st.Has("valuesDir") {
			c.reportf(diag.Path, &st.Node, "valuesDir", "%q %s: name a folder relative to the client's values prefix", st.ValuesDir, msg)
		}
		for _, m := range st.Modules {
			// The Argo CD fields a module's Application has, by its rules.
			c.syncPolicy(m.SyncPolicy)
			c.ignoreDifferences(m.IgnoreDifferences)
			if m.Chart != "" && c.spec.Chart(m.Chart) == nil {
				c.reportf(diag.UnknownName, &m.Node, "chart", "unknown chart %q: declare it under charts%s", m.Chart, diag.DidYouMean(m.Chart, chartNames(c.spec)))
			}
			if strings.Contains(m.ValuesFile, "/") && repoPathProblem(m.ValuesFile) != "" || m.ValuesFile == "" {
				c.reportf(diag.Path, &m.Node, "valuesFile", "%q is not a file name in the client's values folder", m.ValuesFile)
			}
			for _, w := range m.Wiring {
				c.wiringKey(&w.Node, w.Key, w.ValuesPath, "wire the whole list %s with one expression (\"${[{...}]}\")")
			}
			c.syncOptions(&m.Node, m.SyncOptions, true)
			c.allow(&m.Node, m.Allow)
		}
		for _, w := range st.Wiring {
			c.stackWire(st, w)
		}
		if definitions[st.Name] == nil && instances[st.Name] != nil {
			m := instances[st.Name]
			c.log.Reportf(diag.StackDelivery, m.At("stacks"), m.FieldPath("stacks"), "no module delivers the definition of stack %q, so kro cannot create its instances: add a module with definitions: [%q]", st.Name, st.Name)
		}
	}

	for _, cl := range c.spec.Clients {
		c.client(cl, instances)
	}
	return definitions, instances
}

func (c *checker) stackWire(st *model.Stack, w *model.StackWire) {
	if w.SpecPath == nil {
		c.log.Reportf(diag.ValuesPath, w.Pos, w.Path, "%q is not a path into the instance spec: write dotted field names such as \"endpoints.logs\"", w.Key)
	}
	from := c.spec.Stack(w.FromStack)
	switch {
	case w.FromStack == st.Name:
		c.reportf(diag.SelfReference, &w.Node, "stack", "a stack cannot be wired from its own outputs")
	case from == nil:
		c.reportf(diag.UnknownName, &w.Node, "stack", "unknown stack %q%s", w.FromStack, diag.DidYouMean(w.FromStack, stackNames(c.spec)))
	case from.Output(w.FromOutput) == nil:
		outputs := names(from.Outputs, func(o *model.Output) string { return o.Name })
		c.reportf(diag.UnknownName, &w.Node, "output", "stack %q has no output %q%s: its outputs are %s", w.FromStack, w.FromOutput, diag.DidYouMean(w.FromOutput, outputs), diag.OrNone(outputs))
	}
}

func (c *checker) client(cl *model.Client, instances map[string]*model.Module) {
	c.label(cl.Pos, cl.Path, cl.Name)
	c.allow(&cl.Node, cl.Allow)
	v := &cl.Values
	c.gitRepoURL(&v.Node, v.RepoURL)
	if msg := repoPathProblem(v.Prefix); msg != "" {
		c.reportf(diag.Path, &v.Node, "prefix", "%q %s: name a folder of the values repository", v.Prefix, msg)
	}
	if v.OK("revision") && v.Revision == "" {
		c.reportf(diag.Revision, &v.Node, "revision", "empty revision: name a branch or a tag of the values repository")
	}
	for _, cs := range cl.Stacks {
		st := c.spec.Stack(cs.Stack)
		if st == nil {
			c.log.Reportf(diag.UnknownName, cs.Pos, cs.Path, "unknown stack %q%s", cs.Stack, diag.DidYouMean(cs.Stack, stackNames(c.spec)))
			continue
		}
		if len(cs.Environments) == 0 && cs.OK("environments") {
			c.reportf(diag.StackDelivery, &cs.Node, "environments", "no environments: list where the client has the stack")
		}
		for i, name := range cs.Environments {
			p := fmt.Sprintf("%s[%d]", cs.FieldPath("environments"), i)
			env := c.spec.Environment(name)
			switch {
			case env == nil:
				c.log.Reportf(diag.UnknownName, cs.At("environments"), p, "unknown environment %q%s", name, diag.DidYouMean(name, model.EnvNames(c.spec.Environments)))
			case instances[cs.Stack] == nil:
				c.log.Reportf(diag.StackDelivery, cs.At("environments"), p, "no module delivers the instances of stack %q: add a module with stacks: [%q]", cs.Stack, cs.Stack)
			case !Delivered(env, instances[cs.Stack].Name, c.Parent):
				c.log.Reportf(diag.StackDelivery, cs.At("environments"), p, "environment %s does not deliver module %q, which delivers the instances of stack %q: enable it there, or remove %s", name, instances[cs.Stack].Name, cs.Stack, name)
			case cs.Project != "" && cs.Project != "default" && !slices.ContainsFunc(env.Projects, func(p *model.Project) bool { return p.Name == cs.Project }):
				c.reportf(diag.UnknownName, &cs.Node, "project", "environment %s has no project %q: declare it under %s, or use \"default\"", name, cs.Project, env.FieldPath("projects"))
			}
		}
		// A wired instance field needs the client's instance of the other
		// stack in the same environment. Where the other stack's list
		// names an unknown environment, that (a typo, most likely) is
		// the cause, reported above: its consequences are not.
		missing := map[[2]string][]string{} // from stack and environment -> wired keys
		for _, w := range st.Wiring {
			if c.spec.Stack(w.FromStack) == nil {
				continue
			}
			other := cl.Stack(w.FromStack)
			if other != nil && slices.ContainsFunc(other.Environments, func(e string) bool { return c.spec.Environment(e) == nil }) {
				continue
			}
			for _, name := range cs.Environments {
				if other == nil || !slices.Contains(other.Environments, name) {
					k := [2]string{w.FromStack, name}
					missing[k] = append(missing[k], w.Key)
				}
			}
		}
		for k, keys := range missing {
			from, name := k[0], k[1]
			c.log.Reportf(diag.Wiring, cs.Pos, cs.Path, "stack %q wires %s from stack %q, which client %s does not have in %s: add %s to %s", cs.Stack, diag.List(keys), from, cl.Name, name, name, diag.JoinPath(diag.JoinPath(cl.FieldPath("stacks"), from), "environments"))
		}
	}
}

// Delivered reports whether module has an Application in env: it and every
// group that delivers it are enabled there.
func Delivered(env *model.Environment, module string, parent map[string]string) bool {
	for name := module; name != ""; name = parent[name] {
		if !Enabled(env, name) {
			return false
		}
	}
	return true
}

// stackOrder returns every stack after the stacks it wires from, and
// reports stacks that wire from each other: platc evaluates a stack's
// outputs over an instance's spec, wired fields included, before wiring
// them into another stack's instance, so a cycle has no order.
func (c *checker) stackOrder() []string {
	names, order := make([]string, 0, len(c.spec.Stacks)), make([]string, 0, len(c.spec.Stacks))
	for _, st := range c.spec.Stacks { // sorted by name
		names = append(names, st.Name)
	}
	deps := func(name string) []string {
		var out []string
		for _, w := range c.spec.Stack(name).Wiring {
			if c.spec.Stack(w.FromStack) != nil && w.FromStack != name {
				out = append(out, w.FromStack)
			}
		}
		return out
	}
	cycle := func(cycle []string) {
		st := c.spec.Stack(cycle[0])
		c.log.Reportf(diag.Cycle, st.At("wiring"), st.FieldPath("wiring"), "stacks wire from each other: %s: platc fills a stack's wired fields before it evaluates the outputs another stack reads, so remove one of these wirings", strings.Join(cycle, " <- "))
	}
	depthFirst(names, deps, cycle, func(name string) { order = append(order, name) })
	return order
}
