package rgd

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/kro"
)

// testResult is kro's result for a stack with a spec of a name, a list
// and a number, and a database.
func testResult(t *testing.T) *kro.Result {
	t.Helper()
	res, probs := kro.Check(&kro.RGD{
		APIVersion: "v1alpha1",
		Kind:       "Shop",
		Group:      "shops.example.org",
		Spec:       map[string]any{"name": "string", "items": "[]string", "size": "integer"},
		Resources: []kro.Resource{{
			ID: "db",
			Template: map[string]any{
				"apiVersion": "platform.example.org/v1alpha1",
				"kind":       "PostgresInstance",
				"metadata":   map[string]any{"name": "${schema.metadata.name}-db"},
				"spec": map[string]any{
					"region": "eu-west-1", "engineVersion": "16", "instanceClass": "small", "storageGB": int64(10), "databaseName": "shop",
				},
			},
		}},
	})
	if len(probs) > 0 {
		t.Fatalf("the test stack does not check: %v", probs)
	}
	return res
}

func TestEvalTemplate(t *testing.T) {
	r := testResult(t)
	vars := map[string]any{"schema": map[string]any{"spec": map[string]any{
		"name":  "shop",
		"items": []any{"a", "b"},
		"size":  int64(3),
	}}}
	// pending is the preview's: anything but schema is known only in the
	// cluster.
	pending := func(refs []string) bool {
		return slices.ContainsFunc(refs, func(r string) bool { return r != "schema" })
	}
	tests := []struct {
		tmpl string
		want any
	}{
		{"${schema.spec.name}", "shop"},
		{"${schema.spec.size}", int64(3)},
		{"app-${schema.spec.name}-${string(schema.spec.size)}", "app-shop-3"},
		// A comprehension's variables are its own, not the cluster's.
		{"${schema.spec.items.map(x, x + '-1')}", []any{"a-1", "b-1"}},
		{"${cel.bind(n, schema.spec.name, n + n)}", "shopshop"},
		// A function's namespace is not a variable.
		{"${strings.quote(schema.spec.name)}", `"shop"`},
		// A resource's status is the cluster's.
		{"${db.status.endpoint}", "<from the cluster: db.status.endpoint>"},
		{"url-${db.status.endpoint}", "url-<from the cluster: db.status.endpoint>"},
		// A list or a map is one, its values from the cluster marked:
		// a chart's templates read it as kro will set it.
		{`${[{"secretRef": {"name": db.status.credentialsSecretRef.name}}]}`, []any{map[string]any{"secretRef": map[string]any{"name": "<from the cluster: db.status.credentialsSecretRef.name>"}}}},
		{`${{"host": db.status.endpoint, "name": schema.spec.name, "db": db.status.databaseName}}`, map[string]any{"host": "<from the cluster: db.status.endpoint>", "name": "shop", "db": "<from the cluster: db.status.databaseName>"}},
		// One that computes with what the cluster knows, or reads a
		// resource whole, is a placeholder whole.
		{"${[db.status.port + 1]}", "<from the cluster: [db.status.port + 1]>"},
		{"${[db.status, db.status.endpoint]}", "<from the cluster: [db.status, db.status.endpoint]>"},
		{"${[has(db.status.endpoint)]}", "<from the cluster: [has(db.status.endpoint)]>"},
		{"${[db]}", "<from the cluster: [db]>"},
		// kro's own functions and the Kubernetes libraries evaluate
		// offline, in kro's environment.
		{"${json.marshal(schema.spec.items)}", `["a","b"]`},
		{"h-${base64.encode(hash.sha256(schema.spec.name))}", "h-jZAB0yxqcD2Vkhp3EVBQ8z3YI9PxcwvTUhXcvsrW3CA="},
		{"${quantity('1Ki').asInteger()}", int64(1024)},
	}
	for _, tt := range tests {
		got, err := evalTemplate(r, tt.tmpl, vars, pending)
		if err != nil {
			t.Errorf("evalTemplate(%s): %v", tt.tmpl, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("evalTemplate(%s) (-want +got):\n%s", tt.tmpl, diff)
		}
	}
}

func TestEvalTemplateErrors(t *testing.T) {
	r := testResult(t)
	vars := map[string]any{"schema": map[string]any{"spec": map[string]any{"size": int64(3)}}}
	for _, tt := range []struct{ tmpl, want string }{
		{"${schema.spec.missing}", "schema.spec.missing: no such key: missing"},
		{"a-${schema.spec.size}", "schema.spec.size: in a string template every expression must be a string, this one is integer 3"},
		{"${string(hash.sha256('a'))}", "string(hash.sha256('a')): invalid UTF-8 in bytes, cannot convert to string"},
	} {
		_, err := evalTemplate(r, tt.tmpl, vars, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("evalTemplate(%s) = %v, want the error %q", tt.tmpl, err, tt.want)
		}
	}
}
