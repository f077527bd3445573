package kro

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/testkit/cachetest"
)

// bucket is an ObjectBucket resource (a primitive of the embedded CRDs)
// whose spec.region is region.
func bucket(id, region string) Resource {
	return Resource{
		ID: id,
		Template: map[string]any{
			"apiVersion": "platform.example.org/v1alpha1",
			"kind":       "ObjectBucket",
			"metadata":   map[string]any{"name": "${schema.metadata.name}-" + id, "namespace": "${schema.metadata.namespace}"},
			"spec":       map[string]any{"region": region},
		},
	}
}

// app is an Argo CD Application resource whose Helm values are values.
func app(id string, values map[string]any) Resource {
	return Resource{
		ID: id,
		Template: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1",
			"kind":       "Application",
			"metadata":   map[string]any{"name": "${schema.metadata.name}-" + id, "namespace": "${schema.metadata.namespace}"},
			"spec": map[string]any{
				"project": "default",
				"sources": []any{map[string]any{
					"repoURL": "https://charts.example.com", "chart": "c", "targetRevision": "1.0.0",
					"helm": map[string]any{"valuesObject": values},
				}},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "ns"},
			},
		},
		ReadyWhen: []string{"${" + id + ".status.health.status == \"Healthy\"}"},
	}
}

