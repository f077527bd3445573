package verify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// TestNameProblems: names are judged as each kind's API server strategy
// judges them.
func TestNameProblems(t *testing.T) {
	for _, c := range []struct {
		group, kind, name string
		ok                bool
	}{
		{"", "ConfigMap", "web.config", true},
		{"", "ConfigMap", "Web", false},
		{"", "Namespace", "web.team", false},
		{"", "Namespace", "web-team", true},
		{"", "Service", "1web", false},
		{"", "Service", "web-1", true},
		{"rbac.authorization.k8s.io", "ClusterRole", "system:metrics-reader", true},
		{"rbac.authorization.k8s.io", "ClusterRole", "a/b", false},
		{"example.org", "Widget", "widget_1", false},
	} {
		if got := len(nameProblems(c.group, c.kind, c.name)) == 0; got != c.ok {
			t.Errorf("%s %s %q: valid = %v, want %v", c.group, c.kind, c.name, got, c.ok)
		}
	}
}

// TestRenderedObjectsJudgedOnce checks what renderedObjects says of a
// chart's objects, judged once per outcome (objectsOf), for two
// Applications sharing the outcome: each is told of every problem, in
// its own words, once per object.
func TestRenderedObjectsJudgedOnce(t *testing.T) {
	out := charts.NewOutcome([]charts.Manifest{
		{Source: "web/templates/a.yaml", Object: map[string]any{"kind": "ConfigMap"}},
		{Source: "web/templates/b.yaml", Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{}}},
		{Source: "web/templates/c.yaml", Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"generateName": "web-"}}},
		{Source: "web/templates/d.yaml", Object: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "1web", "namespace": "Web"}}},
		{Source: "web/templates/d.yaml", Object: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "1web", "namespace": "Web"}}},
		{Source: "web/templates/e.yaml", Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web", "namespace": "web"}}},
		{Source: "web/templates/f.yaml", Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject", "metadata": map[string]any{"name": "team"}, "spec": map[string]any{"sourceRepo": "x"}}},
		// A field platc's CRD lacks and Argo CD's declares (helm.values)
		// passes; one neither declares does not.
		{Source: "web/templates/h.yaml", Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": map[string]any{"name": "child"}, "spec": map[string]any{
			"project":     "default",
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "web"},
			"source":      map[string]any{"repoURL": "https://charts.example.com", "chart": "web", "targetRevision": "1.0.0", "helm": map[string]any{"values": "a: 1", "version": "v3", "valuez": "b: 2"}},
		}}},
		{Source: "web/crds/g.yaml", CRD: true, Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject", "metadata": map[string]any{"name": "Team"}, "spec": map[string]any{"sourceRepo": "x"}}},
	}...)
	log := &diag.Log{}
	v := &verifier{in: Input{Spec: &model.Spec{}}, log: log, judged: map[*charts.Outcome]*judgedOutcome{}}
	env := &model.Environment{Name: "dev"}
	e := &envArgo{projects: map[string]*project{}, permissions: &argocd.Permissions{}}
	for _, name := range []string{"web", "web-2"} {
		a := app{obj: map[string]any{"metadata": map[string]any{"name": name}}, file: "out/" + name + ".yaml", origin: "modules." + name, spec: &argocd.App{}}
		v.renderedObjects(env, a, "chart web 1.0.0", out, e)
	}
	if len(v.judged) != 1 {
		t.Errorf("%d outcomes judged, want 1", len(v.judged))
	}
	var want []string
	for _, name := range []string{"web", "web-2"} {
		app := fmt.Sprintf("Application %q (out/%s.yaml)", name, name)
		for _, m := range []string{
			"chart web 1.0.0 renders an object without apiVersion or kind for " + app + ", in web/templates/a.yaml: Argo CD refuses the manifests [manifest]",
			"chart web 1.0.0 renders ConfigMap web/templates/b.yaml without a name for " + app + ": Kubernetes refuses it [resource-name]",
			`chart web 1.0.0 renders Service "1web" (web/templates/d.yaml) for ` + app + ", a name Kubernetes refuses: " + strings.Join(validation.IsDNS1035Label("1web"), "; ") + " [resource-name]",
			`chart web 1.0.0 renders Service "1web" (web/templates/d.yaml) in namespace "Web" for ` + app + ", which Kubernetes refuses: " + strings.Join(validation.IsDNS1123Label("Web"), "; ") + " [resource-name]",
			`chart web 1.0.0 renders AppProject "team" (web/templates/f.yaml) for ` + app + `, which its CRD refuses: /spec/sourceRepo: unknown field "sourceRepo" [object-schema]`,
			`chart web 1.0.0 renders Application "child" (web/templates/h.yaml) for ` + app + `, which its CRD refuses: /spec/source/helm/valuez: unknown field "valuez" [object-schema]`,
			// A file of crds/ is not validated, but its name is judged.
			`chart web 1.0.0 renders AppProject "Team" (web/crds/g.yaml) for ` + app + ", a name Kubernetes refuses: " + strings.Join(validation.IsDNS1123Subdomain("Team"), "; ") + " [resource-name]",
		} {
			want = append(want, fmt.Sprintf("platc: modules.%s: %s", name, m))
		}
	}
	slices.Sort(want)
	got := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renderedObjects says (+), want (-):\n%s", diff)
	}
}

// TestValuesJSON: a valuesObject's JSON, encoded once per map, is its
// JSON whether asked for the first time or again, for a map shared by
// Applications, a map with an object.Map inside, and values that are no
// map.
func TestValuesJSON(t *testing.T) {
	v := &verifier{}
	shared := map[string]any{"replicaCount": 2.0, "image": map[string]any{"tag": "1.2"}}
	other := map[string]any{"replicaCount": 3.0, "labels": object.NewMap().Set("team", "web")}
	for range 2 {
		for _, vo := range []any{shared, other, []any{"a"}, "plain"} {
			want, err := json.Marshal(object.Plain(vo))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.valuesJSON(vo); string(got) != string(want) {
				t.Errorf("valuesJSON(%v) = %s, want %s", vo, got, want)
			}
		}
	}
}
