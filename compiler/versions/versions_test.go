package versions

import (
	"fmt"
	"strings"
	"testing"
)

func TestUpdates(t *testing.T) {
	available := []string{"4.0.0", "3.9.0", "3.9.0-rc.1", "3.8.2", "v3.8.1", "3.7.3", "3.7.2", "3.7.1", "nightly", "3.7.3"}
	for _, tc := range []struct {
		current string
		want    string
	}{
		{"3.7.2", "[3.7.3 v3.8.1 3.8.2 3.9.0 4.0.0] patch 3.7.3 minor 3.9.0 latest 4.0.0"},
		{"v3.8.2", "[3.9.0 4.0.0] patch  minor 3.9.0 latest 4.0.0"},
		{"4.0.0", "[] patch  minor  latest "},
		// A pre-release is offered to a pre-release only.
		{"3.9.0-rc.0", "[3.9.0-rc.1 3.9.0 4.0.0] patch 3.9.0 minor 3.9.0 latest 4.0.0"},
		{"not-a-version", "[] patch  minor  latest "},
	} {
		u := Updates(tc.current, available)
		if got := fmt.Sprintf("%v patch %s minor %s latest %s", u.Newer, u.Patch, u.Minor, u.Latest); got != tc.want {
			t.Errorf("Updates(%s):\n got %s\nwant %s", tc.current, got, tc.want)
		}
	}
}

func TestParseIndex(t *testing.T) {
	ix, err := ParseIndex([]byte("apiVersion: v1\nentries:\n  web:\n    - version: 1.0.0\n    - version: 0.9.0\ngenerated: \"2026-03-01T10:00:00Z\"\n"))
	if err != nil || ix.Generated != "2026-03-01T10:00:00Z" || fmt.Sprint(ix.Versions["web"]) != "[1.0.0 0.9.0]" {
		t.Errorf("ParseIndex: %+v, %v", ix, err)
	}
	for _, bad := range []string{"<html>not found</html>", "{}", "entries: [1, 2]"} {
		if _, err := ParseIndex([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "not a chart repository index") {
			t.Errorf("ParseIndex(%q): %v", bad, err)
		}
	}
}

func TestMarkdownKeepsCells(t *testing.T) {
	m := &Matrix{Environments: []Env{{Name: "a|b"}}, Charts: []Row{{Name: "web", Version: "1.0.0", Environments: []Cell{{Environment: "a|b", Version: "1.0.0|x", Own: true, Deployed: true}}}}}
	var b strings.Builder
	if err := m.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `| web | 1.0.0 | **1.0.0\|x** |`) || !strings.Contains(b.String(), `| chart | platform | a\|b |`) {
		t.Errorf("Markdown:\n%s", b.String())
	}
}