// validRGD is a graph kro accepts: a bucket, and an Application wired to it.
func validRGD() *RGD {
	return &RGD{
		APIVersion: "v1alpha1",
		Kind:       "LogStack",
		Group:      "platform.example.org",
		Spec: map[string]any{
			"region":  `string | default="eu-west-1"`,
			"team":    "string | required=true",
			"loki":    map[string]any{"enabled": "boolean | default=true"},
			"retain":  "integer | default=7 minimum=1",
			"storage": `string | default="10Gi" validation="quantity(self).isGreaterThan(quantity('1Gi'))"`,
		},
		Status: map[string]any{
			"bucket": "${lokiBucket.status.bucketName}",
			"team":   "${schema.spec.team}",
		},
		Resources: []Resource{
			func() Resource {
				r := bucket("lokiBucket", "${schema.spec.region}")
				r.IncludeWhen = []string{"${schema.spec.loki.enabled}"}
				return r
			}(),
			app("loki", map[string]any{
				"bucket": "${lokiBucket.status.bucketName}",
				"host":   "${url('https://' + schema.spec.team + '.example.com').getHostname()}",
				"size":   "${quantity(schema.spec.storage).asInteger()}",
			}),
		},
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
	if name := res.CRD["metadata"].(map[string]any)["name"]; name != "logstacks.platform.example.org" {
		t.Errorf("CRD name %v, want logstacks.platform.example.org", name)
	}
	spec := lookup(res.CRD, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec")
	want := map[string]any{"type": "string", "default": "eu-west-1"}
	if diff := cmp.Diff(want, lookup(spec, "properties", "region")); diff != "" {
		t.Errorf("spec.region schema (-want +got):\n%s", diff)
	}
	if got := lookup(spec, "required"); fmt.Sprint(got) != "[team]" {
		t.Errorf("spec.required = %v, want [team]", got)
	}
	// kro infers the status schema from the expressions' types.
	status := lookup(res.CRD, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "status", "properties")
	if got := lookup(status, "bucket", "type"); got != "string" {
		t.Errorf("status.bucket type %v, want string", got)
	}
}

// lookup follows keys (strings) and indexes (ints) through plain data.
func lookup(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func fmtProblems(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s | %s | %s\n", p.Resource, p.Path, p.Msg)
	}
	return b.String()
}

// TestCheckProblems checks that every problem is found, at its place: kro's
// builder would stop at the first. Each case wants its problems' places and
// a part of each message; none may be the builder's own error, which
// Check reports only for what its finer checks miss.
func TestCheckProblems(t *testing.T) {
	type want struct{ resource, path, msg string }
	tests := []struct {
		name   string
		mutate func(r *RGD)
		want   []want
	}{
		{"kind and apiVersion", func(r *RGD) { r.Kind = "logStack"; r.APIVersion = "kro.run/v1" }, []want{
			{"", "apiVersion", `write only the version, "v1", and put the group "kro.run" in group`},
			{"", "kind", `such as "LogStack"`},
		}},
		{"object default without a required field", func(r *RGD) {
			r.Types = map[string]any{"Server": map[string]any{"host": "string | required=true"}}
			r.Spec["server"] = "Server | default={}"
		}, []want{
			{"", "spec.server", "the default's field host breaks the schema of the default's type"},
		}},
		{"immutable in a list's items", func(r *RGD) {
			r.Types = map[string]any{"Port": map[string]any{"name": "string | immutable=true"}}
			r.Spec["ports"] = "[]Port"
		}, []want{
			{"", "spec.ports.name", "remove immutable from the field"},
		}},
		{"group without a dot", func(r *RGD) { r.Group = "platform" }, []want{
			{"", "group", "has no dot"},
		}},
		{"plural too long", func(r *RGD) { r.Kind = "L" + strings.Repeat("o", 61) + "g" }, []want{
			{"", "kind", "must be no more than 63 characters"},
		}},
		{"kind of an embedded CRD", func(r *RGD) { r.Kind = "ObjectBucket" }, []want{
			{"", "kind", "not owned by KRO"},
		}},
		{"ids", func(r *RGD) {
			r.Resources = append(r.Resources, bucket("schema", "x"), bucket("my_db", "x"), bucket("loki", "y"))
		}, []want{
			{"schema", "id", "reserved word"},
			{"my_db", "id", `such as "myDb"`},
			{"loki", "id", "already the id of resources[1]"},
		}},
		{"simpleschema", func(r *RGD) {
			r.Spec["a"] = "string | defualt=x"
			r.Spec["b"] = "integer | default=many"
			r.Spec["c"] = "number"
			r.Spec["d"] = "boolean | enum=\"a,b\""
			r.Spec["e"] = "[]string | listType=set"
		}, []want{
			{"", "spec.a", `unknown marker "defualt" (did you mean "default"?)`},
			{"", "spec.b", `default "many" is not a valid integer`},
			{"", "spec.c", `unknown type "number"`},
			{"", "spec.d", "enum is only allowed on string and integer fields"},
		}},
		{"crd of the schema", func(r *RGD) {
			r.Spec["q"] = `string | default="say \"hi\""`
			r.Spec["v"] = `integer | validation="self.startsWith('a')"`
			r.Spec["s"] = "[]object | uniqueItems=true"
		}, []want{
			{"", "spec.q", "holds a quote or a backslash"},
			{"", "spec.s", "a unique list"},
			{"", "spec.v", "does not compile in the API server's CEL"},
		}},
		{"templates", func(r *RGD) {
			spec := r.Resources[0].Template["spec"].(map[string]any)
			spec["regoin"] = "x"
			spec["versioning"] = "yes"
			spec["retentionDays"] = "${schema.spec.region}"
		}, []want{
			{"lokiBucket", "template.spec.regoin", `field "regoin" is not in the schema of ObjectBucket (did you mean "region"?)`},
			{"lokiBucket", "template.spec.retentionDays", "returns string but the field takes int"},
			{"lokiBucket", "template.spec.versioning", "does not fit the field, which takes boolean"},
		}},
		{"expressions", func(r *RGD) {
			values := r.Resources[1].Template["spec"].(map[string]any)["sources"].([]any)[0].(map[string]any)["helm"].(map[string]any)["valuesObject"].(map[string]any)
			values["a"] = "${lokiBuckt.status.bucketName}"
			values["b"] = "${lokiBucket.status.bucketNme}"
			values["c"] = "${schema.spec.team +}"
			values["d"] = "${omit()}"
			values["e"] = "${loki.status.sync.status}"
			r.Resources[0].IncludeWhen = []string{"${schema.spec.retain}", "enabled"}
			r.Resources[0].ReadyWhen = []string{"${loki.status.health.status == 'Healthy'}"}
		}, []want{
			{"lokiBucket", "includeWhen[0]", "returns int, not bool"},
			{"lokiBucket", "includeWhen[1]", "not one standalone expression"},
			{"lokiBucket", "readyWhen[0]", `readyWhen may reference only its own resource, "lokiBucket"`},
			{"loki", "template.spec.sources[0].helm.valuesObject.a", `unknown identifier "lokiBuckt": did you mean "lokiBucket"?`},
			{"loki", "template.spec.sources[0].helm.valuesObject.b", `lokiBucket.status has no field "bucketNme": did you mean "bucketName"?`},
			{"loki", "template.spec.sources[0].helm.valuesObject.c", "CEL syntax error at column"},
			{"loki", "template.spec.sources[0].helm.valuesObject.d", "CELOmitFunction feature gate"},
			{"loki", "template.spec.sources[0].helm.valuesObject.e", "cannot depend on itself"},
		}},
		{"cycle", func(r *RGD) {
			r.Resources[0].Template["spec"].(map[string]any)["region"] = "${loki.status.sync.status}"
		}, []want{
			{"lokiBucket", "", "graph contains a cycle: lokiBucket -> loki -> lokiBucket"},
		}},
		{"status", func(r *RGD) {
			r.Status["fixed"] = "literal"
			r.Status["typo"] = "${lokiBuckt.status.bucketName}"
		}, []want{
			{"", "status.fixed", "has no expression"},
			{"", "status.typo", `unknown identifier "lokiBuckt"`},
		}},
		{"functions kro does not have", func(r *RGD) {
			r.Status["sets"] = "${sets.contains([1], [1])}"
			r.Status["call"] = "${nope(schema.spec.team)}"
		}, []want{
			{"", "status.call", "calls nope, which kro's CEL environment does not have"},
			{"", "status.sets", `unknown identifier "sets"`},
		}},
		{"custom types", func(r *RGD) {
			r.Types = map[string]any{"A": "strin", "B": "C", "C": "B", "D": map[string]any{"a": "A"}}
			r.Spec["x"] = "D"
		}, []want{
			{"", "types.A", `unknown type "strin" (did you mean "string"?)`},
			{"", "types.B", "type \"B\" is part of a cycle: B -> C -> B"},
		}},
		{"template structure", func(r *RGD) {
			delete(r.Resources[0].Template, "metadata")
			r.Resources[1].Template["metadata"].(map[string]any)["labels"] = map[string]any{"kro.run/owned": "x"}
		}, []want{
			{"lokiBucket", "template.metadata", "template has no metadata"},
			{"loki", "template.metadata.labels", "labels with prefix kro.run/ are kro's own"},
		}},
		{"nested expression", func(r *RGD) {
			r.Resources[0].Template["spec"].(map[string]any)["region"] = "${a(${b})}"
		}, []want{
			{"lokiBucket", "template.spec.region", `has a "${" inside an expression`},
		}},
		{"built-in kinds", func(r *RGD) {
			r.Resources = append(r.Resources,
				Resource{ID: "ns", Template: map[string]any{"apiVersion": "v1", "kind": "Namespace",
					"metadata": map[string]any{"name": "x", "namespace": "y"}}},
				Resource{ID: "settings", Template: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "x"}, "dat": map[string]any{"a": "b"}}},
				// podSelector is an atomic map, which kro types as any
				// value: the bool below is what it checks.
				Resource{ID: "sa", Template: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
					"metadata": map[string]any{"name": "x"}, "automountServiceAccountToken": "${schema.spec.team}"}},
			)
		}, []want{
			{"ns", "template.metadata.namespace", "Namespace is cluster-scoped: remove metadata.namespace"},
			{"settings", "template.dat", `field "dat" is not in the schema of ConfigMap (did you mean "data"?)`},
			{"sa", "template.automountServiceAccountToken", "returns string but the field takes bool"},
		}},
		{"forEach over a string", func(r *RGD) {
			b := bucket("classBucket", "${cls}")
			b.Template["metadata"].(map[string]any)["name"] = "${schema.metadata.name}-${cls}"
			b.ForEach = []Dimension{{"cls", "${schema.spec.region}"}}
			r.Resources = append(r.Resources, b)
		}, []want{
			{"classBucket", "forEach[0]", `forEach iterator "cls" iterates "schema.spec.region", which returns string, not a list`},
		}},
		{"forEach names collide", func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${cls}")
			b.ForEach = []Dimension{{"cls", "${schema.spec.classes}"}}
			r.Resources = append(r.Resources, b)
		}, []want{
			{"classBucket", "template.metadata.name", "metadata.name or metadata.namespace does not use forEach iterator cls: every element would make an object of the same name"},
		}},
		{"forEach iterator reads another", func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${a + b}")
			b.Template["metadata"].(map[string]any)["name"] = "${a}-${b}"
			b.ForEach = []Dimension{{"a", "${schema.spec.classes}"}, {"b", "${[a]}"}}
			r.Resources = append(r.Resources, b)
		}, []want{
			{"classBucket", "forEach[1]", `forEach iterator "b" reads iterator a`},
		}},
		{"collection readyWhen reads itself by id", func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${cls}")
			b.Template["metadata"].(map[string]any)["name"] = "${cls}"
			b.ForEach = []Dimension{{"cls", "${schema.spec.classes}"}}
			b.ReadyWhen = []string{"${classBucket.status.bucketName != ''}"}
			r.Resources = append(r.Resources, b)
		}, []want{
			{"classBucket", "readyWhen[0]", `of collection "classBucket" references "classBucket": a collection's readyWhen reads each of its objects as each`},
		}},
		{"forEach iterator names", func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${schema.spec.region}")
			b.Template["metadata"].(map[string]any)["name"] = "${item}-${loki}-${a}"
			b.ForEach = []Dimension{{"item", "${schema.spec.classes}"}, {"loki", "${schema.spec.classes}"}, {"a", "${schema.spec.classes}"}, {"a", "${schema.spec.classes}"}}
			r.Resources = append(r.Resources, b)
		}, []want{
			{"classBucket", "forEach[0]", `forEach iterator name "item" is refused`},
			{"classBucket", "forEach[1]", `forEach iterator "loki" has the name of a resource`},
			{"classBucket", "forEach[3]", `forEach iterator "a" is declared twice`},
		}},
		{"externalRef name of the wrong type", func(r *RGD) {
			r.Resources = append(r.Resources, Resource{ID: "creds", ExternalRef: &ExternalRef{APIVersion: "v1", Kind: "Secret", Name: "${schema.spec.retain}"}})
		}, []want{
			{"creds", "externalRef.metadata.name", "returns int but the field takes string"},
		}},
		{"externalRef of an unknown kind", func(r *RGD) {
			r.Resources = append(r.Resources, Resource{ID: "creds", ExternalRef: &ExternalRef{APIVersion: "v1", Kind: "Sekret", Name: "x"}})
		}, []want{
			{"creds", "externalRef.kind", `no schema is known for v1 Sekret (did you mean "Secret"?)`},
		}},
		{"externalRef read as the wrong type", func(r *RGD) {
			r.Resources = append(r.Resources,
				Resource{ID: "creds", ExternalRef: &ExternalRef{APIVersion: "v1", Kind: "Secret", Name: "${schema.spec.team}"}},
				Resource{ID: "cm", Template: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"},
					"data": map[string]any{"k": "${creds.data.key}"}}})
		}, []want{
			{"cm", "template.data.k", "returns bytes but the field takes string"},
		}},
		{"unknown kind", func(r *RGD) {
			r.Resources[0].Template["kind"] = "Volume"
		}, []want{
			{"lokiBucket", "template.kind", "no schema is known for platform.example.org/v1alpha1 Volume"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRGD()
			tt.mutate(r)
			res, probs := Check(r)
			if res != nil {
				t.Errorf("Check returned a result with problems")
			}
			var got []want
			for _, p := range probs {
				if strings.HasPrefix(p.Msg, "kro refuses the graph") {
					t.Errorf("the finer checks missed what kro's builder refuses: %s", p.Msg)
				}
				got = append(got, want{p.Resource, p.Path, p.Msg})
			}
			var wanted []want
			for _, w := range tt.want {
				if w.msg != "" {
					wanted = append(wanted, w)
				}
			}
			if len(got) != len(wanted) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(wanted), fmtProblems(probs))
			}
			for i, w := range wanted {
				if got[i].resource != w.resource || got[i].path != w.path || !strings.Contains(got[i].msg, w.msg) {
					t.Errorf("problem %d = %s | %s | %s\nwant %s | %s | ...%s...", i, got[i].resource, got[i].path, got[i].msg, w.resource, w.path, w.msg)
				}
			}
		})
	}
}

