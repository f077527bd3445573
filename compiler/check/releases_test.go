package check

import (
	"strings"
	"testing"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/upstream"
)

// TestArgoCDRelease: Argo CD is compared by release, patch releases
// included; a minor release may be any of its patch releases.
func TestArgoCDRelease(t *testing.T) {
	target := upstream.ArgoCD
	minor := upstream.Minor(target)
	var patches []argocd.RuleChange // the changes of the target's minor's patch releases
	for _, c := range argocd.ChangesAfter(minor) {
		if upstream.Minor(c.Since) == minor {
			patches = append(patches, c)
		}
	}
	if got := argoCDRelease(target); got != "" {
		t.Errorf("the target %s is warned: %s", target, got)
	}
	got := argoCDRelease(minor)
	if len(patches) == 0 && got != "" || len(patches) > 0 && !strings.Contains(got, "not saying which release of it") {
		t.Errorf("the target's minor %s: %q (changes of its patch releases: %v)", minor, got, patches)
	}
	if got := argoCDRelease(minor + ".999"); !strings.Contains(got, "newer than the "+target) {
		t.Errorf("a newer patch release: %q", got)
	}
	if got := argoCDRelease("v99.0"); !strings.Contains(got, "newer than the "+minor) {
		t.Errorf("a newer minor release: %q", got)
	}
	if got := argoCDRelease("v3.5.7"); !strings.Contains(got, "older than the "+target) || !strings.Contains(got, "rules it ports changed in v3.6: ") {
		t.Errorf("an older minor release: %q", got)
	}
}

// TestRecordedPatchRelease: v3.6.2 changed isDestinationMatched, so an
// environment on v3.6.1 is told, and one on v3.6.2 is not.
func TestRecordedPatchRelease(t *testing.T) {
	if upstream.Minor(upstream.ArgoCD) != "v3.6" {
		t.Skipf("the target %s is not of v3.6: TestArgoCDRelease covers it", upstream.ArgoCD)
	}
	env := "v3.6.1"
	got := argoCDRelease(env)
	for _, want := range []string{"runs Argo CD " + env + ", older than the " + upstream.ArgoCD, "rules it ports changed in v3.6.2: isDestinationMatched (", "util/regex ("} {
		if !strings.Contains(got, want) {
			t.Errorf("v3.6.1: %q has no %q", got, want)
		}
	}
	if strings.Contains(got, "in v3.6: ") {
		t.Errorf("v3.6.1 is told of v3.6.0's changes, which it has: %q", got)
	}
}
