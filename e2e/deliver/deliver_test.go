package deliver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFillStatus(t *testing.T) {
	props := map[string]any{
		"bucketName": map[string]any{"type": "string"},
		"endpoint":   map[string]any{"type": "string"},
		"port":       map[string]any{"type": "integer"},
		"ready":      map[string]any{"type": "boolean"},
		"credentialsSecretRef": map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string"},
		}},
		"conditions": map[string]any{"type": "array"},
	}
	want := map[string]any{
		"bucketName":           "b-bucketname",
		"endpoint":             "https://b.endpoint.invalid",
		"port":                 1,
		"ready":                true,
		"credentialsSecretRef": map[string]any{"name": "b-name"},
	}
	if got := fillStatus("b", props); !reflect.DeepEqual(got, want) {
		t.Errorf("fillStatus = %v, want %v", got, want)
	}
}

func TestRemoveBlock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cue")
	os.WriteFile(file, []byte("modules: {\n\ta: {\n\t\tpath: \"x\"\n\t}\n\t\"b-c\": {\n\t\tpath: \"y\"\n\t\tx: {n: 1}\n\t}\n\td: {path: \"z\"}\n}\n"), 0o644)
	if err := RemoveBlock(file, "b-c"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if want := "modules: {\n\ta: {\n\t\tpath: \"x\"\n\t}\n\td: {path: \"z\"}\n}\n"; string(got) != want {
		t.Errorf("after RemoveBlock:\n%s\nwant:\n%s", got, want)
	}
	if err := RemoveBlock(file, "d"); err == nil {
		t.Error("RemoveBlock of a one-line field: no error")
	}
}

func TestRewriteLongerURLFirst(t *testing.T) {
	r := &Rig{urls: map[string]string{
		"https://git.example.com/p.git":        "file:///p",
		"https://git.example.com/p.git-values": "file:///v",
	}}
	got := string(r.Rewrite([]byte("a: https://git.example.com/p.git\nb: https://git.example.com/p.git-values\n")))
	if want := "a: file:///p\nb: file:///v\n"; got != want {
		t.Errorf("Rewrite = %q, want %q", got, want)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		app  App
		want string
	}{
		{App{Sync: "Synced", Health: "Healthy"}, VerdictOK},
		{App{Sync: "Unknown", Health: "Healthy", Error: "ComparisonError: failed to fetch chart: helm pull --repo https://charts.example.com web: lookup charts.example.com: no such host", hosts: []string{"charts.example.com"}}, VerdictUnreachable},
		// A chart on this machine that fails is no unreachable one.
		{App{Sync: "Unknown", Error: "ComparisonError: chart web-1.1.0 not found in https://127.0.0.1:4000", hosts: []string{"127.0.0.1:4000"}}, VerdictWaiting},
		// The error must name the chart's host.
		{App{Sync: "OutOfSync", Error: "one or more objects failed to apply", hosts: []string{"charts.example.com"}}, VerdictWaiting},
		{App{Sync: "OutOfSync", Error: "GIT/GPG: Failed verifying revision v1.0.0 by 'x': unsigned (key_id=)"}, VerdictUnsigned},
		{App{Sync: "OutOfSync", Error: "Cannot sync: Blocked by sync window", ByHand: "manual"}, VerdictWindow},
	} {
		if got := verdict(&tc.app); got != tc.want {
			t.Errorf("verdict(%+v) = %s, want %s", tc.app, got, tc.want)
		}
	}
}

// TestStuckBelow: the Application of a stack's instances is Progressing
// while an instance waits on an Application of its whose chart is
// unreachable, and so is the root above it; both are blocked by that
// Application. One that also waits on an instance with nothing stuck
// below it stays waiting.
func TestStuckBelow(t *testing.T) {
	web := &App{Namespace: "sites", Name: "blue-web", Parent: "Site/blue", Verdict: VerdictUnreachable}
	sites := &App{Namespace: "argocd", Name: "sites", Parent: "root", Sync: "Synced", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"kro.run", "Site", "sites", "blue"}, {"kro.run", "Site", "sites", "red"}}}
	root := &App{Namespace: "argocd", Name: "root", Sync: "Synced", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"argoproj.io", "Application", "argocd", "sites"}}}
	other := &App{Namespace: "argocd", Name: "other", Sync: "Synced", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"kro.run", "Site", "sites", "blue"}, {"kro.run", "Site", "sites", "green"}}}
	outOfSync := &App{Namespace: "argocd", Name: "late", Sync: "OutOfSync", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"kro.run", "Site", "sites", "blue"}}}
	stuckBelow([]*App{root, other, sites, web, outOfSync}, []*Instance{{Kind: "Site", Name: "blue", State: "IN_PROGRESS"}, {Kind: "Site", Name: "green", State: "IN_PROGRESS"}, {Kind: "Site", Name: "red", State: "ACTIVE"}})
	for _, tc := range []struct {
		app            *App
		verdict, cause string
	}{
		{sites, VerdictBlocked, "sites/blue-web"},
		{root, VerdictBlocked, "sites/blue-web"},
		{other, VerdictWaiting, ""},
		{outOfSync, VerdictWaiting, ""},
		{web, VerdictUnreachable, ""},
	} {
		if tc.app.Verdict != tc.verdict || tc.app.Cause != tc.cause {
			t.Errorf("%s: %s (cause %q), want %s (cause %q)", tc.app.Name, tc.app.Verdict, tc.app.Cause, tc.verdict, tc.cause)
		}
	}
}

