package kro

import (
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/testkit/cachetest"
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

// TestCheckOverSchema: a template over schema alone (a stack's output) is
// checked as kro checks a template, each problem placed in the string.
func TestCheckOverSchema(t *testing.T) {
	res, probs := Check(validRGD())
	if res == nil {
		t.Fatalf("the valid RGD is refused:\n%s", fmtProblems(probs))
	}
	if probs := res.CheckOverSchema("http://${schema.metadata.name}.${schema.spec.region}/${string(schema.spec.retain)}"); len(probs) > 0 {
		t.Errorf("problems in a valid template:\n%s", fmtProblems(probs))
	}
	s := "${schema.metadata.name}-${schema.spec.regin}-${lokiBucket.status.region}-${schema.spec.team +}"
	probs = res.CheckOverSchema(s)
	want := []Problem{
		{ID: diag.KroCEL, Msg: `expression "lokiBucket.status.region" does not type-check: undeclared reference to 'lokiBucket' (in container ''): use a declared function or variable`, Str: s, Offset: strings.Index(s, "lokiBucket")},
		{ID: diag.KroCEL, Msg: `expression "schema.spec.team +" has a CEL syntax error at column 19: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}: fix the syntax`, Str: s, Offset: strings.Index(s, "schema.spec.team")},
		{ID: diag.KroCEL, Msg: `schema.spec has no field "regin": did you mean "region"?`, Str: s, Offset: strings.Index(s, "regin")},
	}
	if len(probs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(probs), len(want), fmtProblems(probs))
	}
	for i := range want {
		if probs[i] != want[i] {
			t.Errorf("problem %d = %+v\nwant %+v", i, probs[i], want[i])
		}
	}
}

// TestCheckOverSchemaCached: with the RGD's Cache, what CheckOverSchema
// finds is kept by the RGD and the template, and read back the same, by a
// Result that builds no environment for it.
func TestCheckOverSchemaCached(t *testing.T) {
	cache := &cachetest.Memory{}
	r := validRGD()
	r.Cache = cache
	first, _ := Check(r)
	s := "${schema.spec.regin}"
	want := first.CheckOverSchema(s)
	if len(want) != 1 {
		t.Fatalf("got %d problems, want 1: %v", len(want), want)
	}
	second, _ := Check(r) // from the cache
	if got := second.CheckOverSchema(s); !slices.Equal(got, want) {
		t.Errorf("from the cache: %v, want %v", got, want)
	}
	if second.schemaEnv != nil {
		t.Error("the environment was built for a template the cache knows")
	}
	if got := second.CheckOverSchema("${schema.spec.region}"); len(got) != 0 {
		t.Errorf("another template is given the first's problems: %v", got)
	}
}
