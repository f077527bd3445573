package check

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/upstream"
)

// releases checks the Argo CD and the kro an environment says its cluster
// runs: a release or minor release, and, where its minor is not the one
// platc checks by, a warning that says what the difference means.
func (c *checker) releases(env *model.Environment) {
	c.release(&env.ArgoCD, "Argo CD", upstream.ArgoCD, argoCDOlder)
	c.release(&env.Kro, "kro", upstream.Kro, kroOlder)
}

// release checks one declared release against target; older says what
// checking a cluster at minor by target's rules means.
func (c *checker) release(r *model.Release, project, target string, older func(minor, want string) string) {
	if r.Version == "" || !r.OK("version") {
		return
	}
	v := "v" + strings.TrimPrefix(r.Version, "v")
	if !semver.IsValid(v) || semver.Prerelease(v) != "" || semver.Build(v) != "" || strings.Count(v, ".") == 0 {
		c.reportf(diag.Version, &r.Node, "version", "%s version %q: write a release such as %q, or its minor release %q", project, r.Version, target, upstream.Minor(target))
		return
	}
	minor, want := semver.MajorMinor(v), semver.MajorMinor(target)
	switch semver.Compare(minor, want) {
	case -1:
		c.reportf(diag.UpstreamVersion, &r.Node, "version", "the environment runs %s %s, older than the %s platc checks by: %s", project, minor, want, older(minor, want))
	case 1:
		if project == "kro" && minor == kro.Next {
			// Checked ahead of its release: what its upgrade notes
			// state that platc can check offline.
			c.reportf(diag.UpstreamVersion, &r.Node, "version", "the environment runs kro %s, newer than the %s platc checks by, which the module proxy does not serve yet: platc checks its stacks by %s's graph builder, and of %s's rules, its unterminated ${ and its reserved resource id graphengine (errors here: kro-unterminated, kro-reserved-id) and the patch on instances' status its RBAC needs (kro-status-rbac); the rest of what changed is not checked", minor, want, want, minor)
			return
		}
		c.reportf(diag.UpstreamVersion, &r.Node, "version", "the environment runs %s %s, newer than the %s platc checks by: what changed since %s is not checked; check it with a platc that targets %s (platc version lists its targets)", project, minor, want, want, minor)
	}
}

// argoCDOlder names the rules platc ports that changed after minor.
func argoCDOlder(minor, want string) string {
	changes := argocd.ChangesAfter(minor)
	if len(changes) == 0 {
		return fmt.Sprintf("none of the rules platc ports changed between them as far as platc records; upgrade the environment's Argo CD to %s to be checked as it will run", want)
	}
	var s strings.Builder
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
	if oldest := argocd.RuleChanges[0].Since; semver.Compare(minor, previousMinor(oldest)) < 0 {
		fmt.Fprintf(&s, "; changes before %s are not recorded", oldest)
	}
	return s.String() + "; upgrade the environment's Argo CD to " + want + ", or review what these rules touch"
}

// kroOlder says what checking stacks by a newer kro means.
func kroOlder(minor, want string) string {
	return fmt.Sprintf("its graph builder and CEL functions are %s's, so an RGD that %s accepts may be refused by %s; upgrade the environment's kro to %s", want, want, minor, want)
}

// previousMinor is the minor release before one: "v3.5" for "v3.6", and
// the same for a minor 0.
func previousMinor(minor string) string {
	major, n, ok := strings.Cut(strings.TrimPrefix(minor, "v"), ".")
	var m int
	if _, err := fmt.Sscan(n, &m); !ok || err != nil || m == 0 {
		return minor
	}
	return fmt.Sprintf("v%s.%d", major, m-1)
}
