package conformance

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The tests of this file prove that the comparison can fail: that the
// upstream side refuses what kro refuses and accepts what it accepts (so
// that agreement is not the product of a side that says yes to
// everything), that platc's side is live, and that Run reports a
// difference when the sides differ.

// rgdYAML is an RGD around a schema and resources written in YAML.
func rgdYAML(t *testing.T, schema, resources string) map[string]any {
	t.Helper()
	src := "apiVersion: kro.run/v1alpha1\nkind: ResourceGraphDefinition\nmetadata: {name: sanity}\nspec:\n  schema:\n" + indent(schema, "    ")
	if resources != "" {
		src += "  resources:\n" + indent(resources, "  ")
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(src), &obj); err != nil {
		t.Fatalf("%v in\n%s", err, src)
	}
	return obj
}

func indent(s, by string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.Trim(s, "\n"), "\n") {
		b.WriteString(by + l + "\n")
	}
	return b.String()
}

const db = `- id: db
  template:
    apiVersion: platform.example.org/v1alpha1
    kind: PostgresInstance
    metadata: {name: "${schema.metadata.name}-db"}
    spec: {engineVersion: "%s"}
`

// knownVerdicts are cases whose kro verdict is known from kro's own code
// and docs at v0.9.3: "" means kro accepts, anything else is part of its
// error. Many are disagreements with platc today (the families find
// them); whatever platc says, the comparison must see a disagreement where
// platc's verdict differs.
var knownVerdicts = []struct {
	name, schema, resources, kro string
}{
	{"minimal", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${schema.spec.name}"), ""},
	{"misspelled field", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${schema.spec.nme}"), "undefined field 'nme'"},
	{"url library", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${url('https://' + schema.spec.name).getHost()}"), ""},
	{"omit gated off", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${omit()}"), "omit() requires the CELOmitFunction feature gate"},
	{"status reads schema", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}\nstatus: {n: \"${schema.spec.name}\"}", "", ""},
	{"group without a dot", "apiVersion: v1alpha1\nkind: Thing\ngroup: nodot\nspec: {name: string}", "", "should be a domain with at least one dot"},
	{"plural over 63", "apiVersion: v1alpha1\nkind: K" + strings.Repeat("a", 62) + "\nspec: {name: string}", "", "must be no more than 63 characters"},
	{"reserved id", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", strings.Replace(fmt.Sprintf(db, "x"), "id: db", "id: schema", 1), "id schema is a reserved keyword"},
	{"kind a CRD defines", "apiVersion: v1alpha1\nkind: Application\ngroup: argoproj.io\nspec: {name: string}", "", "CRD already exists and is not owned by KRO"},
	{"listType marker", "apiVersion: v1alpha1\nkind: Thing\nspec: {l: \"[]string | listType=set\"}", "", ""},
	{"number is no kro type", "apiVersion: v1alpha1\nkind: Thing\nspec: {n: number}", "", "unknown type: number"},
	{"rule that does not compile", "apiVersion: v1alpha1\nkind: Thing\nspec: {b: \"boolean | validation=\\\"self.size() > 0\\\"\"}", "", "found no matching overload for 'size'"},
	{"default with a quote", "apiVersion: v1alpha1\nkind: Thing\nspec: {s: \"string | default=\\\"a\\\\\\\"b\\\"\"}", "", "MarshalJSON"},
	{"sets library absent", "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${sets.contains(['a'], [schema.spec.name]) ? 'a' : 'b'}"), "references unknown identifiers: [sets]"},
	{"backslash in a string default", "apiVersion: v1alpha1\nkind: Thing\nspec: {s: \"string | default=\\\"C:\\\\\\\\temp\\\"\"}", "", ""},
	{"fractional minimum on an integer", "apiVersion: v1alpha1\nkind: Thing\nspec: {n: \"integer | minimum=0.5\"}", "", ""},
	{"optional in includeWhen", "apiVersion: v1alpha1\nkind: Thing\nspec: {enabled: boolean}", fmt.Sprintf(db, "x") + "  includeWhen: [\"${schema.spec.?enabled}\"]\n", ""},
}

// TestUpstreamVerdicts checks the upstream side against the known verdicts.
func TestUpstreamVerdicts(t *testing.T) {
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range knownVerdicts {
		t.Run(c.name, func(t *testing.T) {
			_, err := base.BuildRGD(rgdYAML(t, c.schema, c.resources))
			switch {
			case c.kro == "" && err != nil:
				t.Errorf("kro refuses, want it to accept: %v", err)
			case c.kro != "" && err == nil:
				t.Errorf("kro accepts, want it to refuse with %q", c.kro)
			case c.kro != "" && !strings.Contains(err.Error(), c.kro):
				t.Errorf("kro refuses with %v, want %q in it", err, c.kro)
			}
		})
	}
}

// TestComparisonDetects runs the known cases against a platc side that
// says the opposite of kro, and one that agrees: the first must be all
// disagreements, each in the class of kro's verdict, the second none.
func TestComparisonDetects(t *testing.T) {
	var cases []map[string]any
	refuses := map[int]bool{}
	for i, c := range knownVerdicts {
		cases = append(cases, rgdYAML(t, c.schema, c.resources))
		refuses[i] = c.kro != ""
	}
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	real := RealSides(base)
	gen := func(g *Gen) map[string]any { return cases[g.Seed] }
	index := func(obj map[string]any) int {
		for i, c := range cases {
			if fmt.Sprint(c) == fmt.Sprint(obj) {
				return i
			}
		}
		return -1 // a shrunk case
	}
	opposite := Sides{Kro: real.Kro, Platc: func(obj map[string]any) []string {
		if real.Kro(obj) == nil {
			return []string{"stub: refused"}
		}
		return nil
	}}
	r := Run("opposite", 0, len(cases), gen, opposite)
	if r.Disagreements() != len(cases) {
		t.Errorf("a platc side that says the opposite of kro: %s, want %d disagreements", r.Summary(), len(cases))
	}
	for _, c := range r.Classes {
		if !inClass(opposite.Judge(c.Case), c.Class) {
			t.Errorf("the shrunk reproducer of %q is not in its class", c.Class)
		}
	}
	agreeing := Sides{Kro: real.Kro, Platc: func(obj map[string]any) []string {
		if i := index(obj); i >= 0 && refuses[i] {
			return []string{"stub: refused"}
		}
		return nil
	}}
	r = Run("agreeing", 0, len(cases), gen, agreeing)
	if r.Disagreements() != 0 || r.BothAccept == 0 || r.BothRefuse == 0 {
		t.Errorf("a platc side that agrees with kro: %s, want no disagreement", r.Summary())
	}
}

// TestShrink checks that a reproducer loses what its class does not need.
func TestShrink(t *testing.T) {
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	obj := rgdYAML(t, "apiVersion: v1alpha1\nkind: Thing\ngroup: nodot\nspec: {a: string, b: \"integer | default=1 minimum=0\"}\nstatus: {x: \"${db.status.endpoint}\"}", fmt.Sprintf(db, "${schema.spec.a}"))
	sides := Sides{Kro: RealSides(base).Kro, Platc: func(map[string]any) []string { return nil }}
	v := sides.Judge(obj)
	small, sv := Shrink(obj, v.Class(), sides)
	if !inClass(sv, v.Class()) {
		t.Fatalf("the shrunk case left its class: %v", sv)
	}
	y, _ := yaml.Marshal(small)
	for _, gone := range []string{"resources", "status", "minimum"} {
		if strings.Contains(string(y), gone) {
			t.Errorf("the shrunk case still has %s:\n%s", gone, y)
		}
	}
	if !strings.Contains(string(y), "nodot") {
		t.Errorf("the shrunk case lost the cause:\n%s", y)
	}
}

// TestPlatcSideIsLive checks that the adapter reaches platc's checks: it
// refuses what platc has always refused and accepts what it renders.
func TestPlatcSideIsLive(t *testing.T) {
	good := rgdYAML(t, "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${schema.spec.name}"))
	if p := PlatcRGD(good); len(p) > 0 {
		t.Errorf("platc refuses a plain RGD: %v", p)
	}
	bad := rgdYAML(t, "apiVersion: v1alpha1\nkind: Thing\nspec: {name: string}", fmt.Sprintf(db, "${schema.spec.nme}"))
	if p := PlatcRGD(bad); len(p) == 0 {
		t.Error("platc accepts a misspelled field")
	}
	// A warning is not a refusal: platc renders the RGD.
	warned := rgdYAML(t, "apiVersion: v1alpha1\nkind: Thing\nspec: {n: \"integer | minimum=0.5\"}", "")
	if w, p := PlatcWarnings(warned), PlatcRGD(warned); len(w) == 0 || len(p) > 0 {
		t.Errorf("a fractional minimum on an integer: platc warns %v and refuses with %v, want a warning only", w, p)
	}
	spec := map[string]any{"size": "integer | required=true minimum=1"}
	specs := map[string]map[string]any{"ok": {"size": int64(2)}, "low": {"size": int64(0)}, "missing": {}, "typo": {"size": int64(2), "sise": int64(1)}}
	refused, rendered, other := PlatcClients(func(clients []string) fs.FS {
		sub := map[string]map[string]any{}
		for _, c := range clients {
			sub[c] = specs[c]
		}
		return instanceRepo(spec, sub)
	}, []string{"low", "missing", "ok", "typo"}, instanceKind)
	if len(other) > 0 {
		t.Fatalf("problems of no client: %v", other)
	}
	for _, c := range []string{"low", "missing", "typo"} {
		if refused[c] == nil {
			t.Errorf("platc accepts client %s", c)
		}
	}
	if refused["ok"] != nil || rendered["ok"] == nil {
		t.Errorf("platc refuses client ok (%v) or renders no instance for it", refused["ok"])
	}
}

// TestInstanceVerdicts checks the API server's admission of instances
// against the CRD kro generates.
func TestInstanceVerdicts(t *testing.T) {
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := base.BuildRGD(rgdYAML(t, `apiVersion: v1alpha1
kind: Thing
spec:
  size: integer | required=true minimum=1
  mode: string | enum="a,b" default="a"
  tags: "[]string | uniqueItems=true"
  even: integer | validation="self % 2 == 0"`, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec, want string
	}{
		{`{size: 1}`, ""},
		{`{size: 0}`, "should be greater than or equal to 1"},
		{`{}`, "Required value"},
		{`{size: 1, mode: c}`, "Unsupported value"},
		{`{size: 1, tags: [x, x]}`, "Duplicate value"},
		{`{size: 1, even: 3}`, "validation failed"},
		{`{size: 1, colour: red}`, `unknown field "spec.colour"`},
	} {
		obj, err := DecodeYAML([]byte(`{apiVersion: kro.run/v1alpha1, kind: Thing, metadata: {name: a, namespace: b}, spec: ` + c.spec + `}`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := AdmitWith(acc.CRD, obj)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused, want admitted: %v", c.spec, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.spec, err, c.want)
		case c.want == "" && lookup(got, "spec", "mode") != "a":
			t.Errorf("%s: admitted as %v, want the default mode a", c.spec, got)
		}
	}
}
