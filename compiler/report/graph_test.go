package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/platc/platc/compiler"
)

// compiledCases compiles the sample and every golden case that compiles,
// by name, once for the tests that read them all.
func compiledCases(t *testing.T) map[string]*compiler.Result {
	t.Helper()
	cases, err := compileCases()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

var compileCases = sync.OnceValues(func() (map[string]*compiler.Result, error) {
	dirs := []string{"../.."}
	cases, err := filepath.Glob("../../golden/*")
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, cases...)
	out := map[string]*compiler.Result{}
	for _, dir := range dirs {
		if strings.HasPrefix(filepath.Base(dir), "error-") {
			continue
		}
		res := compiler.Compile(os.DirFS(dir), compiler.Options{KeepFiles: true})
		if res.Log.HasErrors() {
			continue
		}
		name := filepath.Base(dir)
		if dir == "../.." {
			name = "sample"
		}
		out[name] = res
	}
	if len(out) < 10 {
		return nil, fmt.Errorf("only %d cases compile", len(out))
	}
	return out, nil
})

// graphs are the graphs of every compiled case, of every environment.
func graphs(t *testing.T) map[string]*Graph {
	out := map[string]*Graph{}
	for name, res := range compiledCases(t) {
		out[name] = NewGraph(res.Spec, res.Info, res.Spec.Environments)
	}
	return out
}

// moduleNames are the names of g's nodes, sorted.
func moduleNames(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes() {
		out = append(out, n.Name)
	}
	slices.Sort(out)
	return out
}

// TestDOTParses reads the DOT of every case with a parser of the part of
// the language it writes: the braces balance, every statement ends, every
// module is declared once, and every edge joins declared nodes.
func TestDOTParses(t *testing.T) {
	for name, g := range graphs(t) {
		var b bytes.Buffer
		if err := g.DOT(&b); err != nil {
			t.Fatal(err)
		}
		nodes, edges, err := parseDOT(b.String())
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, b.String())
			continue
		}
		if want := moduleNames(g); !slices.Equal(nodes, want) {
			t.Errorf("%s: the DOT declares %v, want every module: %v", name, nodes, want)
		}
		if len(edges) != len(g.Edges) {
			t.Errorf("%s: the DOT has %d edges, want %d", name, len(edges), len(g.Edges))
		}
	}
}

// dotToken is a DOT identifier (quoted or not) or punctuation.
var dotToken = regexp.MustCompile(`^(?:"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z_0-9]*|->|[{}\[\];=,])`)

// parseDOT parses digraph ID { stmt* } where a statement is an
// attribute (ID = ID;), node [attrs]; , a node (ID [attrs];), an edge
// (ID -> ID [attrs];) or subgraph ID { stmt* }; it returns the nodes,
// sorted, and the edges.
func parseDOT(s string) (nodes []string, edges [][2]string, err error) {
	var toks []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		rest := strings.TrimSpace(line)
		for rest != "" {
			tok := dotToken.FindString(rest)
			if tok == "" {
				return nil, nil, fmt.Errorf("cannot read %q", rest)
			}
			toks = append(toks, tok)
			rest = strings.TrimSpace(rest[len(tok):])
		}
	}
	i := 0
	next := func() string {
		if i >= len(toks) {
			return ""
		}
		i++
		return toks[i-1]
	}
	expect := func(want string) error {
		if got := next(); got != want {
			return fmt.Errorf("token %d: got %q, want %q", i, got, want)
		}
		return nil
	}
	isID := func(t string) bool { return t != "" && (t[0] == '"' || t[0] == '_' || t[0] >= 'A') && t != "->" }
	attrs := func() error {
		if i >= len(toks) || toks[i] != "[" {
			return nil
		}
		next()
		for {
			k := next()
			if k == "]" {
				return nil
			}
			if !isID(k) {
				return fmt.Errorf("token %d: attribute %q", i, k)
			}
			if err := expect("="); err != nil {
				return err
			}
			if v := next(); !isID(v) {
				return fmt.Errorf("token %d: attribute value %q", i, v)
			}
			if i < len(toks) && toks[i] == "," {
				next()
			}
		}
	}
	declared := map[string]bool{}
	var stmts func() error
	stmts = func() error {
		if err := expect("{"); err != nil {
			return err
		}
		for {
			t := next()
			switch {
			case t == "}":
				return nil
			case t == "":
				return fmt.Errorf("unbalanced braces: the graph does not end")
			case t == "subgraph":
				if id := next(); !isID(id) {
					return fmt.Errorf("token %d: subgraph %q", i, id)
				}
				if err := stmts(); err != nil {
					return err
				}
				continue
			case t == "node":
				if err := attrs(); err != nil {
					return err
				}
			case !isID(t):
				return fmt.Errorf("token %d: statement starts with %q", i, t)
			case i < len(toks) && toks[i] == "=":
				next()
				if v := next(); !isID(v) {
					return fmt.Errorf("token %d: value %q", i, v)
				}
			case i < len(toks) && toks[i] == "->":
				next()
				to := next()
				if !isID(to) {
					return fmt.Errorf("token %d: edge to %q", i, to)
				}
				edges = append(edges, [2]string{t, to})
				if err := attrs(); err != nil {
					return err
				}
			default:
				if declared[t] {
					return fmt.Errorf("node %s declared twice", t)
				}
				declared[t] = true
				if err := attrs(); err != nil {
					return err
				}
			}
			if err := expect(";"); err != nil {
				return err
			}
		}
	}
	if err := expect("digraph"); err != nil {
		return nil, nil, err
	}
	if id := next(); !isID(id) {
		return nil, nil, fmt.Errorf("digraph %q", id)
	}
	if err := stmts(); err != nil {
		return nil, nil, err
	}
	if i != len(toks) {
		return nil, nil, fmt.Errorf("unbalanced braces: %q after the graph's end", toks[i])
	}
	for _, e := range edges {
		for _, n := range e {
			if !declared[n] {
				return nil, nil, fmt.Errorf("edge %s -> %s: %s is not declared", e[0], e[1], n)
			}
		}
	}
	for n := range declared {
		nodes = append(nodes, strings.Trim(n, `"`))
	}
	slices.Sort(nodes)
	return nodes, edges, nil
}

