package layers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/diag"
)

// Limits on a client's values file, far above any real one, so a hostile
// file (a billion laughs, deep nesting) costs only a moment.
const (
	MaxFileSize = 1 << 20
	MaxNodes    = 100_000 // after aliases are expanded
	MaxDepth    = 64
)

// Node is a value of a values file, with its position: a mapping (Keys and
// Values in file order), a list (Items) or a scalar (Scalar, decoded as
// YAML 1.2 does: string, int64, float64, bool or nil).
type Node struct {
	Pos    diag.Pos
	Kind   NodeKind
	Keys   []Key
	Values []*Node
	Items  []*Node
	Scalar any
}

// Key is a mapping key and its position.
type Key struct {
	Name string
	Pos  diag.Pos
}

// NodeKind is the kind of a Node.
type NodeKind int

// The kinds of Node.
const (
	Map NodeKind = iota
	List
	Scalar
)

// Plain returns the node as plain data (map[string]any, []any, scalars).
func (n *Node) Plain() any {
	switch n.Kind {
	case Map:
		m := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			m[k.Name] = n.Values[i].Plain()
		}
		return m
	case List:
		l := make([]any, len(n.Items))
		for i, x := range n.Items {
			l[i] = x.Plain()
		}
		return l
	}
	return n.Scalar
}

// FileError is a problem with a values file, at a position in it.
type FileError struct {
	Pos diag.Pos
	Msg string
}

func (e *FileError) Error() string { return e.Pos.String() + ": " + e.Msg }

// ReadFile parses a client's values file strictly: one YAML document
// whose top is a mapping (empty file: empty mapping), string keys, bounded
// size, nesting and alias expansion. Aliases and merge keys (<<) are
// expanded, as Helm does. A duplicate key takes its last value, as
// sigs.k8s.io/yaml does, and is returned in dups for a warning.
func ReadFile(name string, data []byte) (n *Node, dups []FileError, err error) {
	if len(data) > MaxFileSize {
		return nil, nil, &FileError{diag.Pos{File: name}, fmt.Sprintf("file is %d bytes, more than the %d a values file may have: a values file holds a chart's overrides, not data", len(data), MaxFileSize)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Node{Pos: diag.Pos{File: name, Line: 1, Col: 1}, Kind: Map}, nil, nil
		}
		return nil, nil, yamlError(name, data, err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, nil, &FileError{diag.Pos{File: name, Line: second.Line, Col: second.Column}, "a second YAML document: Helm reads the first one only, so keep one"}
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, yamlError(name, data, err)
	}
	for _, d := range diag.DuplicateKeys(&doc, true) {
		dups = append(dups, FileError{diag.Pos{File: name, Line: d.Line, Col: d.Col}, diag.DuplicateMsg(d, "Helm")})
	}
	r := &reader{name: name}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return &Node{Pos: r.pos(top), Kind: Map}, dups, nil
	}
	if top.Kind != yaml.MappingNode && !(top.Kind == yaml.AliasNode && top.Alias != nil && top.Alias.Kind == yaml.MappingNode) {
		return nil, dups, &FileError{r.pos(top), "the file is not a mapping of values: write key: value lines at the top"}
	}
	n, err = r.node(top, 0) // nil where err is not
	return n, dups, err
}

type reader struct {
	name  string
	nodes int
	alias diag.Pos // the outermost alias being expanded, where a bomb is set off
}

func (r *reader) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: r.name, Line: n.Line, Col: n.Column}
}

func (r *reader) node(n *yaml.Node, depth int) (*Node, error) {
	r.nodes++
	if r.nodes > MaxNodes {
		at := r.alias
		if !at.IsValid() {
			at = r.pos(n)
		}
		return nil, &FileError{at, fmt.Sprintf("more than %d values once aliases are expanded: a billion-laughs file? write the values out", MaxNodes)}
	}
	if depth > MaxDepth {
		return nil, &FileError{r.pos(n), fmt.Sprintf("values nested more than %d deep", MaxDepth)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &FileError{r.pos(n), "alias to an unknown anchor"}
		}
		if !r.alias.IsValid() {
			r.alias = r.pos(n)
			defer func() { r.alias = diag.Pos{} }()
		}
		x, err := r.node(n.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		x.Pos = r.pos(n)
		return x, nil
	case yaml.MappingNode:
		out := &Node{Pos: r.pos(n), Kind: Map}
		seen := map[string]diag.Pos{}
		var merged []*Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, &FileError{r.pos(k), "a key that is not a string: Helm values are keyed by names"}
			}
			if k.Tag == "!!merge" {
				m, err := r.merge(v, depth)
				if err != nil {
					return nil, err
				}
				merged = append(merged, m...)
				continue
			}
			if first, dup := seen[k.Value]; dup {
				return nil, &FileError{r.pos(k), fmt.Sprintf("key %q is already set at line %d: keep one", k.Value, first.Line)}
			}
			seen[k.Value] = r.pos(k)
			x, err := r.node(v, depth+1)
			if err != nil {
				return nil, err
			}
			out.Keys = append(out.Keys, Key{Name: k.Value, Pos: r.pos(k)})
			out.Values = append(out.Values, x)
		}
		// Merged mappings add the keys the mapping does not set itself.
		for _, m := range merged {
			for i, k := range m.Keys {
				if _, ok := seen[k.Name]; !ok {
					seen[k.Name] = k.Pos
					out.Keys = append(out.Keys, k)
					out.Values = append(out.Values, m.Values[i])
				}
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := &Node{Pos: r.pos(n), Kind: List}
		for _, item := range n.Content {
			x, err := r.node(item, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, x)
		}
		return out, nil
	case yaml.ScalarNode:
		return &Node{Pos: r.pos(n), Kind: Scalar, Scalar: scalar(n)}, nil
	}
	return nil, &FileError{r.pos(n), "unexpected YAML node"}
}

// merge reads the value of a merge key: a mapping, or a list of them.
func (r *reader) merge(v *yaml.Node, depth int) ([]*Node, error) {
	x, err := r.node(v, depth+1)
	if err != nil {
		return nil, err
	}
	switch x.Kind {
	case Map:
		return []*Node{x}, nil
	case List:
		for _, item := range x.Items {
			if item.Kind != Map {
				return nil, &FileError{item.Pos, "a merge key (<<) takes mappings"}
			}
		}
		return x.Items, nil
	}
	return nil, &FileError{x.Pos, "a merge key (<<) takes a mapping or a list of mappings"}
}

func scalar(n *yaml.Node) any {
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		b, _ := strconv.ParseBool(n.Value)
		return b
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			return f
		}
	}
	return n.Value
}

// yamlError turns a YAML syntax error into a FileError with its line.
func yamlError(name string, data []byte, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 && !strings.Contains(te.Errors[0], "already defined at line") {
		return &FileError{diag.Pos{File: name}, te.Errors[0]}
	}
	line, col, msg := diag.YAMLSyntax(err, data)
	return &FileError{diag.Pos{File: name, Line: line, Col: col}, msg}
}
