package kro

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// res returns the resource of r with id.
func res(r *RGD, id string) *Resource {
	for i := range r.Resources {
		if r.Resources[i].ID == id {
			return &r.Resources[i]
		}
	}
	panic("no resource " + id)
}

// at returns the map at the dotted path of m.
func at(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

func lokiSpec(r *RGD) map[string]any { return at(res(r, "loki").Template, "spec") }

func lokiHelm(r *RGD) map[string]any {
	return lokiSpec(r)["sources"].([]any)[0].(map[string]any)["helm"].(map[string]any)
}

// bucket returns a minimal ObjectBucket resource whose spec.region is region.
func bucket(id, region string) Resource {
	return Resource{
		ID: id,
		Template: map[string]any{
			"apiVersion": "storage.platform.example.com/v1alpha1",
			"kind":       "ObjectBucket",
			"metadata":   map[string]any{"name": id},
			"spec":       map[string]any{"region": region},
		},
		Schema: bucketSchema(),
	}
}

func TestCheckValid(t *testing.T) {
	res, probs := Check(validRGD())
	if len(probs) > 0 {
		t.Fatalf("problems in a valid RGD:\n%s", fmtProblems(probs))
	}
	if diff := cmp.Diff(map[string][]string{"lokiBucket": {}, "loki": {"lokiBucket"}}, res.Deps); diff != "" {
		t.Errorf("deps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lokiBucket", "loki"}, res.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	want := map[string]any{
		"type":     "object",
		"required": []any{"team"},
		"default":  map[string]any{},
		"properties": map[string]any{
			"team":   map[string]any{"type": "string"},
			"region": map[string]any{"type": "string", "default": "eu-west-1"},
			"loki": map[string]any{"type": "object", "default": map[string]any{}, "properties": map[string]any{
				"enabled": map[string]any{"type": "boolean", "default": true},
			}},
			"values": map[string]any{"type": "object", "default": map[string]any{}, "required": []any{"repoURL"}, "properties": map[string]any{
				"repoURL":  map[string]any{"type": "string"},
				"revision": map[string]any{"type": "string", "default": "main"},
				"prefix":   map[string]any{"type": "string"},
			}},
		},
	}
	if diff := cmp.Diff(want, res.Instance.Properties["spec"].OpenAPI()); diff != "" {
		t.Errorf("instance spec (-want +got):\n%s", diff)
	}
	wantStatus := map[string]any{"type": "object", "properties": map[string]any{
		"lokiBucket": map[string]any{"type": "string"},
		"ready":      map[string]any{"type": "boolean"},
	}}
	if diff := cmp.Diff(wantStatus, res.Instance.Properties["status"].OpenAPI()); diff != "" {
		t.Errorf("instance status (-want +got):\n%s", diff)
	}
}

func fmtProblems(ps []Problem) string {
	s := ""
	for _, p := range ps {
		s += fmt.Sprintf("%#v,\n", p)
	}
	return s
}

func TestCheckProblems(t *testing.T) {
	tests := []struct {
		name string
		mut  func(r *RGD)
		want []Problem
	}{
		{"cycle", func(r *RGD) {
			r.Resources = append(r.Resources, bucket("a", "${b.status.region}"), bucket("b", "${a.status.region}"))
		}, []Problem{
			{Resource: "a", Path: "", Msg: "graph contains a cycle: a -> b -> a: remove one of these references"},
		}},
		{"unknown identifier", func(r *RGD) {
			lokiSpec(r)["project"] = "${schem.spec.team}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.project", Msg: `expression "schem.spec.team" references unknown identifier "schem" (did you mean "schema"?): use schema or the id of a resource (kro: references unknown identifiers: [schem])`},
		}},
		{"missing status field of a primitive", func(r *RGD) {
			at(lokiHelm(r), "valuesObject", "loki", "storage", "bucketNames")["chunks"] = "${lokiBucket.status.bucketNme}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.sources[0].helm.valuesObject.loki.storage.bucketNames.chunks", Msg: `expression "lokiBucket.status.bucketNme" does not type-check: undefined field 'bucketNme': use a field that the schema declares`},
		}},
		{"boolean into a string field", func(r *RGD) {
			lokiSpec(r)["project"] = "${schema.spec.loki.enabled}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.project", Msg: `expression "schema.spec.loki.enabled" returns bool but the field takes string: make it return string (kro: type mismatch at path "spec.project": expression "schema.spec.loki.enabled" returns type "bool" but expected "string")`},
		}},
		{"integer into a string field", func(r *RGD) {
			at(lokiSpec(r), "destination")["namespace"] = "${size(schema.spec.team)}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.destination.namespace", Msg: `expression "size(schema.spec.team)" returns int but the field takes string: make it return string (kro: type mismatch at path "spec.destination.namespace": expression "size(schema.spec.team)" returns type "int" but expected "string")`},
		}},
		{"includeWhen not boolean", func(r *RGD) {
			res(r, "lokiBucket").IncludeWhen = []string{"${schema.spec.region}"}
		}, []Problem{
			{Resource: "lokiBucket", Path: "includeWhen[0]", Msg: `includeWhen expression "schema.spec.region" returns string, not bool: make it a condition, such as a comparison with == (kro: includeWhen expression "schema.spec.region" in resource "lokiBucket" must return bool or optional_type(bool), but returns "string")`},
		}},
		{"includeWhen not standalone", func(r *RGD) {
			res(r, "lokiBucket").IncludeWhen = []string{"${schema.spec.loki.enabled} "}
		}, []Problem{
			{Resource: "lokiBucket", Path: "includeWhen[0]", Msg: `includeWhen entry "${schema.spec.loki.enabled} " is not one standalone expression: write the whole entry as a single ${...}, with nothing around it (kro: only standalone expressions are allowed)`},
		}},
		{"readyWhen references another resource", func(r *RGD) {
			res(r, "loki").ReadyWhen = []string{`${lokiBucket.status.bucketName != ""}`}
		}, []Problem{
			{Resource: "loki", Path: "readyWhen[0]", Msg: "readyWhen expression \"lokiBucket.status.bucketName != \\\"\\\"\" references \"lokiBucket\": readyWhen may reference only its own resource, \"loki\"; check \"lokiBucket\" in its own readyWhen instead (kro: references unknown identifiers: [lokiBucket])"},
		}},
		{"status references schema", func(r *RGD) {
			r.Status["team"] = "${schema.spec.team}"
		}, []Problem{
			{Resource: "", Path: "status.team", Msg: `status expression "schema.spec.team" references schema: status may reference only resources, so read the value from a resource (kro: references unknown identifiers: [schema])`},
		}},
		{"status literal without expression", func(r *RGD) {
			r.Status["protocol"] = "TCP"
		}, []Problem{
			{Resource: "", Path: "status.protocol", Msg: `status value "TCP" has no expression: write a ${...} expression that reads a resource, or remove the field (kro: status fields without expressions are not supported)`},
		}},
		{"bad id", func(r *RGD) {
			r.Resources = append(r.Resources, bucket("my_db", "eu-west-1"))
		}, []Problem{
			{Resource: "my_db", Path: "id", Msg: `id "my_db" is not a valid kro resource id: use lowerCamelCase, such as "myDb"`},
		}},
		{"reserved ids", func(r *RGD) {
			r.Resources = append(r.Resources, bucket("schema", "eu-west-1"), bucket("spec", "eu-west-1"))
		}, []Problem{
			{Resource: "schema", Path: "id", Msg: `id "schema" is a reserved word in kro: choose another lowerCamelCase id (kro: id schema is a reserved keyword in KRO)`},
			{Resource: "spec", Path: "id", Msg: `id "spec" is a reserved word in kro: choose another lowerCamelCase id (kro: id spec is a reserved keyword in KRO)`},
		}},
		{"duplicate id", func(r *RGD) {
			r.Resources = append(r.Resources, bucket("loki", "eu-west-1"))
		}, []Problem{
			{Resource: "loki", Path: "id", Msg: `id "loki" is already the id of resources[1]: give each resource its own id (kro: found duplicate resource IDs loki)`},
		}},
		{"unknown marker", func(r *RGD) {
			r.Spec["region"] = `string | defualt="x"`
		}, []Problem{
			{Resource: "", Path: "spec.region", Msg: `unknown marker "defualt" (did you mean "default"?): use one of required, default, description, enum, minimum, maximum, pattern, minLength, maxLength, minItems, maxItems, uniqueItems, immutable, validation (kro: invalid marker key "defualt": unknown marker: defualt)`},
		}},
		{"bad default for type", func(r *RGD) {
			r.Spec["replicas"] = `integer | default="x"`
		}, []Problem{
			{Resource: "", Path: "spec.replicas", Msg: `default "x" is not a valid integer: write it as JSON, such as default=1`},
		}},
		{"enum on boolean", func(r *RGD) {
			at(r.Spec, "loki")["enabled"] = `boolean | enum="true,false"`
		}, []Problem{
			{Resource: "", Path: "spec.loki.enabled", Msg: `marker enum="true,false": enum is only allowed on string and integer fields, not boolean: remove enum or change the type (kro: enum values only supported for string and integer types, got type: boolean)`},
		}},
		{"kind not UpperCamelCase", func(r *RGD) {
			r.Kind = "observability_stack"
		}, []Problem{
			{Resource: "", Path: "kind", Msg: `kind "observability_stack" is not a valid kro kind: use UpperCamelCase of 1 to 63 letters and digits, such as "ObservabilityStack" (kro: kind 'observability_stack' is not a valid KRO kind name: must be UpperCamelCase)`},
		}},
		{"apiVersion with group", func(r *RGD) {
			r.APIVersion = "kro.run/v1"
		}, []Problem{
			{Resource: "", Path: "apiVersion", Msg: `apiVersion "kro.run/v1" is not a valid Kubernetes version: write only the version, "v1", and put the group "kro.run" in group (kro: version kro.run/v1 is not a valid Kubernetes version)`},
		}},
		{"nested expression", func(r *RGD) {
			at(res(r, "loki").Template, "metadata")["name"] = "${schema.spec.team + ${schema.spec.region}}"
		}, []Problem{
			{Resource: "loki", Path: "template.metadata.name", Msg: `"${schema.spec.team + ${schema.spec.region}}" has a "${" inside an expression, outside a string literal: remove it or quote it, as in ${"${VAR}"} (kro: nested expressions are not allowed unless inside string literals)`},
		}},
		{"schema has no status", func(r *RGD) {
			res(r, "lokiBucket").IncludeWhen = []string{"${schema.status.ready}"}
		}, []Problem{
			{Resource: "lokiBucket", Path: "includeWhen[0]", Msg: `expression "schema.status.ready" does not type-check: undefined field 'status': use a field that the schema declares`},
		}},
		{"CEL syntax error", func(r *RGD) {
			lokiSpec(r)["project"] = "${schema.spec.team +}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.project", Msg: `expression "schema.spec.team +" has a CEL syntax error at column 19: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}: fix the syntax`},
		}},
		{"more than one bar", func(r *RGD) {
			r.Spec["region"] = `string | default="a" | description="b"`
		}, []Problem{
			{Resource: "", Path: "spec.region", Msg: "\"string | default=\\\"a\\\" | description=\\\"b\\\"\" has more than one \"|\": write the type, one \"|\", then space-separated markers, such as \"integer | default=1 minimum=1\""},
		}},
		{"unknown type", func(r *RGD) {
			r.Spec["team"] = "strng | required=true"
		}, []Problem{
			{Resource: "", Path: "spec.team", Msg: `unknown type "strng" (did you mean "string"?): use string, integer, boolean, float, object, []T, map[string]T or a type declared in types`},
		}},
		{"custom types: a cycle, and a use", func(r *RGD) {
			r.Types = map[string]any{
				"Person":  map[string]any{"name": "string", "employer": "Company"},
				"Company": map[string]any{"name": "string", "ceo": "Person"},
				"Port":    "integer | minimum=1 maximum=65535",
			}
			r.Spec["port"] = "Port | default=80"
			r.Spec["ports"] = "[]Port | default=[0]"
		}, []Problem{
			{Resource: "", Path: "spec.ports", Msg: `default "[0]" is not a valid []Port: [0]: 0 is less than minimum 1; change the default`},
			{Resource: "", Path: "types.Person.employer", Msg: `type "Company" is part of a cycle: Company -> Person -> Company: break the cycle (kro: cyclic dependency detected loading type Company)`},
		}},
		{"default outside enum, pattern on integer, uniqueItems on string", func(r *RGD) {
			r.Spec["mode"] = `string | enum="debug,info" default="trace"`
			r.Spec["replicas"] = `integer | pattern="^[0-9]+$"`
			r.Spec["tags"] = `string | uniqueItems=true`
		}, []Problem{
			{Resource: "", Path: "spec.mode", Msg: `default "trace" is not a valid string: "trace" is not one of the enum values ["debug","info"]; change the default`},
			{Resource: "", Path: "spec.replicas", Msg: `marker pattern="^[0-9]+$": pattern is only valid for string types, not integer: remove it or change the type (kro: pattern marker is only valid for string types, got type: integer)`},
			{Resource: "", Path: "spec.tags", Msg: `marker uniqueItems="true": uniqueItems is only valid for array types, not string: remove it or change the type (kro: uniqueItems marker is only valid for array types, got type: string)`},
		}},
		{"readyWhen references schema", func(r *RGD) {
			res(r, "loki").ReadyWhen = []string{`${schema.spec.loki.enabled}`}
		}, []Problem{
			{Resource: "loki", Path: "readyWhen[0]", Msg: `readyWhen expression "schema.spec.loki.enabled" references schema: readyWhen may reference only its own resource, "loki" (kro: references unknown identifiers: [schema])`},
		}},
		{"self reference", func(r *RGD) {
			lokiSpec(r)["project"] = "${loki.metadata.name}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.project", Msg: `expression "loki.metadata.name" references its own resource "loki": a resource cannot depend on itself; take the value from schema or another resource (kro: self references are not allowed)`},
		}},
		{"static unknown field and wrong scalar", func(r *RGD) {
			lokiSpec(r)["projet"] = "default"
			at(lokiSpec(r), "syncPolicy", "automated")["prune"] = "yes"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.projet", Msg: `field "projet" is not in the schema of Application (did you mean "project"?): remove it or fix its name (kro: schema not found for field projet)`},
			{Resource: "loki", Path: "template.spec.syncPolicy.automated.prune", Msg: `value string "yes" does not fit the field, which takes boolean: change the value (kro: expected boolean type for path spec.syncPolicy.automated.prune, got string)`},
		}},
		{"string template into a boolean field, integer in a string template", func(r *RGD) {
			lokiHelm(r)["ignoreMissingValueFiles"] = "x-${schema.spec.team}"
			lokiHelm(r)["valueFiles"] = []any{"$values/${size(schema.spec.team)}/loki.yaml"}
		}, []Problem{
			{Resource: "loki", Path: "template.spec.sources[0].helm.ignoreMissingValueFiles", Msg: `"x-${schema.spec.team}" is a string template, but the field takes boolean: write the whole value as one ${...} expression (kro: expected boolean type for path spec.sources[0].helm.ignoreMissingValueFiles, got string)`},
			{Resource: "loki", Path: "template.spec.sources[0].helm.valueFiles[0]", Msg: `expression "size(schema.spec.team)" in a string template returns int: every expression in a string template must return a string; wrap it in string(...) or write it as the whole value`},
		}},
		{"optional into a string field", func(r *RGD) {
			lokiSpec(r)["project"] = "${schema.spec.?team}"
		}, []Problem{
			{Resource: "loki", Path: "template.spec.project", Msg: `expression "schema.spec.?team" returns optional_type(string) but the field takes string: unwrap the optional with .orValue(...), such as .orValue("") (kro: type mismatch at path "spec.project": expression "schema.spec.?team" returns type "optional_type(string)" but expected "string")`},
		}},
		{"status: reserved field, unknown identifier, non-string leaf", func(r *RGD) {
			r.Status["state"] = "${loki.status.sync.status}"
			r.Status["bucket"] = map[string]any{"name": "${bucket.status.bucketName}", "replicas": 2}
		}, []Problem{
			{Resource: "", Path: "status.bucket.name", Msg: `expression "bucket.status.bucketName" references unknown identifier "bucket": use the id of a resource (kro: references unknown identifiers: [bucket])`},
			{Resource: "", Path: "status.bucket.replicas", Msg: "status value integer 2 is not an expression: write a ${...} expression that reads a resource (kro: status fields without expressions are not supported)"},
			{Resource: "", Path: "status.state", Msg: `status field "state" is reserved: kro sets status.state itself; rename the field`},
		}},
		{"group, template structure, missing schema", func(r *RGD) {
			r.Group = "Platform_Example"
			delete(res(r, "lokiBucket").Template, "metadata")
			res(r, "loki").Schema = nil
		}, []Problem{
			{Resource: "", Path: "group", Msg: `group "Platform_Example" is not a DNS subdomain: use lower-case labels of letters, digits and '-' joined by dots, such as platform.example.com`},
			{Resource: "lokiBucket", Path: "template.metadata", Msg: "template has no metadata: set metadata, with at least a name (kro: metadata field not found)"},
			{Resource: "loki", Path: "template.kind", Msg: "no schema is known for argoproj.io/v1alpha1 Application: give the schema of the kind so that the template can be checked"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRGD()
			tt.mut(r)
			_, got := Check(r)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\ngot:\n%s", diff, fmtProblems(got))
			}
		})
	}
}
