package report

import (
	"testing"

	"github.com/platc/platc/compiler/argocd"
)

func TestCronWords(t *testing.T) {
	for schedule, want := range map[string]string{
		"0 20 * * 1-4":  "20:00 on Monday to Thursday",
		"30 6 * * *":    "06:30 every day",
		"0 0 24 12 *":   "00:00 on 24 December",
		"15 3 1 * *":    "03:15 on day 1 of every month",
		"0 9 * * 0":     "09:00 on Sundays",
		"0 9 * * 1,3,5": "09:00 on Monday, Wednesday and Friday",
		"0 9 * * 7":     "09:00 on Sundays",
		"*/5 * * * *":   "each time the schedule says",
		"0 9 * 1-3 *":   "each time the schedule says",
		"0 9 * * MON":   "each time the schedule says",
		"0 24 * * *":    "each time the schedule says",
		"0 9 * *":       "each time the schedule says",
	} {
		if got := cronWords(schedule); got != want {
			t.Errorf("cronWords(%q) = %q, want %q", schedule, got, want)
		}
	}
}

func TestDurationWords(t *testing.T) {
	for d, want := range map[string]string{"4h": "4 hours", "1h": "1 hour", "192h": "8 days", "24h": "1 day", "90m": "90 minutes", "1h30m": "90 minutes", "45s": "45s", "soon": "soon"} {
		if got := durationWords(d); got != want {
			t.Errorf("durationWords(%q) = %q, want %q", d, got, want)
		}
	}
}

func TestWindowWords(t *testing.T) {
	w := argocd.SyncWindow{Kind: "deny", Schedule: "0 22 * * 5", Duration: "48h", Namespaces: []string{"shop", "db"}, Clusters: []string{"*"}, UseAndOperator: true}
	want := "no syncs for 2 days from 22:00 on Fridays, UTC time (0 22 * * 5), for namespaces shop, db and every one of its clusters"
	if got := windowWords(w); got != want {
		t.Errorf("windowWords = %q, want %q", got, want)
	}
}

func TestRoleWords(t *testing.T) {
	r := argocd.Role{Name: "ops", Policies: []string{
		"p, proj:shop:ops, applications, *, shop/*, allow",
		"p, proj:shop:ops, applications, delete, shop/db, deny",
	}, Groups: []string{"acme:ops", "acme:sre"}}
	want := "ops: may do anything to applications shop/*, may not delete applications shop/db; held by acme:ops, acme:sre"
	if got := roleWords(r); got != want {
		t.Errorf("roleWords = %q, want %q", got, want)
	}
}

func TestDescribeDefaultProject(t *testing.T) {
	got := describeProject(argocd.DefaultProject().Spec()).Lines
	want := []permission{
		{"Syncs from", []string{"any repository"}},
		{"Deploys to", []string{"any namespace of any cluster"}},
		{"Cluster-scoped kinds it may create", []string{"every kind"}},
		{"Namespaced kinds", []string{"every kind"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].What != want[i].What || len(got[i].Items) != 1 || got[i].Items[0] != want[i].Items[0] {
			t.Errorf("line %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func TestKinds(t *testing.T) {
	got := kinds([]argocd.ResourceRule{{Group: "", Kind: "Namespace"}, {Group: "apps", Kind: "*"}, {Group: "*", Kind: "Secret"}, {Group: "*", Kind: "*"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"}})
	want := []string{"Namespace", "every kind (apps)", "Secret of any API group", "every kind", "ClusterRole (rbac.authorization.k8s.io) named admin"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
}