// TestCheckAccepts checks what kro accepts and platc used to refuse.
func TestCheckAccepts(t *testing.T) {
	for name, mutate := range map[string]func(r *RGD){
		"kubernetes cel libraries": func(r *RGD) {
			values := r.Resources[1].Template["spec"].(map[string]any)["sources"].([]any)[0].(map[string]any)["helm"].(map[string]any)["valuesObject"].(map[string]any)
			values["semver"] = "${semver('1.2.3').major()}"
			values["ip"] = "${ip('10.0.0.1').family()}"
			values["cidr"] = "${cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))}"
			values["find"] = "${'abc1'.find('[0-9]')}"
			values["sum"] = "${[1, 2].sum()}"
			values["merge"] = "${{'a': 1}.merge({'b': 2})}"
			values["lists"] = "${lists.insertAtIndex([1, 2], 0, 0)}"
		},
		"markers": func(r *RGD) {
			r.Spec["tags"] = "[]string | listType=set"
			r.Spec["ports"] = "[]integer | listType=atomic"
		},
		"optional in includeWhen": func(r *RGD) {
			r.Spec["tracing"] = map[string]any{"enabled": "boolean"}
			r.Resources[0].IncludeWhen = []string{"${schema.spec.?tracing.?enabled}"}
		},
		"status reads schema": func(r *RGD) { r.Status["region"] = "${schema.spec.region}" },
		"built-in kinds": func(r *RGD) {
			r.Resources = append(r.Resources,
				Resource{ID: "ns", Template: map[string]any{"apiVersion": "v1", "kind": "Namespace",
					"metadata": map[string]any{"name": "team-${schema.metadata.name}", "labels": map[string]any{"team": "${schema.spec.team}"}}}},
				Resource{ID: "settings", Template: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "${schema.metadata.name}-settings", "namespace": "${ns.metadata.name}"},
					"data":     map[string]any{"bucket": "${lokiBucket.status.bucketName}"}}},
				Resource{ID: "policy", Template: map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
					"metadata": map[string]any{"name": "${schema.metadata.name}", "namespace": "${ns.metadata.name}"},
					"spec": map[string]any{"podSelector": map[string]any{}, "policyTypes": []any{"Ingress"},
						"ingress": []any{map[string]any{"ports": []any{map[string]any{"port": "${schema.spec.retain}"}}}}}}},
			)
			r.Status["namespace"] = "${ns.metadata.name}"
			r.Status["keys"] = "${size(settings.data)}"
		},
		"forEach and externalRef": func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${schema.spec.region}")
			b.Template["metadata"].(map[string]any)["name"] = "${schema.metadata.name}-${cls}"
			b.Template["spec"].(map[string]any)["retentionDays"] = "${cls == 'long' ? 365 : 30}"
			b.ForEach = []Dimension{{"cls", "${schema.spec.classes}"}}
			b.ReadyWhen = []string{"${each.status.bucketName != ''}"}
			r.Resources = append(r.Resources, b,
				Resource{ID: "creds", ExternalRef: &ExternalRef{APIVersion: "v1", Kind: "Secret", Name: "${schema.spec.team}-creds", Namespace: "teams"}},
				Resource{ID: "cm", Template: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"},
					"data": map[string]any{"n": "${string(size(classBucket))}", "k": "${string(creds.data.key)}"}}})
			r.Status["buckets"] = "${classBucket.map(b, b.status.bucketName)}"
		},
		// each is typed per collection (kro v0.9.4 keys its extended CEL
		// environments by schema too; v0.9.3 typed every collection's
		// each as the one it checked first, in map order).
		"readyWhen of two collections of different kinds": func(r *RGD) {
			r.Spec["classes"] = `[]string | default=["short","long"]`
			b := bucket("classBucket", "${schema.spec.region}")
			b.Template["metadata"].(map[string]any)["name"] = "${schema.metadata.name}-${cls}"
			b.ForEach = []Dimension{{"cls", "${schema.spec.classes}"}}
			b.ReadyWhen = []string{"${each.status.bucketName != ''}"}
			cm := Resource{ID: "cms", ForEach: []Dimension{{"c", "${schema.spec.classes}"}}, ReadyWhen: []string{"${each.data.ready == 'yes'}"},
				Template: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "${c}"}}}
			r.Resources = append(r.Resources, b, cm)
		},
		"required custom alias": func(r *RGD) {
			r.Types = map[string]any{"Region": "string | required=true"}
			r.Spec["home"] = "Region"
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := validRGD()
			mutate(r)
			if _, probs := Check(r); len(probs) > 0 {
				t.Errorf("problems:\n%s", fmtProblems(probs))
			}
		})
	}
}

