package emit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/platc/platc/compiler/object"
)

// This file writes YAML for the values render produces (object.Map,
// map[string]any, []any, []string, string, int, int64, float64, bool, nil),
// appending to one byte slice rather than using a general YAML library.
//
// Strings are written plain only where YAML 1.1 decoders (Kubernetes, Argo
// CD: sigs.k8s.io/yaml) and YAML 1.2 decoders both read back the same
// string; otherwise double-quoted, or a literal block when they span lines.

// appendDocument appends the mapping v as a document without "---".
func appendDocument(b []byte, m *object.Map) []byte {
	if m.Len() == 0 {
		return append(b, "{}\n"...)
	}
	return appendMapBody(b, m, 0, false)
}

// appendValue appends v after a "key:" or "-" already written at indent, and
// ends the line.
func appendValue(b []byte, v any, indent int) []byte {
	switch v := v.(type) {
	case *object.Map:
		if v.Len() == 0 {
			return append(b, " {}\n"...)
		}
		b = append(b, '\n')
		return appendMapBody(b, v, indent+2, false)
	case map[string]any:
		if len(v) == 0 {
			return append(b, " {}\n"...)
		}
		b = append(b, '\n')
		return appendPlainMapBody(b, v, indent+2, false)
	case []any:
		if len(v) == 0 {
			return append(b, " []\n"...)
		}
		b = append(b, '\n')
		return appendSeq(b, v, indent+2)
	case []string:
		if len(v) == 0 {
			return append(b, " []\n"...)
		}
		b = append(b, '\n')
		for _, s := range v {
			b = appendIndent(b, indent+2)
			b = append(b, '-')
			b = appendScalar(b, s, indent+2)
		}
		return b
	}
	return appendScalar(b, v, indent)
}

// maxImplicitKey is YAML's implicit key length limit, with a margin.
const maxImplicitKey = 1000

// appendMapBody appends the entries of m at indent. When inline is set, the
// first key continues a line already indented (after "- ").
func appendMapBody(b []byte, m *object.Map, indent int, inline bool) []byte {
	first := true
	m.Each(func(k string, v any) {
		b = appendEntry(b, k, v, indent, first && inline)
		first = false
	})
	return b
}

// appendPlainMapBody is appendMapBody for a map[string]any (Helm values),
// keys sorted for deterministic output.
func appendPlainMapBody(b []byte, m map[string]any, indent int, inline bool) []byte {
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		b = appendEntry(b, k, m[k], indent, i == 0 && inline)
	}
	return b
}

// appendEntry appends "key: value" at indent; inline says the line is
// indented already (the first entry of a map in a sequence, after "- ").
func appendEntry(b []byte, k string, v any, indent int, inline bool) []byte {
	if !inline {
		b = appendIndent(b, indent)
	}
	start := len(b)
	b = appendString(b, k, indent, true)
	if len(b)-start > maxImplicitKey {
		// YAML limits an implicit key to 1024 characters; a longer
		// one needs the explicit "? key" form.
		b = append(b[:start], "? "...)
		b = appendQuoted(b, k)
		b = append(b, '\n')
		b = appendIndent(b, indent)
	}
	b = append(b, ':')
	return appendValue(b, v, indent)
}

func appendSeq(b []byte, items []any, indent int) []byte {
	for _, item := range items {
		b = appendIndent(b, indent)
		b = append(b, '-')
		switch x := item.(type) {
		case *object.Map:
			if x.Len() > 0 {
				b = append(b, ' ')
				b = appendMapBody(b, x, indent+2, true)
				continue
			}
		case map[string]any:
			if len(x) > 0 {
				b = append(b, ' ')
				b = appendPlainMapBody(b, x, indent+2, true)
				continue
			}
		}
		b = appendValue(b, item, indent)
	}
	return b
}

// spaces is indentation, appended in one piece.
const spaces = "                                                                "

func appendIndent(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	return append(b, spaces[:n]...)
}

// appendScalar appends " value\n" for a scalar after "key:" or "-".
func appendScalar(b []byte, v any, indent int) []byte {
	b = append(b, ' ')
	switch v := v.(type) {
	case string:
		b = appendString(b, v, indent, false)
	case int:
		b = strconv.AppendInt(b, int64(v), 10)
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case float64:
		b = append(b, formatFloat(v)...)
	case bool:
		b = strconv.AppendBool(b, v)
	case nil:
		b = append(b, "null"...)
	default:
		panic(fmt.Sprintf("platc: render produced a %T, which emit cannot encode", v))
	}
	return append(b, '\n')
}

// appendString writes s plain where that is safe, as a literal block where
// it spans lines (values only), and double-quoted otherwise.
func appendString(b []byte, s string, indent int, key bool) []byte {
	switch {
	case plainSafe(s):
		return append(b, s...)
	case !key && literalSafe(s):
		return appendLiteral(b, s, indent)
	}
	return appendQuoted(b, s)
}

