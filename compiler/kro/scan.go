package kro

import (
	"errors"
	"strings"
)

// Segment is a piece of a string value: literal text, or a ${...} expression.
// For an expression, Text is the CEL source between "${" and the matching "}".
type Segment struct {
	Text string
	Expr bool
}

// ErrNestedExpression is returned by Scan for a "${" inside an expression but
// outside a CEL string literal; kro v0.9 says "nested expressions are not
// allowed unless inside string literals".
var ErrNestedExpression = errors.New("nested expressions are not allowed unless inside string literals")

// Scan splits s into segments exactly as kro v0.9 extracts ${...} expressions:
// braces are counted so that map literals such as ${{"a": 1}} work, a double
// quote toggles a string literal in which a backslash escapes the next byte,
// a "${" inside an expression is allowed only inside a string literal (or
// right after a double quote), and a "${" that is never closed is literal
// text. Adjacent literal text is merged; the result always has at least one
// segment, and a string without "${" is one literal segment equal to s.
func Scan(s string) ([]Segment, error) {
	var segs []Segment
	lit := func(t string) {
		if t == "" {
			return
		}
		if n := len(segs); n > 0 && !segs[n-1].Expr {
			segs[n-1].Text += t
			return
		}
		segs = append(segs, Segment{Text: t})
	}
	pos := 0   // start of the text not yet emitted
	start := 0 // where to look for the next "${"
	for start < len(s) {
		i := strings.Index(s[start:], "${")
		if i < 0 {
			break
		}
		i += start
		end, ok, err := matchExpr(s, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			// Unterminated: kro v0.9 keeps it as literal text.
			start = i + 1
			continue
		}
		lit(s[pos:i])
		segs = append(segs, Segment{Text: s[i+2 : end], Expr: true})
		pos = end + 1
		start = pos
	}
	lit(s[pos:])
	if len(segs) == 0 {
		segs = []Segment{{Text: ""}}
	}
	return segs, nil
}

// matchExpr finds the "}" that closes the expression opened by the "${" at
// s[i]. It reports false when the expression is never closed.
func matchExpr(s string, i int) (end int, ok bool, err error) {
	depth := 1
	inString, escape := false, false
	for j := i + 2; j < len(s); j++ {
		c := s[j]
		switch {
		case escape:
			escape = false
		case inString && c == '\\':
			escape = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return j, true, nil
			}
		case c == '$' && j+1 < len(s) && s[j+1] == '{' && s[j-1] != '"':
			return 0, false, ErrNestedExpression
		}
	}
	return 0, false, nil
}

// IsStandalone reports whether segs is exactly one expression with no text
// around it, as kro requires for includeWhen, readyWhen and typed fields.
func IsStandalone(segs []Segment) bool {
	return len(segs) == 1 && segs[0].Expr
}
