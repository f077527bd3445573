package verify

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/platc/platc/compiler/object"
)

// jsonCases are values of every kind marshalValues writes, and some it
// leaves to json.Marshal.
var jsonCases = []any{
	nil, "", "plain", `q"uote\back`, "<a href=x>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"héllo ✓ 😀", "\u2028\u2029", "bad \xff\xfe utf-8 \xe2\x82", true, false,
	0.0, math.Copysign(0, -1), 1.0, -2.5, 1e-6, 9.99e-7, 1e20, 1e21, 123456789012345678.0, 1.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64,
	0, -7, int64(math.MaxInt64), int64(math.MinInt64),
	map[string]any(nil), map[string]any{}, []any(nil), []any{}, []string(nil), []string{"a", "<b>"},
	map[string]any{"b": 1.0, "a": []any{"x", 2.0, nil, map[string]any{"z": true, "<": "&"}}, "": "empty", "é": 1, "A": "upper"},
	object.NewMap().Set("z", 1.0).Set("a", object.NewMap().Set("k", []string{"v"})).Set("m", map[string]any{"n": nil}),
	// Left to json.Marshal: the same bytes, or the same failure.
	math.NaN(), math.Inf(1), float32(1.1), uint8(3), map[string]string{"k": "v"}, []any{1.0, math.Inf(-1)},
	map[string]any{"deep": map[string]any{"x": struct{ A int }{1}}},
}

// TestMarshalValuesIsJSONMarshal: marshalValues writes what json.Marshal
// writes of the plain values, byte for byte, and fails where it fails:
// the bytes are the valuesObject Helm reads and part of the key of a
// chart's cached render.
func TestMarshalValuesIsJSONMarshal(t *testing.T) {
	for _, v := range jsonCases {
		compareMarshal(t, v)
	}
}

func compareMarshal(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(object.Plain(v))
	got, err := marshalValues(v)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Errorf("marshalValues(%#v) = %s, %v; json.Marshal writes %s, %v", v, got, err, want, wantErr)
	}
}

// FuzzMarshalValues compares the two on strings and numbers of any kind.
func FuzzMarshalValues(f *testing.F) {
	for _, s := range []string{"", "a<b>&c", "\x00\xff\u2028", "😀\n"} {
		f.Add(s, 1.5, int64(-3))
	}
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		compareMarshal(t, s)
		compareMarshal(t, x)
		compareMarshal(t, n)
		compareMarshal(t, map[string]any{s: []any{s, x, n}, "k": object.NewMap().Set(s, x)})
	})
}

// BenchmarkMarshalValues marshals a valuesObject of a chart's common size,
// in both forms a spec's values come in (maps, and Maps as the loader
// makes them).
func BenchmarkMarshalValues(b *testing.B) {
	plain := map[string]any{}
	for i := range 8 {
		section := map[string]any{}
		for j := range 12 {
			section["key"+strconv.Itoa(j)] = []any{"value <" + strconv.Itoa(j) + ">", float64(j) * 1.5, j%2 == 0, nil}
		}
		section["nested"] = map[string]any{"image": map[string]any{"repository": "ghcr.io/example/app", "tag": "v1.2.3"}, "replicas": 3}
		plain["section"+strconv.Itoa(i)] = section
	}
	for name, v := range map[string]any{"map": plain, "Map": toMap(plain)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := marshalValues(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// toMap is v with every map[string]any made an *object.Map, keys in a
// fixed order other than sorted.
func toMap(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := object.NewMap()
		for _, k := range slices.Backward(slices.Sorted(maps.Keys(v))) {
			m.Set(k, toMap(v[k]))
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toMap(x)
		}
		return out
	}
	return v
}
