package kro

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckExpressionsValid puts expressions that kro v0.9 accepts into the
// preserve-unknown valuesObject of loki (and one includeWhen): comprehension
// variables, cel.bind, namespaced functions of the enabled libraries,
// optionals, map literals and escaped "${" must not be taken for references.
func TestCheckExpressionsValid(t *testing.T) {
	exprs := []string{
		`${schema.spec.team.split("-").map(p, p.upperAscii()).join("-")}`,
		`${[1, 2, 3].exists(x, x > 2) && [1].all(x, x > 0)}`,
		`${cel.bind(name, schema.spec.team, name + "-" + name)}`,
		`${base64.encode(bytes(schema.spec.team))}`,
		`${strings.quote(schema.spec.team)}`,
		`${json.marshal({"team": schema.spec.team})}`,
		`${base64.encode(hash.fnv64a(schema.spec.team))}`,
		`${random.seededString(8, schema.metadata.uid)}`,
		`${{"a": 1}}`,
		`${"${VAR}"}`,
		`${schema.spec.?values.?prefix.orValue("none")}`,
		`${has(schema.spec.values.prefix) ? schema.spec.values.prefix : "x"}`,
		`${schema.metadata.namespace}`,
		`${schema.metadata.labels.transformMap(k, v, v + "!")}`,
		`${[3, 1, 2].sort()}`,
		`${lokiBucket.status.credentialsSecretRef.name}`,
		`${type(schema.spec.team) == string}`,
		`${'single {' + "quoted"}`,
	}
	r := validRGD()
	values := map[string]any{}
	for i, e := range exprs {
		values[string(rune('a'+i))] = e
	}
	lokiHelm(r)["valuesObject"] = values
	res(r, "loki").IncludeWhen = []string{`${lokiBucket.status.bucketName.startsWith("loki")}`}
	_, probs := Check(r)
	if len(probs) > 0 {
		t.Errorf("problems:\n%s", fmtProblems(probs))
	}
}

// consumerSchema is a resource whose fields take the types that TestCheckTypes feeds them.
func consumerSchema() *Schema {
	return obj(map[string]*Schema{
		"spec": obj(map[string]*Schema{
			"secretRef": obj(map[string]*Schema{"name": str(), "key": str(), "namespace": str()}),
			"nameRef":   obj(map[string]*Schema{"name": str()}),
			"port":      {IntOrString: true},
			"ratio":     {Type: "number"},
			"replicas":  {Type: "integer"},
			"tags":      arr(str()),
			"labels":    {Type: "object", AdditionalProperties: str()},
			"any":       {Type: "object", PreserveUnknown: true},
		}),
	})
}

func TestCheckTypes(t *testing.T) {
	tests := []struct {
		field, value string
		want         string // "" for no problem
	}{
		{"secretRef", "${lokiBucket.status.credentialsSecretRef}", ""},
		{"nameRef", "${lokiBucket.status.credentialsSecretRef}", `expression "lokiBucket.status.credentialsSecretRef" returns an object with field "key", which the field does not take: set the object's fields one by one, each with its own expression (kro: type mismatch at path "spec.nameRef": expression "lokiBucket.status.credentialsSecretRef" returns type "__type_lokiBucket.status.credentialsSecretRef" but expected "object")`},
		{"nameRef", `${{"name": "x"}}`, `expression "{\"name\": \"x\"}" returns map(string, string) but the field takes object: set the object's fields one by one, each with its own expression (kro: type mismatch at path "spec.nameRef": expression "{\"name\": \"x\"}" returns type "map(string, string)" but expected "object")`},
		{"port", "${8080}", ""},
		{"port", `${"http"}`, ""},
		{"port", "${true}", `expression "true" returns bool but the field takes an integer or a string: make it return integer or string (kro: type mismatch at path "spec.port": expression "true" returns type "bool" but expected "integer or string")`},
		{"ratio", "${0.5}", ""},
		{"ratio", "${1}", `expression "1" returns int but the field takes number: make it return number (kro: type mismatch at path "spec.ratio": expression "1" returns type "int" but expected "number")`},
		{"replicas", "${size(schema.spec.team)}", ""},
		{"replicas", "3", `value string "3" does not fit the field, which takes integer: change the value (kro: expected integer type for path spec.replicas, got string)`},
		{"tags", `${schema.spec.team.split(",")}`, ""},
		{"tags", `${[1, 2]}`, `expression "[1, 2]" list element returns int but the field takes string: make it return array of string (kro: type mismatch at path "spec.tags": expression "[1, 2]" returns type "list(int)" but expected "array of string")`},
		{"labels", "${schema.metadata.labels}", ""},
		{"any", "${schema.spec}", ""},
		{"any", "${json.unmarshal(schema.spec.team)}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			r := validRGD()
			r.Resources = append(r.Resources, Resource{
				ID: "consumer",
				Template: map[string]any{
					"apiVersion": "example.com/v1", "kind": "Consumer",
					"metadata": map[string]any{"name": "c"},
					"spec":     map[string]any{tt.field: tt.value},
				},
				Schema: consumerSchema(),
			})
			_, got := Check(r)
			var want []Problem
			if tt.want != "" {
				want = []Problem{{Resource: "consumer", Path: "template.spec." + tt.field, Msg: tt.want}}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGraph checks dependencies from templates and includeWhen, and kro's
// order: passes in declaration order, each taking every resource whose
// dependencies are taken.
func TestGraph(t *testing.T) {
	r := &RGD{
		APIVersion: "v1alpha1",
		Kind:       "Graph",
		Spec:       map[string]any{"on": "boolean"},
		Status:     map[string]any{"region": "${d.status.region}"},
		Resources: []Resource{
			bucket("a", "eu-west-1"),
			bucket("b", "${c.status.region}-${a.status.region}"),
			bucket("c", "eu-west-1"),
			bucket("d", "${a.status.region}"),
		},
	}
	r.Resources[2].IncludeWhen = []string{`${schema.spec.on && d.status.bucketName != ""}`}
	res, probs := Check(r)
	if len(probs) > 0 {
		t.Fatalf("problems:\n%s", fmtProblems(probs))
	}
	if diff := cmp.Diff(map[string][]string{"a": {}, "b": {"a", "c"}, "c": {"d"}, "d": {"a"}}, res.Deps); diff != "" {
		t.Errorf("deps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "d", "c", "b"}, res.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestGraphCycles checks that a cycle is reported once, at its first
// resource, and that the rest of the graph is still ordered.
func TestGraphCycles(t *testing.T) {
	r := &RGD{
		APIVersion: "v1alpha1",
		Kind:       "Graph",
		Spec:       map[string]any{},
		Resources: []Resource{
			bucket("x", "eu-west-1"),
			bucket("a", "${c.status.region}"),
			bucket("b", "${a.status.region}"),
			bucket("c", "${b.status.region}-${x.status.region}"),
			bucket("d", "${d.status.region}"),
		},
	}
	res, probs := Check(r)
	want := []Problem{
		{Resource: "a", Msg: "graph contains a cycle: a -> c -> b -> a: remove one of these references"},
		{Resource: "d", Path: "template.spec.region", Msg: `expression "d.status.region" references its own resource "d": a resource cannot depend on itself; take the value from schema or another resource (kro: self references are not allowed)`},
	}
	if diff := cmp.Diff(want, probs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, res.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
