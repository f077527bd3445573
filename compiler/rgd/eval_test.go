package rgd

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvalTemplate(t *testing.T) {
	e, err := newEvaluator([]string{"db"})
	if err != nil {
		t.Fatal(err)
	}
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
		// kro's own functions are evaluated by kro, in the cluster.
		{"${json.marshal(schema.spec.items)}", "<from the cluster: json.marshal(schema.spec.items)>"},
		{"h-${string(hash.sha256(schema.spec.name))}", "h-<from the cluster: string(hash.sha256(schema.spec.name))>"},
	}
	for _, tt := range tests {
		got, err := evalTemplate(e, tt.tmpl, vars, pending)
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
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"schema": map[string]any{"spec": map[string]any{"size": int64(3)}}}
	for _, tt := range []struct{ tmpl, want string }{
		{"${schema.spec.missing}", "schema.spec.missing: no such key: missing"},
		{"a-${schema.spec.size}", "schema.spec.size: in a string template every expression must be a string, this one is integer 3"},
	} {
		_, err := evalTemplate(e, tt.tmpl, vars, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("evalTemplate(%s) = %v, want the error %q", tt.tmpl, err, tt.want)
		}
	}
}
