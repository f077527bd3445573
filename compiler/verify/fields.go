package verify

import (
	"fmt"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/rgd"
)

// The checks of the extended Argo CD fields (model.AppFields,
// model.ProjectFields) on the output: where Argo CD's answer on a
// project's roles, sync windows and service accounts is placed in the
// spec, and the service account each Application syncs as.

// projectProblemAt is the spec path and position of what ValidateProject
// refuses of a declared project, and what to do about it.
func (v *verifier) projectProblemAt(p *model.Project, pr argocd.ProjectProblem) (at string, pos diag.Pos, fix string) {
	at = fmt.Sprintf("%s[%d]", p.FieldPath(pr.Field), pr.Index)
	if pr.Sub != "" {
		at += "." + pr.Sub
	}
	field, _, _ := strings.Cut(pr.Sub, "[")
	var node *model.Node
	switch {
	case pr.Field == "roles" && pr.Index < len(p.Roles):
		node = &p.Roles[pr.Index].Node
	case pr.Field == "syncWindows" && pr.Index < len(p.SyncWindows):
		node = &p.SyncWindows[pr.Index].Node
	case pr.Field == "destinationServiceAccounts" && pr.Index < len(p.DestinationServiceAccounts):
		node = &p.DestinationServiceAccounts[pr.Index].Node
	default:
		return at, v.in.Spec.PosOf(at), "remove the entry"
	}
	pos = node.Pos
	if field != "" {
		pos = node.At(field)
	}
	return at, pos, "fix it, or remove it"
}

// impersonation checks that an Application whose project names
// destination service accounts matches one: platc enables impersonation
// without enforcing it (so that projects without service accounts sync as
// before), and one that matches none would sync as Argo CD's controller,
// with its rights, which is what the project meant to avoid.
func (v *verifier) impersonation(env *model.Environment, a app, proj *project, e *envArgo) {
	accounts := proj.Spec().DestinationServiceAccounts
	if len(accounts) == 0 {
		return
	}
	d := a.spec.Destination
	if rgd.HasPlaceholder(d.Namespace) || rgd.HasPlaceholder(d.Server) || rgd.HasPlaceholder(d.Name) {
		return
	}
	c, err := argocd.DestinationCluster(d, e.permissions.Clusters)
	if err != nil || c.Server == "" {
		return // reported with the destination, or not known offline
	}
	sa, err := argocd.ServiceAccountToImpersonate(accounts, a.namespace(), c.Server, d.Namespace)
	switch {
	case err != nil:
		v.reportf(diag.ServiceAccount, a.origin, "Argo CD cannot choose the service account of Application %q (%s): %v: fix %s", a.name(), where(a, env), err, proj.fixPath("destinationServiceAccounts"))
	case sa == "":
		v.reportf(diag.ServiceAccount, a.origin, "Application %q (%s) deploys to %s, namespace %q, which no destination service account of project %s matches: Argo CD would sync it as its own controller; %s", a.name(), where(a, env), c.Server, d.Namespace, proj.Name, proj.fix("destinationServiceAccounts"))
	}
}
