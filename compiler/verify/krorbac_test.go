package verify

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/platc/platc/compiler/charts"
)

// TestAllows holds the port of Kubernetes' RBAC matching to its rules: a
// verb, group and resource of the rule or "*", a subresource by name,
// "*" (every resource and subresource) or "*/status", never a rule that
// names objects.
func TestAllows(t *testing.T) {
	rule := func(verbs, groups, resources []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
	}
	all := []string{"*"}
	for _, c := range []struct {
		rule rbacv1.PolicyRule
		want bool
	}{
		{rule(all, all, all), true},
		{rule([]string{"patch"}, []string{"kro.run"}, []string{"things/status"}), true},
		{rule([]string{"get", "update"}, []string{"kro.run"}, []string{"things/status"}), false},
		{rule([]string{"patch"}, []string{"kro.run"}, []string{"things"}), false},
		{rule([]string{"patch"}, []string{"kro.run"}, []string{"*/status"}), true},
		{rule([]string{"patch"}, []string{"kro.run"}, []string{"*/scale"}), false},
		{rule([]string{"patch"}, []string{"other.io"}, []string{"things/status"}), false},
		{rule([]string{"*"}, []string{"*"}, []string{"things/*"}), false},
		{rbacv1.PolicyRule{Verbs: all, APIGroups: all, Resources: all, ResourceNames: []string{"one"}}, false},
	} {
		if got := allows([]rbacv1.PolicyRule{c.rule}, "patch", "kro.run", "things", "status"); got != c.want {
			t.Errorf("allows(%+v) = %t, want %t", c.rule, got, c.want)
		}
	}
}

// TestGrantedRules: an aggregating ClusterRole has the rules of every
// other ClusterRole its selectors match, as the controller-manager
// writes them, and its own.
func TestGrantedRules(t *testing.T) {
	role := func(name string, labels map[string]string, resources ...string) rbacv1.ClusterRole {
		var r rbacv1.ClusterRole
		r.Name, r.Labels = name, labels
		r.Rules = []rbacv1.PolicyRule{{Verbs: []string{"patch"}, APIGroups: []string{"kro.run"}, Resources: resources}}
		return r
	}
	agg := role("kro:controller", nil, "resourcegraphdefinitions/status")
	if !decodeObject(map[string]any{"aggregationRule": map[string]any{"clusterRoleSelectors": []any{
		map[string]any{"matchLabels": map[string]any{"rbac.kro.run/aggregate-to-controller": "true"}},
	}}}, &agg) {
		t.Fatal("the aggregation rule does not decode")
	}
	roles := []rbacv1.ClusterRole{
		agg,
		role("things", map[string]string{"rbac.kro.run/aggregate-to-controller": "true"}, "things/status"),
		role("widgets", map[string]string{"rbac.kro.run/aggregate-to-controller": "false"}, "widgets/status"),
	}
	rules, aggregates := grantedRules(roles, []string{"kro:controller"})
	if !aggregates || len(rules) != 2 {
		t.Fatalf("grantedRules = %+v, %t", rules, aggregates)
	}
	for resource, want := range map[string]bool{"resourcegraphdefinitions": true, "things": true, "widgets": false} {
		if got := allows(rules, "patch", "kro.run", resource, "status"); got != want {
			t.Errorf("%s/status: %t, want %t", resource, got, want)
		}
	}
	if rules, aggregates := grantedRules(roles, []string{"things"}); aggregates || len(rules) != 1 {
		t.Errorf("a role that aggregates nothing: %+v, %t", rules, aggregates)
	}
}

func TestKroAccounts(t *testing.T) {
	ms := []charts.Manifest{
		{Object: map[string]any{"kind": "Deployment", "spec": map[string]any{"template": map[string]any{"spec": map[string]any{"serviceAccountName": "kro"}}}}},
		{Object: map[string]any{"kind": "Deployment", "metadata": map[string]any{"namespace": "elsewhere"}}},
		{Object: map[string]any{"kind": "ServiceAccount", "metadata": map[string]any{"name": "other"}}},
	}
	if got, want := kroAccounts(ms, "kro-system"), []string{"kro-system/kro", "elsewhere/default"}; !slices.Equal(got, want) {
		t.Errorf("kroAccounts = %v, want %v", got, want)
	}
}
