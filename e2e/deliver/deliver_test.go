package deliver

import (
	"os"
	"path/filepath"
	"reflect"
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
