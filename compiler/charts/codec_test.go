package charts

import (
	"reflect"
	"slices"
	"testing"
)

// TestOutcomeCodec reads back what appendOutcome writes of real renders
// (objects, CRDs, hooks, Helm's errors, schema problems, unknown keys) and
// of outcomes with every kind of value, nil told from empty: each is the
// outcome written, deeply equal. Every truncation and every changed byte
// of an entry is read without a panic (the entry's digest, checked
// before, makes them misses).
func TestOutcomeCodec(t *testing.T) {
	ch := testChart(t, nil)
	outcomes := map[string]*Outcome{
		"objects": Render(ch, Request{Release: "shop", Namespace: "web", KubeVersion: "1.33.0", APIVersions: []string{"monitoring.coreos.com/v1"}}),
		"unknown": Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`{"replicaCount": 3, "servce": {"port": 1}}`)}),
		"schema":  Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`replicaCount: many`)}),
		"error":   Render(testChart(t, map[string]string{"templates/bad.yaml": "{{ .Values.nope.deeper }}\n"}), Request{Release: "shop", Namespace: "web"}),
		"empty":   {},
		"values": {
			Objects: []Manifest{
				{Source: "a.yaml", Hook: true, Object: map[string]any{
					"nil": nil, "t": true, "f": false, "float": 1.5, "big": 1e300, "neg": -0.25, "int": int64(-7),
					"s": "", "u": "ünï\x00code", "list": []any{"a", 1.0, nil, []any{}, map[string]any{}},
					"nilList": []any(nil), "nilMap": map[string]any(nil), "emptyMap": map[string]any{},
				}},
				{Source: "b.yaml", CRD: true, Object: map[string]any{}},
				{Source: "c.yaml"},
			},
			Error:      "e",
			Schema:     []SchemaProblem{{Path: []string{"a"}, Message: "m"}, {Chart: []string{}, Path: nil, Message: ""}},
			SchemaNote: "n",
			Unknown:    []UnknownKey{{Path: []string{"x", "y"}, Suggest: "z"}, {}},
		},
		"emptySlices": {Objects: []Manifest{}, Schema: []SchemaProblem{}, Unknown: []UnknownKey{}},
	}
	if len(outcomes["objects"].Objects) < 5 || len(outcomes["unknown"].Unknown) == 0 || len(outcomes["schema"].Schema) == 0 || outcomes["error"].Error == "" {
		t.Fatal("the renders do not give what the test reads back")
	}
	for name, o := range outcomes {
		data, ok := appendOutcome([]byte("head\n"), o)
		if !ok {
			t.Fatalf("%s: not encoded", name)
		}
		data = data[len("head\n"):]
		got, err := readOutcome(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("%s: read back\n%#v\nwritten\n%#v", name, got, o)
		}
		again, _ := appendOutcome(nil, got)
		if string(again) != string(data) {
			t.Errorf("%s: the same outcome has other bytes", name)
		}
		for i := range data {
			if _, err := readOutcome(data[:i]); err == nil {
				t.Errorf("%s: %d of %d bytes read as an outcome", name, i, len(data))
			}
			changed := append([]byte(nil), data...)
			changed[i] ^= 0xff
			readOutcome(changed) // must not panic
		}
		if _, err := readOutcome(append(data, 0)); err == nil {
			t.Errorf("%s: a byte more read as an outcome", name)
		}
	}
	// A value of another type is not encoded: that outcome is not cached.
	if _, ok := appendOutcome(nil, &Outcome{Objects: []Manifest{{Object: map[string]any{"n": int32(1)}}}}); ok {
		t.Error("an int32 was encoded")
	}
}

// TestRequestDigestCoversEveryField changes each field of a Request (and
// of its value files and parameters) alone, found by reflection: every
// change gives another digest, as do bytes moved from one field to the
// next. A field requestDigest does not write fails here.
func TestRequestDigestCoversEveryField(t *testing.T) {
	base := Request{ValueFiles: []ValuesFile{{}}, Parameters: []Parameter{{}}}
	seen := map[string]string{requestDigest(base): "the base request"}
	add := func(what string, r Request) {
		t.Helper()
		d := requestDigest(r)
		if other, dup := seen[d]; dup {
			t.Errorf("%s has the digest of %s", what, other)
		}
		seen[d] = what
	}
	// set gives the field f of a struct a value other than the base's.
	var set func(what string, f reflect.Value) bool
	set = func(what string, f reflect.Value) bool {
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			switch f.Type().Elem().Kind() {
			case reflect.Uint8:
				f.SetBytes([]byte("x"))
			case reflect.String:
				f.Set(reflect.ValueOf([]string{"x"}))
			default:
				return false // a list of structs: its elements' fields below
			}
		default:
			t.Fatalf("%s: a field of kind %s: teach requestDigest and this test", what, f.Kind())
		}
		return true
	}
	rt := reflect.TypeOf(base)
	for i := range rt.NumField() {
		name := rt.Field(i).Name
		r := base
		r.ValueFiles, r.Parameters = slices.Clone(base.ValueFiles), slices.Clone(base.Parameters)
		f := reflect.ValueOf(&r).Elem().Field(i)
		if set(name, f) {
			add(name, r)
			continue
		}
		// A list of structs: each field of its element, and one element more.
		for j := range f.Type().Elem().NumField() {
			r := base
			r.ValueFiles, r.Parameters = slices.Clone(base.ValueFiles), slices.Clone(base.Parameters)
			list := reflect.ValueOf(&r).Elem().Field(i)
			what := name + "." + list.Type().Elem().Field(j).Name
			set(what, list.Index(0).Field(j))
			add(what, r)
		}
		r = base
		r.ValueFiles, r.Parameters = slices.Clone(base.ValueFiles), slices.Clone(base.Parameters)
		list := reflect.ValueOf(&r).Elem().Field(i)
		list.Set(reflect.Append(list, reflect.Zero(list.Type().Elem())))
		add(name+" with one element more", r)
	}
	// Bytes moved across a boundary.
	add("release ab", Request{Release: "ab"})
	add("release a, namespace b", Request{Release: "a", Namespace: "b"})
	add("API versions ab", Request{APIVersions: []string{"ab"}})
	add("API versions a, b", Request{APIVersions: []string{"a", "b"}})
	add("value file a with data b", Request{ValueFiles: []ValuesFile{{Name: "a", Data: []byte("b")}}})
	add("value file ab", Request{ValueFiles: []ValuesFile{{Name: "ab"}}})
}
