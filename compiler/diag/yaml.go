package diag

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAMLSyntax explains a go.yaml.in/yaml syntax error of data in plain
// words: where the cause is, what it is (a tab, an unclosed quote, a
// duplicate key, a ':' in a value, bad indentation) and what to do, then
// the parser's words. The parser names only a line, often the one after
// the cause; the column is found in the text.
func YAMLSyntax(err error, data []byte) (line, col int, msg string) {
	line, parser := YAMLError(err)
	if rest, ok := strings.CutPrefix(parser, "unmarshal errors:\n"); ok {
		// A decoding error (a key set twice): its first line.
		first, _, _ := strings.Cut(strings.TrimSpace(rest), "\n")
		line, parser = YAMLError(errorText("yaml: " + first))
	}
	lines := strings.Split(string(data), "\n")
	text := func(n int) string {
		if n < 1 || n > len(lines) {
			return ""
		}
		return strings.TrimRight(lines[n-1], "\r")
	}
	indentEnd := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) + 1 }
	col = indentEnd(text(line)) // 1 where no line is named
	cause := ""
	switch {
	case strings.Contains(parser, "cannot start any token") || strings.Contains(parser, "found a tab character"):
		// A tab: on the line named, or the line after or before.
		for _, n := range []int{line, line + 1, line - 1} {
			if i := strings.IndexByte(text(n), '\t'); i >= 0 {
				line, col = n, i+1
				cause = "a tab character: YAML indents with spaces only; replace the tab with spaces"
				break
			}
		}
		if cause == "" {
			cause = "a character that cannot start a value (such as @ or `): quote the value"
		}
	case strings.Contains(parser, "already defined at line"):
		key, first := "", ""
		if m := duplicateKey.FindStringSubmatch(parser); m != nil {
			key, first = m[1], m[2]
		}
		cause = "key " + strconv.Quote(key) + " is set twice (first at line " + first + "): remove one of them"
	case strings.Contains(parser, "mapping values are not allowed"):
		// The second ': ' of a line, on the line named or, where the
		// parser names none, the first line that has one.
		candidates := []int{line}
		if line == 0 {
			for n := range lines {
				candidates = append(candidates, n+1)
			}
		}
		inValue := false
		for _, n := range candidates {
			s := text(n)
			if i := strings.Index(s, ": "); i >= 0 {
				if j := strings.Index(s[i+2:], ": "); j >= 0 {
					line, col, inValue = n, i+2+j+1, true
					break
				}
			}
		}
		cause = "a ': ' inside a value: quote the value"
		if !inValue && line > 1 {
			cause = "this key is indented under the value of line " + strconv.Itoa(line-1) + ": align it with the keys above it, or quote that value"
		}
	case strings.Contains(parser, "end of stream") && strings.Contains(parser, "quoted scalar"),
		strings.Contains(parser, "found unexpected end of stream"):
		// The parser reports the end; the quote opened before it.
		for n := line; n >= 1; n-- {
			s := text(n)
			if strings.Count(s, `"`)%2 == 1 {
				line, col = n, strings.LastIndex(s, `"`)+1
				break
			}
			if strings.Count(s, `'`)%2 == 1 {
				line, col = n, strings.LastIndex(s, `'`)+1
				break
			}
		}
		cause = "a quote that is never closed: close it on the same line"
	case strings.Contains(parser, "did not find expected key"), strings.Contains(parser, "did not find expected '-' indicator"):
		// The parser names the mapping; the cause is the first line
		// after it indented as no line before it.
		seen := map[int]bool{}
		for n := 1; n <= len(lines); n++ {
			s := text(n)
			if strings.TrimSpace(s) == "" || strings.HasPrefix(strings.TrimSpace(s), "#") {
				continue
			}
			in := indentEnd(s)
			if n > line && line > 0 && !seen[in] {
				line, col = n, in
				break
			}
			seen[in] = true
		}
		cause = "this line is not indented as the keys (or list entries) around it: align it with its siblings"
	case strings.Contains(parser, "could not find expected ':'"):
		// Reported at the line after the key that lacks its colon.
		if line > 1 && !strings.Contains(text(line-1), ":") {
			line--
			col = indentEnd(text(line))
		}
		cause = "a key without ':': write it as key: value"
	case strings.Contains(parser, "did not find expected ',' or ']'"), strings.Contains(parser, "did not find expected ',' or '}'"):
		if i := strings.LastIndexAny(text(line), "[{"); i >= 0 {
			col = i + 1
		}
		cause = "a [list] or {map} written on one line that is not closed: close it, or separate its items with ','"
	case strings.Contains(parser, "did not find expected node content"):
		// An unclosed [ or { of the line named, or of the last line
		// before it that opens one.
		cause = "a value is missing where one goes: write it, or quote the text"
		for n := max(line, 1); n >= 1; n-- {
			s := text(n)
			if strings.Count(s, "[")+strings.Count(s, "{") > strings.Count(s, "]")+strings.Count(s, "}") {
				line, col = n, strings.LastIndexAny(s, "[{")+1
				cause = "a [list] or {map} written on one line that is not closed: close it, or separate its items with ','"
				break
			}
		}
	case strings.Contains(parser, "block sequence entries are not allowed"):
		cause = "a list entry ('- ') where a value goes: put the list on the lines after its key, indented"
	case strings.Contains(parser, "unknown anchor"):
		cause = "an alias (*name) whose anchor (&name) is not defined before it: define the anchor first, or write the value out"
	default:
		cause = "the YAML cannot be read: fix the syntax"
	}
	return line, col, cause + " (YAML: " + parser + ")"
}