// TestMermaidParses reads the Mermaid of every case line by line: a
// flowchart, subgraphs that end, node declarations with quoted labels,
// every module declared once, and edges between declared nodes.
func TestMermaidParses(t *testing.T) {
	node := regexp.MustCompile(`^(m_[a-z0-9_]+)(\["[^"]*"\]|\[\["[^"]*"\]\])$`)
	subgraph := regexp.MustCompile(`^subgraph g_[a-z0-9_]+ \["[^"]*"\]$`)
	edge := regexp.MustCompile(`^(m_[a-z0-9_]+) (-->|-\. [a-z ]+ \.->) (m_[a-z0-9_]+)$`)
	for name, g := range graphs(t) {
		var b bytes.Buffer
		if err := g.Mermaid(&b); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "%%") || lines[1] != "flowchart LR" {
			t.Errorf("%s: not a flowchart:\n%s", name, b.String())
			continue
		}
		declared := map[string]bool{}
		depth, edges := 0, 0
		for _, l := range lines[2:] {
			l = strings.TrimSpace(l)
			switch {
			case subgraph.MatchString(l):
				depth++
			case l == "end":
				depth--
				if depth < 0 {
					t.Errorf("%s: an end without its subgraph", name)
				}
			case node.MatchString(l):
				id := node.FindStringSubmatch(l)[1]
				if declared[id] {
					t.Errorf("%s: %s declared twice", name, id)
				}
				declared[id] = true
			case edge.MatchString(l):
				m := edge.FindStringSubmatch(l)
				for _, id := range []string{m[1], m[3]} {
					if !declared[id] {
						t.Errorf("%s: edge %q: %s is not declared before it", name, l, id)
					}
				}
				edges++
			default:
				t.Errorf("%s: cannot read line %q", name, l)
			}
		}
		if depth != 0 {
			t.Errorf("%s: %d subgraphs do not end", name, depth)
		}
		if len(declared) != len(g.Nodes()) || edges != len(g.Edges) {
			t.Errorf("%s: %d nodes and %d edges, want %d and %d", name, len(declared), edges, len(g.Nodes()), len(g.Edges))
		}
	}
}

// TestDOTDrawsWithGraphviz hands every case's DOT to Graphviz's dot,
// which must draw it without a word on stderr, one node per module.
func TestDOTDrawsWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not installed (apt-get install graphviz): the DOT is checked by TestDOTParses alone")
	}
	for name, g := range graphs(t) {
		var in, out, stderr bytes.Buffer
		if err := g.DOT(&in); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &out, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s: dot -Tsvg: %v: %s", name, err, stderr.String())
			continue
		}
		if n := strings.Count(out.String(), `class="node"`); n != len(g.Nodes()) {
			t.Errorf("%s: dot drew %d nodes, want %d", name, n, len(g.Nodes()))
		}
	}
}