// TestKwokReason: what kwok cannot make Healthy, and what it can.
func TestKwokReason(t *testing.T) {
	apiService := liveResource{syncedResource: syncedResource{group: "apiregistration.k8s.io", kind: "APIService", name: "v1beta1.external.metrics.k8s.io"}}
	unavailable := map[string]any{
		"spec":   map[string]any{"service": map[string]any{"name": "keda-operator-metrics-apiserver", "namespace": "keda"}},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck"}}},
	}
	schedule := liveResource{syncedResource: syncedResource{group: "velero.io", kind: "Schedule", namespace: "velero", name: "daily"}}
	for _, tc := range []struct {
		name  string
		r     liveResource
		obj   map[string]any
		owner string
		want  string // a substring; "" for no reason
	}{
		{"an APIService the API server cannot reach", apiService, unavailable, "", "Service keda/keda-operator-metrics-apiserver, whose pods kwok fakes"},
		{"an APIService unavailable for another reason", apiService, map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "False", "reason": "ServiceNotFound"}}}}, "", ""},
		{"a custom resource its operator never wrote", schedule, map[string]any{"spec": map[string]any{}}, "argocd/velero", "argocd/velero's controller"},
		{"a custom resource with a status", schedule, map[string]any{"status": map[string]any{"phase": "FailedValidation"}}, "argocd/velero", ""},
		{"a custom resource no Application installs", schedule, map[string]any{}, "", ""},
		{"a resource that is not there", schedule, nil, "argocd/velero", ""},
	} {
		got := kwokReason(tc.r, tc.obj, tc.owner)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestStuckBelowKwok: an Application Progressing only because what it
// syncs waits on Applications not healthy on kwok is not healthy on kwok
// too; one that also waits on an unreachable one is blocked.
func TestStuckBelowKwok(t *testing.T) {
	keda := &App{Namespace: "argocd", Name: "keda", Parent: "platform-operators", Sync: "Synced", Health: "Progressing", Verdict: VerdictKwok}
	mimir := &App{Namespace: "obs", Name: "mimir", Parent: "Stack/b", Verdict: VerdictUnreachable}
	ops := &App{Namespace: "argocd", Name: "platform-operators", Sync: "Synced", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"argoproj.io", "Application", "argocd", "keda"}}}
	stacks := &App{Namespace: "argocd", Name: "stacks", Sync: "Synced", Health: "Progressing", Verdict: VerdictWaiting,
		syncs: []syncedResource{{"argoproj.io", "Application", "argocd", "keda"}, {"argoproj.io", "Application", "obs", "mimir"}}}
	stuckBelow([]*App{keda, mimir, ops, stacks}, nil)
	if ops.Verdict != VerdictKwok || len(ops.Kwok) == 0 || !strings.Contains(ops.Kwok[0], "argocd/keda") {
		t.Errorf("platform-operators: %s %v", ops.Verdict, ops.Kwok)
	}
	if stacks.Verdict != VerdictBlocked {
		t.Errorf("stacks: %s, want blocked", stacks.Verdict)
	}
}

// TestRealChartsSummary: the e2e line counts the real charts served,
// names those not served and why, and counts the Applications delivered
// with one by verdict.
func TestRealChartsSummary(t *testing.T) {
	r := &Report{}
	r.AddPins([]*ChartPin{
		{Name: "kro", Chart: "kro", Version: "v0.9.3", Served: true, Real: true, Corpus: "../shared/charts"},
		{Name: "keda", Chart: "keda", Version: "2.20.2", Served: true, Real: true, Corpus: "../shared/charts"},
		{Name: "mimir", Chart: "mimir-distributed", Version: "6.0.5", Why: "not in ../shared/charts", Corpus: "../shared/charts"},
		{Name: "web", Chart: "web", Version: "1.0.0", Served: true},
	})
	r.Apps = []*App{
		{Name: "kro", RealChart: true, Verdict: VerdictOK},
		{Name: "keda", RealChart: true, Verdict: VerdictKwok},
		{Name: "mimir", Verdict: VerdictUnreachable},
		{Name: "web", Verdict: VerdictOK},
	}
	got := r.Summary()
	for _, want := range []string{
		"2 synced and healthy", "1 synced and not healthy only on kwok", "1 chart unreachable",
		"real charts: 2 chart versions served from ../shared/charts, 1 not: mimir-distributed 6.0.5 (not in ../shared/charts)",
		"2 Applications delivered with a real chart: 1 synced and healthy, 1 synced and not healthy only on kwok, 0 blocked, 0 failed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if !r.OK() {
		t.Error("a report whose Applications are ok, on kwok or unreachable is not OK")
	}
}
