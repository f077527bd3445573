package kro

import (
	"strings"
	"testing"
)

// TestProblemsInsideExpressions: a misspelled field or identifier is
// reported at its own first letter in the string the expression is
// written in (Problem.Str and Offset), with the likely intended name or
// the names there are, in every kind of place an expression is.
func TestProblemsInsideExpressions(t *testing.T) {
	r := validRGD()
	values := r.Resources[1].Template["spec"].(map[string]any)["sources"].([]any)[0].(map[string]any)["helm"].(map[string]any)["valuesObject"].(map[string]any)
	values["schema"] = "${schema.spec.lokii.enabled}"
	values["second"] = "http://${schema.spec.region}.example/${schema.spec.regoin}"
	values["none"] = "${lokiBucket.status.zzzzzz}"
	values["id"] = "${lokiBucket.status.region + lokiBuckt.status.region}"
	values["quoted"] = `${"a \"b\" " + schema.spec.tem}`
	r.Resources[0].IncludeWhen = []string{"${schema.spec.lokii.enabled}"}
	r.Resources[0].ReadyWhen = []string{"${lokiBuckt.status.bucketName != ''}"}
	r.Status["typo"] = "${lokiBucket.status.bucketNme}"
	_, probs := Check(r)
	type want struct{ path, name, msg string }
	wants := []want{
		{"status.typo", "bucketNme", `lokiBucket.status has no field "bucketNme": did you mean "bucketName"?`},
		{"includeWhen[0]", "lokii", `schema.spec has no field "lokii": did you mean "loki"?`},
		{"readyWhen[0]", "lokiBuckt", `readyWhen expression "lokiBuckt.status.bucketName != ''" references unknown identifier "lokiBuckt": did you mean "lokiBucket"? (kro: references unknown identifiers: [lokiBuckt])`},
		{"template.spec.sources[0].helm.valuesObject.id", "lokiBuckt", `expression "lokiBucket.status.region + lokiBuckt.status.region" references unknown identifier "lokiBuckt": did you mean "lokiBucket"? (kro: references unknown identifiers: [lokiBuckt])`},
		{"template.spec.sources[0].helm.valuesObject.none", "zzzzzz", `lokiBucket.status has no field "zzzzzz": use one of bucketName, conditions, credentialsSecretRef, endpoint, region`},
		{"template.spec.sources[0].helm.valuesObject.quoted", "tem", `schema.spec has no field "tem": did you mean "team"?`},
		{"template.spec.sources[0].helm.valuesObject.schema", "lokii", `schema.spec has no field "lokii": did you mean "loki"?`},
		{"template.spec.sources[0].helm.valuesObject.second", "regoin", `schema.spec has no field "regoin": did you mean "region"?`},
	}
	if len(probs) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%s", len(probs), len(wants), fmtProblems(probs))
	}
	for i, w := range wants {
		p := probs[i]
		if p.Path != w.path || p.Msg != w.msg {
			t.Errorf("problem %d = %s: %s\nwant %s: %s", i, p.Path, p.Msg, w.path, w.msg)
			continue
		}
		if p.Str == "" || !strings.HasPrefix(p.Str[p.Offset:], w.name) {
			t.Errorf("%s: placed at %d of %q, want the first letter of %s", w.path, p.Offset, p.Str, w.name)
		}
	}
	// The second expression of a template: not the first's "region".
	if p := probs[7]; p.Str[:p.Offset] != "http://${schema.spec.region}.example/${schema.spec." {
		t.Errorf("the misspelled field of the second expression is placed at %d of %q", p.Offset, p.Str)
	}
}
