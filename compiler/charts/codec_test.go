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
// of an entry is read without a panic (the Cache's digest of its entries,
// checked before, makes them misses).
func TestOutcomeCodec(t *testing.T) {
	ch := testChart(t, nil)
	outcomes := map[string]*Outcome{
		"objects": Render(ch, Request{Release: "shop", Namespace: "web", KubeVersion: "1.33.0", APIVersions: []string{"monitoring.coreos.com/v1"}}),
		"unknown": Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`{"replicaCount": 3, "servce": {"port": 1}}`)}),
		"schema":  Render(ch, Request{Release: "shop", Namespace: "web", ValuesObject: []byte(`replicaCount: many`)}),
		"error":   Render(testChart(t, map[string]string{"templates/bad.yaml": "{{ .Values.nope.deeper }}\n"}), Request{Release: "shop", Namespace: "web"}),
		"empty":   {},
		"values": withFields(NewOutcome(
			Manifest{Source: "a.yaml", Hook: true, Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "n", "namespace": "ns", "generateName": "g"},
				"nil": nil, "t": true, "f": false, "float": 1.5, "big": 1e300, "neg": -0.25, "int": int64(-7),
				"s": "", "u": "ünï\x00code", "list": []any{"a", 1.0, nil, []any{}, map[string]any{}},
				"nilList": []any(nil), "nilMap": map[string]any(nil), "emptyMap": map[string]any{},
			}},
			Manifest{Source: "b.yaml", CRD: true, Object: map[string]any{"kind": 1.0, "metadata": "no map"}},
			Manifest{Source: "c.yaml"},
		)),
		"emptySlices": {heads: []Head{}, objects: []Manifest{}, Schema: []SchemaProblem{}, Unknown: []UnknownKey{}},
	}
	if outcomes["objects"].Len() < 5 || len(outcomes["unknown"].Unknown) == 0 || len(outcomes["schema"].Schema) == 0 || outcomes["error"].Error == "" {
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
		if g, w := viewOf(t, got), viewOf(t, o); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: read back\n%#v\nwritten\n%#v", name, g, w)
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
			if o, err := readOutcome(changed); err == nil { // must not panic
				o.Manifests()
			}
		}
		if _, err := readOutcome(append(data, 0)); err == nil {
			t.Errorf("%s: a byte more read as an outcome", name)
		}
	}
	// A value of another type is not encoded: that outcome is not cached.
	if _, ok := appendOutcome(nil, NewOutcome(Manifest{Object: map[string]any{"n": int32(1)}})); ok {
		t.Error("an int32 was encoded")
	}
}

// withFields gives o every field but its objects.
func withFields(o *Outcome) *Outcome {
	o.Error, o.SchemaNote = "e", "n"
	o.Schema = []SchemaProblem{{Path: []string{"a"}, Message: "m"}, {Chart: []string{}, Path: nil, Message: ""}}
	o.Unknown = []UnknownKey{{Path: []string{"x", "y"}, Suggest: "z"}, {}}
	return o
}

// outcomeView is what an Outcome says, through its methods.
type outcomeView struct {
	Heads      []Head
	Manifests  []Manifest
	Error      string
	Schema     []SchemaProblem
	SchemaNote string
	Unknown    []UnknownKey
}

func viewOf(t *testing.T, o *Outcome) outcomeView {
	t.Helper()
	m, err := o.Manifests()
	if err != nil {
		t.Fatal(err)
	}
	return outcomeView{o.Heads(), m, o.Error, o.Schema, o.SchemaNote, o.Unknown}
}

// TestOutcomeHeads checks that an object's head is what it says of
// itself, read from the object rendered or from the cache, with "" where
// a field is missing or not a string; and that a body the cache damaged
// is an error of Manifests, not a panic.
func TestOutcomeHeads(t *testing.T) {
	o := NewOutcome(
		Manifest{Source: "a.yaml", Hook: true, Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}}},
		Manifest{Source: "b.yaml", CRD: true, Object: map[string]any{"apiVersion": 1.0, "metadata": map[string]any{"generateName": "x-", "name": true}}},
	)
	want := []Head{
		{Source: "a.yaml", Hook: true, APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "shop"},
		{Source: "b.yaml", CRD: true, GenerateName: "x-"},
	}
	if !reflect.DeepEqual(o.Heads(), want) {
		t.Errorf("heads %+v, want %+v", o.Heads(), want)
	}
	data, _ := appendOutcome(nil, o)
	read, err := readOutcome(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read.Heads(), want) || read.objects != nil {
		t.Errorf("read: heads %+v, objects decoded %v", read.Heads(), read.objects != nil)
	}
	read.bodies[1] = read.bodies[1][:1] // as if the cache held other bytes
	if _, err := read.Manifests(); err == nil || err.Error() != "platc's cache holds a render of b.yaml that does not decode: remove platc's cache folder (PLATC_CACHE, or platc in the user's cache folder: ~/.cache/platc on Linux)" {
		t.Errorf("a damaged body: %v", err)
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
