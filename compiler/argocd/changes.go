package argocd

import (
	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/upstream"
)

// RuleChange is a change in one of the rules this package ports, in the
// Argo CD minor release that made it: what an environment that runs an
// older Argo CD than upstream.ArgoCD is checked by differently. The port
// follows upstream.ArgoCD only.
type RuleChange struct {
	Since    string // the minor release that changed the rule, "v3.6"
	Upstream string // the upstream file and function
	What     string // the change, as a user meets it
}

// RuleChanges are the changes in the ported rules from one minor release
// to the next, oldest first: what bumping upstream.ArgoCD found in the
// files this package ports (docs/upstream.md says how they are found).
// Read-only.
var RuleChanges = []RuleChange{
	{"v3.6", "util/glob", "every glob matches by gobwas/glob v1.0.0"},
	{"v3.6", "MatchStringInList", `a namespace entry "/" or "//" is a glob`},
	{"v3.6", "isDestinationMatched", "a denied server or name refuses only in its namespaces"},
	{"v3.6", "validActions", "policies may name rollback"},
	{"v3.6", "NormalizeApplicationSpec", "empty helm, kustomize and directory blocks are no source type"},
	{"v3.6", "resource_customizations/kro.run/_/health.lua", "a kro instance is Healthy only once Ready, so a stacks module's Application is Progressing until its instances are"},
}

// ChangesAfter returns the rule changes an Argo CD at minor (v3.5) lacks
// against upstream.ArgoCD: those of the releases after it.
func ChangesAfter(minor string) []RuleChange {
	var out []RuleChange
	for _, c := range RuleChanges {
		if semver.Compare(c.Since, minor) > 0 && semver.Compare(c.Since, upstream.Minor(upstream.ArgoCD)) <= 0 {
			out = append(out, c)
		}
	}
	return out
}
