package validate

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// problems turns the library's error tree into a flat, sorted list of
// problems. A nil error means no problems.
func problems(err error) ([]Problem, error) {
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Problem
	collect(ve, &out)
	slices.SortFunc(out, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(out), nil
}

// collect appends the problems of e and its causes. Container errors
// (the schema, allOf, $ref, a group of errors at one node) stand for their
// causes; every other kind becomes one problem per offending field.
func collect(e *jsonschema.ValidationError, out *[]Problem) {
	ptr := pointer(e.InstanceLocation)
	add := func(ptr, format string, args ...any) {
		*out = append(*out, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		if len(e.Causes) == 0 {
			add(ptr, "does not match the schema")
		}
		for _, c := range e.Causes {
			collect(c, out)
		}
	case *kind.AdditionalProperties:
		// The library reports these at the object; point at each field.
		for _, p := range k.Properties {
			*out = append(*out, Problem{Pointer: ptr + "/" + escape(p), Message: fmt.Sprintf("unknown field %q", p), Unknown: true})
		}
	case *kind.Required:
		// The field is absent: point at the object that should hold it.
		for _, p := range k.Missing {
			add(ptr, "missing required field %q", p)
		}
	case *kind.Type:
		add(ptr, "got %s, want %s", k.Got, wantTypes(k.Want))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		if len(want) == 1 {
			add(ptr, "got %s, want %s", display(k.Got), want[0])
		} else {
			add(ptr, "got %s, want one of %s", display(k.Got), strings.Join(want, ", "))
		}
	case *kind.Const:
		add(ptr, "got %s, want %s", display(k.Got), display(k.Want))
	case *kind.Pattern:
		add(ptr, "%q does not match pattern %q", k.Got, k.Want)
	case *kind.MinLength:
		add(ptr, "got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		add(ptr, "got %d characters, want at most %d", k.Got, k.Want)
	case *kind.MinItems:
		add(ptr, "got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		add(ptr, "got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinProperties:
		add(ptr, "got %d fields, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		add(ptr, "got %d fields, want at most %d", k.Got, k.Want)
	case *kind.Minimum:
		add(ptr, "got %s, want at least %s", rat(k.Got), rat(k.Want))
	case *kind.Maximum:
		add(ptr, "got %s, want at most %s", rat(k.Got), rat(k.Want))
	case *kind.ExclusiveMinimum:
		add(ptr, "got %s, want more than %s", rat(k.Got), rat(k.Want))
	case *kind.ExclusiveMaximum:
		add(ptr, "got %s, want less than %s", rat(k.Got), rat(k.Want))
	case *kind.MultipleOf:
		add(ptr, "got %s, want a multiple of %s", rat(k.Got), rat(k.Want))
	case *kind.UniqueItems:
		add(ptr, "items %d and %d are equal, want unique items", k.Duplicates[0], k.Duplicates[1])
	case *kind.AnyOf:
		add(ptr, "matches none of the allowed schemas (anyOf)")
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			add(ptr, "matches none of the allowed schemas (oneOf)")
		} else {
			add(ptr, "matches schemas %d and %d, want exactly one (oneOf)", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.Not:
		add(ptr, "matches a schema it must not match (not)")
	case *kind.FalseSchema:
		add(ptr, "not allowed")
	case *kind.InvalidJsonValue:
		add(ptr, "got Go value of type %T, want a JSON value", k.Value)
	default:
		add(ptr, "%s", sentence(e.ErrorKind.LocalizedString(printer)))
	}
}

var printer = message.NewPrinter(language.English)

// sentence makes a library message fit Problem.Message: lower-case first
// letter, no trailing period.
func sentence(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ".")
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// pointer builds a JSON pointer (RFC 6901) from instance location tokens.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escape(t))
	}
	return sb.String()
}

func escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// wantTypes joins JSON types with "or", null last: "boolean or null".
func wantTypes(types []string) string {
	ts := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(ts) < len(types) {
		ts = append(ts, "null")
	}
	return strings.Join(ts, " or ")
}

// display shows a value in a message: JSON for scalars, its JSON type for
// arrays and objects.
func display(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}