// appendLiteral writes a multi-line string as a literal block scalar, its
// lines indented two spaces deeper than the key. The chomping indicator
// keeps the trailing newlines exact: "|" one, "|-" none, "|+" several.
func appendLiteral(b []byte, s string, indent int) []byte {
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		b = append(b, "|-"...)
	case trailing == 1:
		b = append(b, '|')
	default:
		b = append(b, "|+"...)
	}
	for line := range strings.SplitSeq(s[:len(s)-min(len(s)-len(body), 1)], "\n") {
		b = append(b, '\n')
		if line != "" {
			b = appendIndent(b, indent+2)
			b = append(b, line...)
		}
	}
	return b
}

// literalSafe reports whether s can be a literal block: it has a line
// break, starts with a visible character (no indentation indicator needed)
// and has no carriage returns or other control characters.
func literalSafe(s string) bool {
	if !strings.Contains(s, "\n") || s[0] == ' ' || s[0] == '\n' || s[0] == '\t' {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\t':
			b = append(b, `\t`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			if unicode.IsPrint(r) {
				b = utf8.AppendRune(b, r)
			} else if r <= 0xffff {
				b = fmt.Appendf(b, `\u%04x`, r)
			} else {
				b = fmt.Appendf(b, `\U%08x`, r)
			}
		}
	}
	return append(b, '"')
}

// versionLike reports whether s is a version such as 1.15.4 or
// 2.21.1-rc.1: digits.digits.digits, optionally '-' or '+' and
// [0-9A-Za-z.+-]*. Every YAML decoder reads these as strings, so they stay
// plain and readable.
func versionLike(s string) bool {
	i := 0
	for part := range 3 {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
		if part < 2 {
			if i == len(s) || s[i] != '.' {
				return false
			}
			i++
		}
	}
	if i == len(s) {
		return true
	}
	if s[i] != '-' && s[i] != '+' {
		return false
	}
	for _, c := range []byte(s[i+1:]) {
		if !isAlnum(c) && c != '.' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// quantityLike reports whether s is a Kubernetes quantity or duration
// such as 30Gi, 500m or 10s: digits, then letters. The first letter may
// not be b, e, o or x, which would make a binary, exponent, octal or hex
// number.
func quantityLike(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i == len(s) || strings.IndexByte("beoxBEOX", s[i]) >= 0 {
		return false
	}
	for _, c := range []byte(s[i:]) {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

// plainSafe reports whether s reads back as the same string when written
// plain, in YAML 1.1 and YAML 1.2, as a key or a value in block context. It
// is conservative: what it refuses is quoted, which is always correct. It
// reads s once: every key and string of a render passes through it.
func plainSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	// Indicators may not start a plain scalar; '-', '?' and ':' may when
	// followed by a non-space, but are quoted here for simplicity.
	if indicator[s[0]] {
		return false
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '+' || c == '.' {
		return versionLike(s) || quantityLike(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c >= 0x7f {
			// Not printable ASCII: decide rune by rune. Neither ": " nor
			// " #" can straddle this byte.
			for _, r := range s[i:] {
				if r < ' ' || r == 0x7f || !unicode.IsPrint(r) || r == 0xfeff {
					return false
				}
			}
			return !strings.Contains(s[i:], ": ") && !strings.Contains(s[i:], " #") && notReserved(s)
		}
		if i+1 < len(s) && (c == ':' && s[i+1] == ' ' || c == ' ' && s[i+1] == '#') {
			return false
		}
	}
	return notReserved(s)
}

// indicator are the bytes that may not start a plain scalar (as plainSafe
// reads them).
var indicator = func() (t [256]bool) {
	for _, c := range []byte("-?:,[]{}#&*!|>'\"%@`") {
		t[c] = true
	}
	return t
}()

// notReserved reports whether s, in any capitalisation, is none of the
// reserved words.
func notReserved(s string) bool {
	if len(s) > maxReserved {
		return true
	}
	var lower [maxReserved]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return !reserved[string(lower[:len(s)])]
}

// maxReserved is the length of the longest reserved word.
const maxReserved = 5

// reserved are the plain scalars some YAML decoder reads as something other
// than a string: booleans of YAML 1.1 and 1.2, null, and the merge and value
// keys of YAML 1.1. Any capitalisation is quoted.
var reserved = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true, "~": true, "<<": true, "=": true,
}

// formatFloat writes f so that it reads back as a float: 2.0, not 2.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case math.IsNaN(f):
		return ".nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	mantissa, exp, hasExp := strings.Cut(s, "e")
	if !strings.Contains(mantissa, ".") {
		// The float of YAML 1.1 has a dot: some decoders (PyYAML)
		// read 1e+21 as a string.
		mantissa += ".0"
	}
	if hasExp {
		return mantissa + "e" + exp
	}
	return mantissa
}
