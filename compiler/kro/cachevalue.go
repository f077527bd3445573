package kro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// instanceEntry is what the cache keeps of an instance spec Instance has
// validated: the spec with its defaults, and the problems.
type instanceEntry struct {
	Spec     map[string]any
	Problems []Problem
}

// encodeInstanceEntry writes e as JSON in which a number keeps its Go
// type: the defaulted spec holds int64s and float64s (as the API server
// decodes JSON, and as the CRD's defaults are), and CEL reads 1 and 1.0 as
// values of different types. A float64 is written with a point or an
// exponent, an int64 without.
func encodeInstanceEntry(e instanceEntry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"Spec":`)
	if err := writeTyped(&b, e.Spec); err != nil {
		return nil, err
	}
	probs, err := json.Marshal(e.Problems)
	if err != nil {
		return nil, err
	}
	b.WriteString(`,"Problems":`)
	b.Write(probs)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeInstanceEntry reads what encodeInstanceEntry wrote.
func decodeInstanceEntry(data []byte) (instanceEntry, error) {
	var raw struct {
		Spec     json.RawMessage
		Problems []Problem
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return instanceEntry{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Spec))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return instanceEntry{}, err
	}
	typed, err := readTyped(v)
	if err != nil {
		return instanceEntry{}, err
	}
	spec, _ := typed.(map[string]any)
	return instanceEntry{Spec: spec, Problems: raw.Problems}, nil
}

// writeTyped writes v (plain data of maps, lists, strings, bools, nil,
// int64 and float64) as JSON, a float64 always with a point or exponent.
func writeTyped(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		s, _ := json.Marshal(v)
		b.Write(s)
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%v has no JSON", v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeTyped(b, x); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k)
			b.Write(key)
			b.WriteByte(':')
			if err := writeTyped(b, v[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("a value of type %T", v)
	}
	return nil
}

// readTyped turns the json.Numbers of decoded JSON into int64 (no point
// or exponent) and float64.
func readTyped(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return v.Float64()
		}
		return v.Int64()
	case []any:
		for i, x := range v {
			t, err := readTyped(x)
			if err != nil {
				return nil, err
			}
			v[i] = t
		}
	case map[string]any:
		for k, x := range v {
			t, err := readTyped(x)
			if err != nil {
				return nil, err
			}
			v[k] = t
		}
	}
	return v, nil
}
