package check

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/upstream"
)

// releases checks the Argo CD and the kro an environment says its cluster
// runs: a release or minor release, and, where it is not the one platc
// checks by, a warning that says what the difference means. Argo CD is
// compared by release, patch releases included (argocd.RuleChanges
// records the rules each changed); kro by minor release.
func (c *checker) releases(env *model.Environment) {
	if v, ok := c.declared(&env.ArgoCD, "Argo CD", upstream.ArgoCD); ok {
		if msg := argoCDRelease(v); msg != "" {
			c.reportf(diag.UpstreamVersion, &env.ArgoCD.Node, "version", "%s", msg)
		}
	}
	if v, ok := c.declared(&env.Kro, "kro", upstream.Kro); ok {
		minor, want := semver.MajorMinor(v), semver.MajorMinor(upstream.Kro)
		switch semver.Compare(minor, want) {
		case -1:
			c.reportf(diag.UpstreamVersion, &env.Kro.Node, "version", "the environment runs kro %s, older than the %s platc checks by: its graph builder and CEL functions are %s's, so an RGD that %s accepts may be refused by %s; upgrade the environment's kro to %s", minor, want, want, want, minor, want)
		case 1:
			if minor == kro.Next {
				// Checked ahead of its release: what its upgrade notes
				// state that platc can check offline.
				c.reportf(diag.UpstreamVersion, &env.Kro.Node, "version", "the environment runs kro %s, newer than the %s platc checks by, which the module proxy does not serve yet: platc checks its stacks by %s's graph builder, and of %s's rules, its unterminated ${ and its reserved resource id graphengine (errors here: kro-unterminated, kro-reserved-id) and the patch on instances' status its RBAC needs (kro-status-rbac); the rest of what changed is not checked", minor, want, want, minor)
				break
			}
			c.reportf(diag.UpstreamVersion, &env.Kro.Node, "version", "%s", newer("kro", minor, want))
		}
	}
}

// declared is the release r declares, "v" before it, where it declares a
// valid one; a version that is not a release is reported.
func (c *checker) declared(r *model.Release, project, target string) (string, bool) {
	if r.Version == "" || !r.OK("version") {
		return "", false
	}
	v := "v" + strings.TrimPrefix(r.Version, "v")
	if !semver.IsValid(v) || semver.Prerelease(v) != "" || semver.Build(v) != "" || strings.Count(v, ".") == 0 {
		c.reportf(diag.Version, &r.Node, "version", "%s version %q: write a release such as %q, or its minor release %q", project, r.Version, target, upstream.Minor(target))
		return "", false
	}
	return v, true
}

// newer says what a release newer than platc's target means.
func newer(project, release, target string) string {
	return fmt.Sprintf("the environment runs %s %s, newer than the %s platc checks by: what changed since %s is not checked; check it with a platc that targets %s (platc version lists its targets)", project, release, target, target, release)
}

// argoCDRelease says what checking a cluster that runs Argo CD at v (a
// release, v3.6.1, or a minor release, v3.6) by upstream.ArgoCD's rules
// means, or "" where nothing: the rules platc ports that changed in the
// releases between them. A minor release may be any of its patch
// releases: the rules changed in a later patch release of it are named.
func argoCDRelease(v string) string {
	target := upstream.ArgoCD
	minor, targetMinor := semver.MajorMinor(v), semver.MajorMinor(target)
	isMinor := strings.Count(v, ".") == 1
	switch {
	case semver.Compare(minor, targetMinor) > 0:
		return newer("Argo CD", minor, targetMinor)
	case !isMinor && semver.Compare(v, target) > 0:
		return newer("Argo CD", v, target)
	}
	changes := argocd.ChangesAfter(v)
	if len(changes) == 0 {
		if minor == targetMinor {
			return "" // the target, or a release of its minor whose rules are the target's
		}
		return fmt.Sprintf("the environment runs Argo CD %s, older than the %s platc checks by: none of the rules platc ports changed between them as far as platc records; upgrade the environment's Argo CD to %s to be checked as it will run", v, target, target)
	}
	var s strings.Builder
	if isMinor && minor == targetMinor {
		fmt.Fprintf(&s, "the environment runs Argo CD %s, not saying which release of it, and platc checks by %s: ", v, target)
	} else {
		fmt.Fprintf(&s, "the environment runs Argo CD %s, older than the %s platc checks by: ", v, target)
	}
	for i, ch := range changes {
		switch {
		case i == 0:
			fmt.Fprintf(&s, "rules it ports changed in %s: ", ch.Since)
		case ch.Since != changes[i-1].Since:
			fmt.Fprintf(&s, "; in %s: ", ch.Since)
		default:
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "%s (%s)", ch.Upstream, ch.What)
	}
	if oldest := upstream.Minor(argocd.RuleChanges[0].Since); semver.Compare(minor, previousMinor(oldest)) < 0 {
		fmt.Fprintf(&s, "; changes before %s are not recorded", oldest)
	}
	if isMinor && minor == targetMinor {
		fmt.Fprintf(&s, "; declare the release it runs (%q and later are checked as they run), upgrade it to %s, or review what these rules touch", target, target)
	} else {
		fmt.Fprintf(&s, "; upgrade the environment's Argo CD to %s, or review what these rules touch", target)
	}
	return s.String()
}

// previousMinor is the minor release before one: "v3.5" for "v3.6", and
// the same for a minor 0.
func previousMinor(minor string) string {
	major, n, ok := strings.Cut(strings.TrimPrefix(minor, "v"), ".")
	if m, err := strconv.Atoi(n); ok && err == nil && m != 0 {
		return fmt.Sprintf("v%s.%d", major, m-1)
	}
	return minor
}