func TestInstance(t *testing.T) {
	res, probs := Check(validRGD())
	if len(probs) > 0 {
		t.Fatalf("problems:\n%s", fmtProblems(probs))
	}
	spec, probs := res.Instance(map[string]any{"team": "shop"})
	if len(probs) > 0 {
		t.Fatalf("problems of a valid instance:\n%s", fmtProblems(probs))
	}
	want := map[string]any{"team": "shop", "region": "eu-west-1", "loki": map[string]any{"enabled": true}, "retain": int64(7), "storage": "10Gi"}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("defaulted spec (-want +got):\n%s", diff)
	}
	_, probs = res.Instance(map[string]any{"retain": int64(0), "storage": "1Mi", "colour": "red", "loki": map[string]any{"enabled": "yes"}})
	var got []string
	for _, p := range probs {
		got = append(got, p.Path+": "+p.Msg)
	}
	wantProbs := []string{
		`: required field "team" is missing: set it`,
		`colour: unknown field "colour": the stack's spec has loki, region, retain, storage, team`,
		`loki.enabled: got string "yes", want a boolean`,
		`retain: integer 0 is invalid: should be greater than or equal to 1: change the value (the CRD kro generates refuses it)`,
	}
	if diff := cmp.Diff(wantProbs, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// The rules run once the types are right.
	_, probs = res.Instance(map[string]any{"team": "shop", "storage": "1Mi"})
	if len(probs) != 1 || probs[0].Path != "storage" || !strings.Contains(probs[0].Msg, `breaks the stack's validation rule "quantity(self).isGreaterThan(quantity('1Gi'))"`) {
		t.Errorf("problems of a rule:\n%s", fmtProblems(probs))
	}
}

