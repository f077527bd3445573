package verify

import "testing"

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