var duplicateKey = regexp.MustCompile(`mapping key "((?:[^"\\]|\\.)*)" already defined at line (\d+)`)

// errorText is an error of a given text.
type errorText string

func (e errorText) Error() string { return string(e) }

// YAMLFileError explains err as YAMLSyntax does, and reports whether it is
// a syntax error (duplicate keys included); type decoding errors are left
// to the caller.
func YAMLFileError(err error, data []byte) (line, col int, msg string, ok bool) {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 && !strings.Contains(te.Errors[0], "already defined at line") {
		return 0, 0, "", false
	}
	line, col, msg = YAMLSyntax(err, data)
	return line, col, msg, true
}

// YAMLCheck explains the first syntax error of data's documents as
// YAMLSyntax does; ok is false if none. It explains another parser's
// errors (Helm's, sigs.k8s.io/yaml) in YAMLSyntax's words.
func YAMLCheck(data []byte) (line, col int, msg string, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		// Into a node: a key set twice is no syntax error, and Helm's
		// and sigs.k8s.io/yaml's readers take it (DuplicateKeys).
		var v yaml.Node
		err := dec.Decode(&v)
		if err == io.EOF {
			return 0, 0, "", false
		}
		if err != nil {
			return YAMLFileError(err, data)
		}
	}
}

// SyntaxError is a YAML syntax error explained by YAMLSyntax. Pos.File is
// empty where unknown; the caller places it (At).
type SyntaxError struct {
	Pos Pos
	Msg string
}

// Error is file:line:col: msg, or line:col: msg without a file.
func (e *SyntaxError) Error() string {
	if e.Pos.File == "" {
		return strconv.Itoa(e.Pos.Line) + ":" + strconv.Itoa(e.Pos.Col) + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// At is the error placed in file, when it is a SyntaxError without one.
func (e *SyntaxError) At(file string) *SyntaxError {
	c := *e
	if c.Pos.File == "" {
		c.Pos.File = file
	}
	return &c
}

// NewSyntaxError is the SyntaxError of err reading data of file, or nil if
// it is no syntax error (YAMLFileError).
func NewSyntaxError(file string, data []byte, err error) *SyntaxError {
	line, col, msg, ok := YAMLFileError(err, data)
	if !ok {
		return nil
	}
	return &SyntaxError{Pos{File: file, Line: line, Col: col}, msg}
}

// DupKey is a key set twice in one mapping of a YAML document.
type DupKey struct {
	// Key is the key's path from the top of the document: image.tag,
	// spec.ports[0].name (JoinPath's spelling).
	Key string
	// Line and Col are the later key's; First is the line of the first.
	Line, Col, First int
}

// DuplicateKeys returns the keys set twice in n's mappings, in file order,
// as go.yaml.in/yaml refuses them; merge keys (<<) are left out. With drop,
// the earlier pair is removed, so n reads as sigs.k8s.io/yaml reads it
// (Helm, Argo CD, kustomize): the last value wins. An alias is followed
// once, where its anchor is.
func DuplicateKeys(n *yaml.Node, drop bool) []DupKey {
	var out []DupKey
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		case yaml.MappingNode:
			type at struct {
				kind yaml.Kind
				text string
			}
			first := map[at]int{} // the index of the key's pair that is kept
			var gone []int
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Tag == "!!merge" {
					continue
				}
				key := at{k.Kind, k.Value}
				if j, dup := first[key]; dup {
					out = append(out, DupKey{Key: JoinPath(path, k.Value), Line: k.Line, Col: k.Column, First: n.Content[j].Line})
					gone = append(gone, j)
				}
				first[key] = i
			}
			if drop && len(gone) > 0 {
				content := make([]*yaml.Node, 0, len(n.Content)-2*len(gone))
				for i := 0; i+1 < len(n.Content); i += 2 {
					if !slices.Contains(gone, i) {
						content = append(content, n.Content[i], n.Content[i+1])
					}
				}
				n.Content = content
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], JoinPath(path, n.Content[i].Value))
			}
		case yaml.AliasNode:
			walk(n.Alias, path)
		}
	}
	walk(n, "")
	slices.SortStableFunc(out, func(a, b DupKey) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return out
}

// DuplicateMsg is the message of d, a key that reader (Helm, Argo CD,
// kustomize) reads as its last value.
func DuplicateMsg(d DupKey, reader string) string {
	return fmt.Sprintf("key %s is set twice (first at line %d): %s takes this value and ignores the first; remove one of them", d.Key, d.First, reader)
}