// TestFractionalBound checks an integer field whose minimum is not an
// integer: kro and the API server accept the CRD, and the API server then
// refuses every value of the field, with an error of no field.
func TestFractionalBound(t *testing.T) {
	r := validRGD()
	r.Spec["half"] = "integer | minimum=0.5"
	res, probs := Check(r)
	if res == nil || len(probs) != 1 || !probs[0].Warning() || probs[0].Path != "spec.half" || !strings.Contains(probs[0].Msg, "write an integer, such as minimum=1") {
		t.Fatalf("got a result %v and problems:\n%s\nwant a result and one warning at spec.half", res != nil, fmtProblems(probs))
	}
	if _, probs := res.Instance(map[string]any{"team": "shop"}); len(probs) > 0 {
		t.Errorf("an instance without the field: problems:\n%s", fmtProblems(probs))
	}
	_, probs = res.Instance(map[string]any{"team": "shop", "half": int64(1)})
	if len(probs) != 1 || probs[0].Path != "half" || !strings.Contains(probs[0].Msg, "refuses every value of this field: its minimum is not of the field's type") {
		t.Errorf("an instance with the field: problems:\n%s\nwant one at half", fmtProblems(probs))
	}
}

func TestProgram(t *testing.T) {
	res, probs := Check(validRGD())
	if len(probs) > 0 {
		t.Fatalf("problems:\n%s", fmtProblems(probs))
	}
	schema := map[string]any{
		"metadata": map[string]any{"name": "shop", "namespace": "obs"},
		"spec":     map[string]any{"team": "shop", "retain": int64(3), "storage": "2Gi"},
		"status":   map[string]any{"hidden": true},
	}
	for _, tt := range []struct {
		expr string
		want any
		refs []string
	}{
		{"schema.spec.team", "shop", []string{"schema"}},
		{"schema.spec.retain + 1", int64(4), []string{"schema"}},
		{"quantity(schema.spec.storage).asInteger()", int64(2 << 30), []string{"schema"}},
		{"url('https://a.example.com:8443/x').getPort()", "8443", nil},
		{"base64.encode(hash.sha256('a'))", "ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=", nil},
		{"json.marshal({'a': 1})", `{"a":1}`, nil},
		{"random.seededString(5, 'seed')", "qakd4", nil},
		{"schema.spec.items.map(x, x)", nil, []string{"schema"}}, // an error: no such key
		{"has(schema.status)", false, []string{"schema"}},        // kro hides the instance's status
		{"lokiBucket.status.bucketName", nil, []string{"lokiBucket"}},
	} {
		p, err := res.Program(tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if diff := cmp.Diff(tt.refs, p.Refs()); diff != "" {
			t.Errorf("%s: refs (-want +got):\n%s", tt.expr, diff)
		}
		if tt.refs != nil && tt.refs[0] == "lokiBucket" {
			continue // known in the cluster only
		}
		got, err := p.Eval(map[string]any{"schema": schema})
		if tt.want == nil {
			if err == nil {
				t.Errorf("%s = %v, want an error", tt.expr, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func TestSegments(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []Segment
	}{
		{"plain", []Segment{{Text: "plain"}}},
		{"", []Segment{{Text: ""}}},
		{"${a}", []Segment{{Text: "a", Expr: true}}},
		{"x-${a}-${b}", []Segment{{Text: "x-"}, {Text: "a", Expr: true}, {Text: "-"}, {Text: "b", Expr: true}}},
		{`${{"a": 1}}`, []Segment{{Text: `{"a": 1}`, Expr: true}}},
		{"${unterminated", []Segment{{Text: "${unterminated"}}},
	} {
		got, err := Segments(tt.in)
		if err != nil {
			t.Errorf("Segments(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Segments(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := Segments("${a(${b})}"); err == nil {
		t.Error("a nested expression splits")
	}
}

// TestCache checks that an accepted RGD is kept, and that the kept result
// is the one Check computes.
func TestCache(t *testing.T) {
	cache := &cachetest.Memory{}
	r := validRGD()
	r.Cache = cache
	first, probs := Check(r)
	if len(probs) > 0 || cache.Len() != 1 {
		t.Fatalf("problems %v, %d cache entries", probs, cache.Len())
	}
	second, _ := Check(r)
	if diff := cmp.Diff(first.CRD, second.CRD); diff != "" {
		t.Errorf("cached CRD (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(first.Order, second.Order); diff != "" {
		t.Errorf("cached order (-first +second):\n%s", diff)
	}
	r.Kind = "logStack"
	if _, probs := Check(r); len(probs) == 0 {
		t.Error("a changed RGD is taken from the cache")
	}
	if cache.Len() != 1 {
		t.Errorf("a refused RGD is kept: %d entries", cache.Len())
	}
}

// TestCacheMissesBadEntries checks that each kind of kro's entries (an
// accepted RGD's, an instance's, a template's over the schema) that is
// cut, has a byte more or is of another format is a miss: the outcome is
// computed again, the same as without a cache, and its entry written
// again.
func TestCacheMissesBadEntries(t *testing.T) {
	rgd := validRGD()
	rgd.Spec["half"] = "integer | minimum=0.5" // a warning
	spec := map[string]any{"team": "shop", "colour": "red"}
	const template = "${schema.spec.regin}"
	outcome := func() string {
		r, warnings := Check(rgd)
		if r == nil {
			t.Fatalf("check: %v", warnings)
		}
		defaulted, probs := r.Instance(spec)
		return fmt.Sprintf("%v %v %v %v %v\n%v %v\n%v", r.CRD, r.Deps, r.Order, r.Iterators, warnings, defaulted, probs, r.CheckOverSchema(template))
	}
	want := outcome()
	cache := &cachetest.Memory{}
	rgd.Cache = cache
	if got := outcome(); got != want {
		t.Fatalf("with a cache:\n%s\nwant\n%s", got, want)
	}
	if cache.Len() != 3 {
		t.Fatalf("%d entries, want 3: %q", cache.Len(), cache.Keys())
	}
	for _, key := range cache.Keys() {
		entry, _ := cache.Get(key)
		for what, edit := range map[string]func([]byte) []byte{
			"cut in half":     func(b []byte) []byte { return b[:len(b)/2] },
			"cut by one byte": func(b []byte) []byte { return b[:len(b)-1] },
			"a byte more":     func(b []byte) []byte { return append(slices.Clone(b), 0) },
			"another format":  func(b []byte) []byte { return bytes.Replace(b, []byte("platc"), []byte("plate"), 1) },
			"an earlier JSON": func([]byte) []byte { return []byte(`{"CRD":{},"Deps":{}}`) },
			"an empty entry":  func([]byte) []byte { return nil },
		} {
			cache.Edit(key, edit)
			puts := cache.Puts()
			if got := outcome(); got != want {
				t.Errorf("%s %s:\n%s\nwant\n%s", key, what, got, want)
			}
			if again, _ := cache.Get(key); cache.Puts() != puts+1 || !bytes.Equal(again, entry) {
				t.Errorf("%s %s: %d puts, want 1, the entry as it was", key, what, cache.Puts()-puts)
			}
		}
	}
}

// TestCacheInstances checks that an instance's validation is kept by the
// cache and read back as it was made: the defaults with their types (an
// integer and a float CEL reads apart), and the problems; and that the
// warnings of an RGD are kept with it.
func TestCacheInstances(t *testing.T) {
	r := validRGD()
	r.Spec["ratio"] = "float | default=1.0"
	r.Spec["replicas"] = "integer | default=2"
	r.Spec["half"] = "integer | minimum=0.5" // a warning
	specs := []map[string]any{
		{"team": "shop", "tags": []any{"a"}},
		{"team": "shop", "retain": int64(0), "half": int64(1)},
		{"colour": "red"},
	}
	uncached, _ := Check(r)
	cache := &cachetest.Memory{}
	r.Cache = cache
	first, firstWarnings := Check(r)
	for _, spec := range specs {
		first.Instance(spec)
	}
	if cache.Len() != 1+len(specs) {
		t.Fatalf("%d cache entries, want one for the RGD and one per instance spec", cache.Len())
	}
	second, secondWarnings := Check(r)
	if len(firstWarnings) != 1 || !cmp.Equal(firstWarnings, secondWarnings) {
		t.Errorf("warnings %v, then from the cache %v, want one, the same", firstWarnings, secondWarnings)
	}
	for _, spec := range specs {
		wantSpec, wantProbs := uncached.Instance(spec)
		gotSpec, gotProbs := second.Instance(spec)
		if diff := cmp.Diff(wantSpec, gotSpec); diff != "" {
			t.Errorf("%v: defaulted spec from the cache (-uncached +cached):\n%s", spec, diff)
		}
		if diff := cmp.Diff(wantProbs, gotProbs); diff != "" {
			t.Errorf("%v: problems from the cache (-uncached +cached):\n%s", spec, diff)
		}
	}
	if cache.Len() != 1+len(specs) {
		t.Errorf("%d cache entries after the second run, want %d", cache.Len(), 1+len(specs))
	}
	if ratio, _ := second.Instance(specs[0]); fmt.Sprintf("%T %T", ratio["ratio"], ratio["replicas"]) != "float64 int64" {
		t.Errorf("defaults from the cache have types %T and %T, want float64 and int64", ratio["ratio"], ratio["replicas"])
	}
}

// TestWarningHidesNoError checks that a warning at a field (a default kro
// stores otherwise) does not stop the checks that refuse the field: the
// conformance suite found a validation rule kro refuses hidden so.
func TestWarningHidesNoError(t *testing.T) {
	r := validRGD()
	r.Spec["f2"] = `string | validation="schema.spec.f0 == 1" default="\\n"`
	_, probs := Check(r)
	var warned, refused bool
	for _, p := range probs {
		if p.Path == "spec.f2" {
			warned = warned || p.ID == diag.KroDefault
			refused = refused || !p.Warning()
		}
	}
	if !warned || !refused {
		t.Errorf("problems:\n%s\nwant a warning and an error at spec.f2", fmtProblems(probs))
	}
}