// TestLayout checks the picture of every case: one box per module, every
// edge from left to right, no two boxes overlapping unless one is the
// group that holds the other, and everything inside the picture.
func TestLayout(t *testing.T) {
	for name, g := range graphs(t) {
		p := layout(g)
		boxes := append(slices.Clone(p.Groups), p.Leaves...)
		var got []string
		for _, b := range boxes {
			got = append(got, b.Module)
			if b.X < 0 || b.Y < 0 || b.X+b.W > p.Width || b.Y+b.H > p.Height {
				t.Errorf("%s: %s at %d,%d %dx%d is outside the picture (%dx%d)", name, b.Module, b.X, b.Y, b.W, b.H, p.Width, p.Height)
			}
		}
		slices.Sort(got)
		if want := moduleNames(g); !slices.Equal(got, want) {
			t.Errorf("%s: boxes %v, want one per module %v", name, got, want)
		}
		inside := func(a, b box) bool { return a.X >= b.X && a.Y >= b.Y && a.X+a.W <= b.X+b.W && a.Y+a.H <= b.Y+b.H }
		for i, a := range boxes {
			for _, b := range boxes[i+1:] {
				overlap := a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
				if overlap && !inside(a, b) && !inside(b, a) {
					t.Errorf("%s: %s and %s overlap", name, a.Module, b.Module)
				}
			}
		}
		for _, e := range p.Edges {
			var x1, x2 int
			if _, err := fmt.Sscanf(e.D, "M%d", &x1); err != nil {
				t.Fatal(err)
			}
			end := e.D[strings.LastIndexByte(e.D[:strings.LastIndexByte(e.D, ' ')], ' ')+1:]
			if _, err := fmt.Sscanf(end, "%d", &x2); err != nil {
				t.Fatal(err)
			}
			if x2 <= x1 {
				t.Errorf("%s: the edge %s -> %s runs right to left (%s)", name, e.From, e.To, e.D)
			}
		}
	}
}

// TestLayoutIsByWaveAndName lays out a small graph by hand: columns by
// wave, each column's nodes by name, a group holding its members.
func TestLayoutIsByWaveAndName(t *testing.T) {
	g := &Graph{Roots: []*Node{
		{Name: "b", Kind: "chart"},
		{Name: "ops", Kind: "group", Members: []*Node{{Name: "x", Kind: "chart"}, {Name: "y", Kind: "chart", Wave: 1}}},
		{Name: "a", Kind: "path", Wave: 1},
	}, Edges: []Edge{{From: "y", To: "a"}}}
	p := layout(g)
	at := map[string]box{}
	for _, b := range append(slices.Clone(p.Groups), p.Leaves...) {
		at[b.Module] = b
	}
	if !(at["b"].X == at["ops"].X && at["b"].Y < at["ops"].Y) {
		t.Errorf("b and ops are not one column, b first: %+v %+v", at["b"], at["ops"])
	}
	if !(at["x"].X < at["y"].X && at["y"].X+at["y"].W <= at["ops"].X+at["ops"].W) {
		t.Errorf("the group's members are not in columns inside it: %+v %+v %+v", at["x"], at["y"], at["ops"])
	}
	if at["a"].X <= at["ops"].X+at["ops"].W {
		t.Errorf("a, wave 1, is not right of wave 0: %+v", at["a"])
	}
	var labels []string
	for _, l := range p.Labels {
		labels = append(labels, l.Text)
	}
	if want := []string{"wave 0", "wave 0", "wave 1", "wave 1"}; !slices.Equal(labels, want) {
		t.Errorf("column labels %v, want %v", labels, want)
	}
}

// TestEveryCaseHasAPage writes the page of the sample and of every golden
// case that compiles, each of its environments alone and all together:
// whatever the spec holds (no stack, no client, nested groups, projects
// of every field), the page is made.
func TestEveryCaseHasAPage(t *testing.T) {
	for name, res := range compiledCases(t) {
		envs := [][]string{nil}
		for _, e := range res.Spec.Environments {
			envs = append(envs, []string{e.Name})
		}
		for _, e := range envs {
			var b bytes.Buffer
			if err := Write(&b, Input{Result: res, Envs: e}); err != nil {
				t.Errorf("%s %v: %v", name, e, err)
				continue
			}
			if !strings.HasSuffix(b.String(), "</html>\n") {
				t.Errorf("%s %v: the page does not end", name, e)
			}
		}
	}
}

// Nodes returns every node, depth first in the order of Roots and
// Members.
func (g *Graph) Nodes() []*Node {
	var out []*Node
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			out = append(out, n)
			walk(n.Members)
		}
	}
	walk(g.Roots)
	return out
}
