package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/model"
)

// Graph is the order of delivery: the modules as nodes, each in the apps
// file that lists it (the environment's, or its group's), and what each
// needs as edges. Argo CD syncs an apps file's Applications wave by wave,
// so a node's wave orders it among the nodes of its file only.
type Graph struct {
	Platform string
	// Roots are the modules of the environment's own apps file, sorted
	// by wave, then name; a group's members are its Members.
	Roots []*Node
	// Edges are sorted by From, then To.
	Edges []Edge
	nodes map[string]*Node
}

// Node is one module.
type Node struct {
	Name string
	Kind string // the field that sets its kind: chart, path, group, stacks, definitions
	Wave int
	// Members are a group's modules, sorted by wave, then name.
	Members []*Node
}

// Edge says that To syncs after From: To needs From, or, Implicit, To
// delivers the instances of a stack whose definition From delivers (kro
// must know the kind first).
type Edge struct {
	From, To string
	Implicit bool
}

// NewGraph is the graph of the modules delivered in any of envs.
func NewGraph(spec *model.Spec, info *check.Info, envs []*model.Environment) *Graph {
	g := &Graph{Platform: spec.Platform.Name, nodes: map[string]*Node{}}
	for _, m := range spec.Modules {
		if slices.ContainsFunc(envs, func(env *model.Environment) bool { return check.Delivered(env, m.Name, info.Parent) }) {
			g.nodes[m.Name] = &Node{Name: m.Name, Kind: m.Kind.Info().Field, Wave: info.Waves[m.Name]}
		}
	}
	for _, m := range spec.Modules {
		n := g.nodes[m.Name]
		if n == nil {
			continue
		}
		if p := g.nodes[info.Parent[m.Name]]; p != nil {
			p.Members = append(p.Members, n)
		} else {
			g.Roots = append(g.Roots, n)
		}
		for _, need := range m.Needs {
			if g.nodes[need] != nil {
				g.Edges = append(g.Edges, Edge{From: need, To: m.Name})
			}
		}
		if m.Kind.Info().Syncs == model.SyncsInstances {
			for _, st := range m.Stacks {
				if d := info.Definitions[st]; d != nil && d != m && g.nodes[d.Name] != nil && !slices.Contains(m.Needs, d.Name) {
					g.Edges = append(g.Edges, Edge{From: d.Name, To: m.Name, Implicit: true})
				}
			}
		}
	}
	byWave := func(a, b *Node) int { return cmp.Or(cmp.Compare(a.Wave, b.Wave), strings.Compare(a.Name, b.Name)) }
	slices.SortFunc(g.Roots, byWave)
	for _, n := range g.nodes {
		slices.SortFunc(n.Members, byWave)
	}
	slices.SortFunc(g.Edges, func(a, b Edge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	g.Edges = slices.CompactFunc(g.Edges, func(a, b Edge) bool { return a.From == b.From && a.To == b.To })
	return g
}

// label is what a node says besides its name.
func (n *Node) label() string { return fmt.Sprintf("%s, wave %d", n.Kind, n.Wave) }

// DOT writes the graph in Graphviz's language: left to right, a group's
// members in a cluster with the group's own node, the implicit edges
// dashed.
func (g *Graph) DOT(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "// The order of delivery of %s (platc graph): a module syncs after what it needs.\n", g.Platform)
	fmt.Fprintf(&b, "digraph %s {\n\trankdir=LR;\n\tnode [shape=box];\n", dotID(g.Platform))
	var nodes func(ns []*Node, indent string)
	nodes = func(ns []*Node, indent string) {
		for _, n := range ns {
			if len(n.Members) == 0 {
				fmt.Fprintf(&b, "%s%s [label=%s];\n", indent, dotID(n.Name), dotID(n.Name+"\n"+n.label()))
				continue
			}
			fmt.Fprintf(&b, "%ssubgraph %s {\n", indent, dotID("cluster_"+n.Name))
			fmt.Fprintf(&b, "%s\tlabel=%s;\n", indent, dotID("members of "+n.Name))
			fmt.Fprintf(&b, "%s\t%s [label=%s, shape=folder];\n", indent, dotID(n.Name), dotID(n.Name+"\n"+n.label()))
			nodes(n.Members, indent+"\t")
			fmt.Fprintf(&b, "%s}\n", indent)
		}
	}
	nodes(g.Roots, "\t")
	for _, e := range g.Edges {
		attrs := ""
		if e.Implicit {
			attrs = ` [style=dashed, label="definitions first"]`
		}
		fmt.Fprintf(&b, "\t%s -> %s%s;\n", dotID(e.From), dotID(e.To), attrs)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotID is s as a quoted DOT identifier.
func dotID(s string) string { return `"` + dotEscaper.Replace(s) + `"` }

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// Mermaid writes the graph as a Mermaid flowchart, left to right, a
// group's members in a subgraph with the group's own node, the implicit
// edges dotted.
func (g *Graph) Mermaid(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%%%% The order of delivery of %s (platc graph): a module syncs after what it needs.\n", g.Platform)
	b.WriteString("flowchart LR\n")
	var nodes func(ns []*Node, indent string)
	nodes = func(ns []*Node, indent string) {
		for _, n := range ns {
			label := mermaidLabel(n.Name + " (" + n.label() + ")")
			if len(n.Members) == 0 {
				fmt.Fprintf(&b, "%s%s[%s]\n", indent, mermaidID("m", n.Name), label)
				continue
			}
			fmt.Fprintf(&b, "%ssubgraph %s [%s]\n", indent, mermaidID("g", n.Name), mermaidLabel("members of "+n.Name))
			fmt.Fprintf(&b, "%s\t%s[[%s]]\n", indent, mermaidID("m", n.Name), label)
			nodes(n.Members, indent+"\t")
			fmt.Fprintf(&b, "%send\n", indent)
		}
	}
	nodes(g.Roots, "\t")
	for _, e := range g.Edges {
		arrow := "-->"
		if e.Implicit {
			arrow = "-. definitions first .->"
		}
		fmt.Fprintf(&b, "\t%s %s %s\n", mermaidID("m", e.From), arrow, mermaidID("m", e.To))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidID is a Mermaid identifier for a module's node (prefix m) or a
// group's subgraph (prefix g): names are DNS labels, so replacing dashes
// keeps them apart, and the prefix avoids keywords (end, graph).
func mermaidID(prefix, name string) string {
	return prefix + "_" + strings.ReplaceAll(name, "-", "_")
}

// mermaidLabel is s as a quoted Mermaid label; Mermaid reads #quot; as
// a double quote.
func mermaidLabel(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, "#quot;") + `"`
}
