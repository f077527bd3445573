package load

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue/literal"

	"github.com/platc/platc/compiler/diag"
)

// Literal is a string literal as it is written in a spec file: where it
// starts, and its text with its quotes and escapes, so that a problem
// inside the string (a misspelled field of a ${...} expression) is placed
// at its own line and column.
type Literal struct {
	Pos diag.Pos // of its first character, the opening quote or #
	Raw string
}

// Value is the string the literal writes.
func (l Literal) Value() (string, bool) {
	s, err := literal.Unquote(l.Raw)
	return s, err == nil
}

// PosAt returns the position of the byte at offset in the string the
// literal writes: the escapes before it count as they are written, and a
// multi-line string's lines lose their indentation as CUE reads them (the
// rules of cuelang.org/go/cue/literal's Unquote, v0.17.1). An offset inside
// an escape gives the escape's position; one the literal does not reach,
// the literal's.
func (l Literal) PosAt(offset int) diag.Pos {
	raw := l.Raw
	q, i, _, err := literal.ParseQuotes(raw, raw)
	if err != nil || offset < 0 {
		return l.Pos
	}
	esc := `\` + strings.Repeat("#", len(raw)-len(strings.TrimLeft(raw, "#")))
	skipIndent := func(j int) int {
		if ws := q.Whitespace(); q.IsMulti() && strings.HasPrefix(raw[j:], ws) {
			return j + len(ws)
		}
		return j
	}
	for d := 0; d < offset; {
		if i >= len(raw) {
			return l.Pos
		}
		switch {
		case raw[i] == '\r':
			i++
		case raw[i] == '\n':
			i = skipIndent(i + 1)
			d++
		case strings.HasPrefix(raw[i:], esc) && i+len(esc) < len(raw):
			j, width := escape(raw, i+len(esc))
			if raw[i+len(esc)] == '\n' {
				j = skipIndent(j)
			}
			if d+width > offset {
				return l.at(i)
			}
			i, d = j, d+width
		default:
			_, size := utf8.DecodeRuneInString(raw[i:])
			i, d = i+size, d+size
		}
	}
	return l.at(i)
}

// escape reads the escape whose letter is at raw[j] (after the backslash
// and the literal's #s): it returns the index after it and the number of
// bytes it writes.
func escape(raw string, j int) (next, width int) {
	hexRune := func(at, n int) (rune, bool) {
		if at+n > len(raw) {
			return 0, false
		}
		v, err := strconv.ParseUint(raw[at:at+n], 16, 32)
		return rune(v), err == nil
	}
	switch c := raw[j]; {
	case c == 'u' || c == 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		r, ok := hexRune(j+1, n)
		if !ok {
			return j + 1, 1
		}
		next = j + 1 + n
		// A surrogate pair, \uD83D\uDE00, is one character.
		if 0xD800 <= r && r < 0xDC00 && strings.HasPrefix(raw[next:], `\u`) {
			if lo, ok := hexRune(next+2, 4); ok && 0xDC00 <= lo && lo < 0xE000 {
				return next + 6, 4
			}
		}
		if w := utf8.RuneLen(r); w > 0 {
			return next, w
		}
		return next, 3 // written as the replacement character
	case c == 'x' || '0' <= c && c <= '7':
		return min(j+3, len(raw)), 1
	case c == '\n':
		return j + 1, 0 // an escaped newline writes nothing
	case c == '\r' && j+1 < len(raw) && raw[j+1] == '\n':
		return j + 2, 0
	}
	return j + 1, 1
}

// at is the position of raw[i].
func (l Literal) at(i int) diag.Pos {
	p := l.Pos
	if nl := strings.LastIndexByte(l.Raw[:i], '\n'); nl >= 0 {
		p.Line += strings.Count(l.Raw[:i], "\n")
		p.Col = i - nl
	} else {
		p.Col += i
	}
	return p
}
