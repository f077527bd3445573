package verify

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/platc/platc/compiler/object"
)

// marshalValues is json.Marshal(object.Plain(v)), byte for byte, for Helm
// values, without copying Maps or reflection. Anything else (a NaN, an
// unknown kind) is left to json.Marshal. TestMarshalValuesIsJSONMarshal
// compares the two.
func marshalValues(v any) ([]byte, error) {
	if b, ok := appendValuesJSON(nil, v); ok {
		return b, nil
	}
	return json.Marshal(object.Plain(v))
}

// appendValuesJSON appends the JSON of v to b as encoding/json writes it
// (Go 1.26: map keys sorted, HTML characters escaped); ok is false for a
// value it does not write.
func appendValuesJSON(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case float64:
		return appendJSONFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		var small smallFields
		fields := small.make(len(v))
		for k, x := range v {
			fields = append(fields, field{k, x})
		}
		return appendJSONObject(b, fields)
	case *object.Map:
		if v == nil {
			return b, false
		}
		// As Plain makes it: a map, whose keys encoding/json sorts.
		var small smallFields
		fields := small.make(v.Len())
		v.Each(func(k string, x any) { fields = append(fields, field{k, x}) })
		return appendJSONObject(b, fields)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendValuesJSON(b, x); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case []string:
		// Plain makes a list of any of it, even when it is nil.
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']'), true
	}
	return b, false
}

// A field is a key of a map or Map and its value.
type field struct {
	key string
	val any
}

// smallFields keeps the fields of small maps on the stack.
type smallFields [8]field

// make returns an empty slice with room for n fields, of s if they fit.
func (s *smallFields) make(n int) []field {
	if n > len(s) {
		return make([]field, 0, n)
	}
	return s[:0]
}

// appendJSONObject appends the JSON object of fields, sorted by key as
// encoding/json sorts a map's.
func appendJSONObject(b []byte, fields []field) (_ []byte, ok bool) {
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.key, b.key) })
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, f.key), ':')
		if b, ok = appendValuesJSON(b, f.val); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONFloat is encoding/json's floatEncoder for a float64
// (encoding/json/encode.go of Go 1.26), formatting as ES6 does.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendJSONString is encoding/json's appendString with HTML escaping
// (encoding/json/encode.go of Go 1.26).
func appendJSONString(dst []byte, src string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029, escaped as encoding/json does.
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}
