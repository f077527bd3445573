package charts

import (
	"reflect"
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
	if _, ok := appendOutcome(nil, &Outcome{Objects: []Manifest{{Object: map[string]any{"n": 1}}}}); ok {
		t.Error("an int (not int64) was encoded")
	}
}
