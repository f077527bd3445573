package argocd

import (
	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/upstream"
)

// RuleChange is a change in one of the rules this package ports, in the
// Argo CD release that made it: what an environment that runs an older
// Argo CD than upstream.ArgoCD is checked by differently. The port
// follows upstream.ArgoCD only.
type RuleChange struct {
	// Since is the release that changed the rule: a minor release, "v3.6"
	// (its first release, v3.6.0), or a patch release, "v3.6.2".
	Since    string
	Upstream string // the upstream file and function
	What     string // the change, as a user meets it
}

// RuleChanges are the changes in the ported rules from one release to the
// next, patch releases included, oldest first: what bumping
// upstream.ArgoCD found in the files this package ports (docs/upstream.md
// says how they are found; make upstream-diff fails CI on a newer release
// that changes one of those files). Read-only.
var RuleChanges = []RuleChange{
	{"v3.6", "util/glob", "every glob matches by gobwas/glob v1.0.0"},
	{"v3.6", "MatchStringInList", `a namespace entry "/" or "//" is a glob`},
	{"v3.6", "isDestinationMatched", "a denied server or name refuses only in its namespaces"},
	{"v3.6", "validActions", "policies may name rollback"},
	{"v3.6", "NormalizeApplicationSpec", "empty helm, kustomize and directory blocks are no source type"},
	{"v3.6", "resource_customizations/kro.run/_/health.lua", "a kro instance is Healthy only once Ready, so a stacks module's Application is Progressing until its instances are"},
	{"v3.6.2", "isDestinationMatched", `a denied server or name that matches the cluster refuses it even where the destination's other field matches, so {server: "*", name: "!prod"} no longer permits prod`},
	{"v3.6.2", "util/regex", "a /regexp/ namespace entry is matched by regexp2 v2: possessive quantifiers and \\Q...\\E compile, and a match past its backtracking limit is none"},
}

// ChangesAfter returns the rule changes an Argo CD at release (v3.6.1, or
// a minor release, v3.5, read as its first release) lacks against
// upstream.ArgoCD: those of the releases after it, up to the target.
func ChangesAfter(release string) []RuleChange {
	var out []RuleChange
	for _, c := range RuleChanges {
		if semver.Compare(c.Since, release) > 0 && semver.Compare(c.Since, upstream.ArgoCD) <= 0 {
			out = append(out, c)
		}
	}
	return out
}
