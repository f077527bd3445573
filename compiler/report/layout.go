package report

import (
	"fmt"
	"unicode/utf8"
)

// The delivery order picture is laid out here, not by a library: no
// pure-Go layered layout is maintained well enough (Graphviz is C), and
// the graph's shape fixes most of the layout. Modules go in columns by
// wave, left to right, each sorted by name, so the same spec draws the
// same picture. A group is a box holding its members' columns, in its own
// wave's column. Edges run left to right, from what is needed to what
// needs it; crossings are left as they fall, since sorting by name keeps
// the picture stable and minimising crossings would not.

// Sizes, in pixels. Text is drawn in a monospace font, whose characters
// are 0.6 em wide, so a label's width is known without measuring it.
const (
	charWidth   = 7.5 // a 12 px monospace character, with a margin
	nodeHeight  = 40
	nodePad     = 10
	minNode     = 120
	columnGap   = 56
	rowGap      = 14
	groupHead   = 28
	columnLabel = 20
)

// picture is the graph laid out, for the page's SVG.
type picture struct {
	Width, Height int
	Groups        []box // a group's box is drawn before its members
	Leaves        []box
	Edges         []line
	Labels        []label
}

// box is a node's rectangle and the text in it.
type box struct {
	Module           string
	Name, Sub, Title string
	X, Y, W, H       int
}

// TextX, NameY and SubY place a box's two lines of text.
func (b box) TextX() int { return b.X + nodePad }
func (b box) NameY() int { return b.Y + 17 }
func (b box) SubY() int  { return b.Y + 32 }

// line is an edge, as an SVG path.
type line struct {
	From, To string
	D        string
	Implicit bool
}

// label is a column's heading, "wave 0".
type label struct {
	X, Y int
	Text string
}

func textWidth(s string) int { return int(float64(utf8.RuneCountInString(s))*charWidth + 0.5) }

// block is a list of nodes laid out in columns by wave, relative to its
// top left corner.
type block struct {
	w, h    int
	columns []column
}

type column struct {
	wave  int
	w     int
	nodes []*sized
}

// sized is a node and its size; inner is a group's block.
type sized struct {
	n     *Node
	w, h  int
	inner *block
}

func layout(g *Graph) *picture {
	root := measure(g.Roots)
	p := &picture{Width: root.w, Height: root.h}
	places := map[string]box{}
	p.place(root, 0, 0, places)
	for _, e := range g.Edges {
		a, b := places[e.From], places[e.To]
		x1, y1 := a.X+a.W, a.Y+nodeHeight/2
		x2, y2 := b.X, b.Y+nodeHeight/2
		bend := max((x2-x1)/2, 24)
		p.Edges = append(p.Edges, line{From: e.From, To: e.To, Implicit: e.Implicit,
			D: fmt.Sprintf("M%d %dC%d %d %d %d %d %d", x1, y1, x1+bend, y1, x2-bend, y2, x2, y2)})
	}
	return p
}

// measure sizes nodes (sorted by wave) into a block.
func measure(nodes []*Node) *block {
	b := &block{}
	for _, n := range nodes {
		s := &sized{n: n, w: max(minNode, textWidth(n.Name)+2*nodePad, textWidth(n.label())+2*nodePad), h: nodeHeight}
		if len(n.Members) > 0 {
			s.inner = measure(n.Members)
			s.w = max(textWidth(n.Name+"  "+n.label())+2*nodePad, s.inner.w+2*nodePad)
			s.h = groupHead + s.inner.h + nodePad
		}
		if len(b.columns) == 0 || b.columns[len(b.columns)-1].wave != n.Wave {
			b.columns = append(b.columns, column{wave: n.Wave})
		}
		c := &b.columns[len(b.columns)-1]
		c.nodes = append(c.nodes, s)
		c.w = max(c.w, s.w)
	}
	for i, c := range b.columns {
		if i > 0 {
			b.w += columnGap
		}
		b.w += c.w
		h := 0
		for j, s := range c.nodes {
			if j > 0 {
				h += rowGap
			}
			h += s.h
		}
		b.h = max(b.h, columnLabel+h)
	}
	return b
}

// place puts block b's nodes at x, y onward, recording each box.
func (p *picture) place(b *block, x, y int, places map[string]box) {
	for _, c := range b.columns {
		p.Labels = append(p.Labels, label{X: x, Y: y + 13, Text: fmt.Sprintf("wave %d", c.wave)})
		top := y + columnLabel
		for _, s := range c.nodes {
			n := s.n
			bx := box{Module: n.Name, Name: n.Name, Sub: n.label(), X: x, Y: top, W: c.w, H: s.h, Title: n.Name + ": " + n.label()}
			if s.inner != nil {
				bx.W = s.w
				bx.Name, bx.Sub = n.Name+"  "+n.label(), ""
				bx.Title += ", delivers " + fmt.Sprint(len(n.Members)) + " modules"
				p.Groups = append(p.Groups, bx)
				p.place(s.inner, x+nodePad, top+groupHead, places)
			} else {
				p.Leaves = append(p.Leaves, bx)
			}
			// An edge meets a group at its heading's height.
			places[n.Name] = box{X: bx.X, Y: bx.Y, W: bx.W, H: nodeHeight}
			top += s.h + rowGap
		}
		x += c.w + columnGap
	}
}
