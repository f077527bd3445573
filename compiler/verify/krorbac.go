package verify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/upstream"
)

// kroStatusRBAC checks, in env, that the kro the platform installs may
// patch its instances' status: kro v0.10 (kro.Next) writes status with
// server-side apply (pkg/controller/instance/status.go, ApplyStatus),
// authorized as patch; kro v0.9 uses UpdateStatus. The grant comes from
// ClusterRoles bound to kro's service account: with rbac.mode
// unrestricted, one granting everything; with aggregation, the
// ClusterRoles labelled rbac.kro.run/aggregate-to-controller: "true",
// which the platform brings. platc reads those the charts render; folder
// manifests are kept as heads only, so where one may be aggregated, or the
// chart binds kro no ClusterRole, nothing is said. Under kro v0.9 it is a
// warning, for the upgrade.
func (v *verifier) kroStatusRBAC(env *model.Environment, apps []app, rendered []renderedApp) {
	kinds := v.instanceKinds(env)
	if len(kinds) == 0 {
		return
	}
	var installs []renderedApp
	for _, ra := range rendered {
		if m := ra.a.mod; m != nil && !ra.a.root && ra.a.file != "kro" {
			if c := v.in.Spec.Chart(m.Chart); c != nil && c.Chart == "kro" {
				installs = append(installs, ra)
			}
		}
	}
	if len(installs) == 0 {
		return
	}
	var roles []rbacv1.ClusterRole
	var bindings []rbacv1.ClusterRoleBinding
	seen := map[*charts.Outcome]bool{}
	for _, ra := range rendered {
		if seen[ra.out] || !slices.ContainsFunc(ra.out.Heads(), func(h charts.Head) bool {
			return group(h.APIVersion) == "rbac.authorization.k8s.io" && (h.Kind == "ClusterRole" || h.Kind == "ClusterRoleBinding")
		}) {
			continue
		}
		seen[ra.out] = true
		ms, err := ra.out.Manifests()
		if err != nil {
			continue
		}
		for _, m := range ms {
			if group(str(m.Object, "apiVersion")) != "rbac.authorization.k8s.io" {
				continue
			}
			switch str(m.Object, "kind") {
			case "ClusterRole":
				var r rbacv1.ClusterRole
				if decodeObject(m.Object, &r) {
					roles = append(roles, r)
				}
			case "ClusterRoleBinding":
				var b rbacv1.ClusterRoleBinding
				if decodeObject(m.Object, &b) {
					bindings = append(bindings, b)
				}
			}
		}
	}
	folderRoles := v.folderClusterRoles(env, apps)
	for _, ra := range installs {
		ms, err := ra.out.Manifests()
		if err != nil {
			continue
		}
		accounts := kroAccounts(ms, ra.a.spec.Destination.Namespace)
		var bound []string
		for _, b := range bindings {
			if b.RoleRef.Kind == "ClusterRole" && slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
				return s.Kind == "ServiceAccount" && slices.Contains(accounts, s.Namespace+"/"+s.Name)
			}) && !slices.Contains(bound, b.RoleRef.Name) {
				bound = append(bound, b.RoleRef.Name)
			}
		}
		if len(bound) == 0 {
			// The chart binds no ClusterRole to kro: its RBAC is made
			// elsewhere, which platc does not see.
			continue
		}
		rules, aggregates := grantedRules(roles, bound)
		var missing []string
		for _, k := range kinds {
			if !allows(rules, "patch", k.group, k.plural, "status") {
				missing = append(missing, fmt.Sprintf("%s (%s/status in %s)", k.kind, k.plural, k.group))
			}
		}
		if len(missing) == 0 || folderRoles != "" && aggregates {
			continue
		}
		// At rbac.mode where the spec sets it, else at the module.
		pos, specPath, _ := v.valueLayer(env, ra.a, ra.hs, []string{"rbac", "mode"})
		how := fmt.Sprintf("with ClusterRole %s bound to its service account %s", diag.List(bound), diag.List(accounts))
		if aggregates {
			how += fmt.Sprintf(", which aggregates the ClusterRoles labelled %s that the environment's charts render", aggregateLabel)
		}
		needs := fmt.Sprintf("kro %s writes instance status with server-side apply, which needs patch (kro %s updates it, and does not)", kro.Next, upstream.Minor(upstream.Kro))
		if kro.Enforces(env.Kro.Version) {
			needs = fmt.Sprintf("the environment runs kro %s, which writes instance status with server-side apply and needs patch: it cannot write their status (its upgrade notes: \"The controller now writes instance status with server-side apply, which requires `patch`.\")", kro.Next)
		}
		v.log.Reportf(diag.KroStatusRBAC, pos, specPath, "%s installs kro in environment %s %s: none grants patch on the status of %s; %s: grant get, update and patch on each <plural>/status in a ClusterRole labelled %s, or set rbac.mode: unrestricted", ra.what, env.Name, how, diag.List(missing), needs, aggregateLabel)
	}
}

// aggregateLabel is what kro's chart aggregates into its controller's
// ClusterRole in rbac.mode aggregation (helm/templates/cluster-role.yaml).
const aggregateLabel = `rbac.kro.run/aggregate-to-controller: "true"`

// statusKind is the kind of a stack's instances, as the CRD kro
// generates names it.
type statusKind struct{ group, plural, kind string }

// instanceKinds are the kinds of the instances in env, sorted.
func (v *verifier) instanceKinds(env *model.Environment) []statusKind {
	if v.in.Stacks == nil {
		return nil
	}
	var out []statusKind
	for _, inst := range v.in.Stacks.Instances {
		if inst.Env != env || inst.Stack.Result == nil {
			continue
		}
		crd := inst.Stack.Result.CRD
		k := statusKind{str(crd, "spec", "group"), str(crd, "spec", "names", "plural"), str(crd, "spec", "names", "kind")}
		if k.plural != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b statusKind) int { return strings.Compare(a.kind+"."+a.group, b.kind+"."+b.group) })
	return out
}

// folderClusterRoles names a folder module of env whose manifests hold a
// ClusterRole, or "".
func (v *verifier) folderClusterRoles(env *model.Environment, apps []app) string {
	for _, a := range apps {
		if a.mod == nil || a.root || a.file == "kro" {
			continue
		}
		for _, dir := range v.manifestsFolders(a.mod, env) {
			for _, o := range v.in.Folders.build(dir).Objects {
				if o.Kind == "ClusterRole" && group(o.APIVersion) == "rbac.authorization.k8s.io" {
					return a.mod.Name
				}
			}
		}
	}
	return ""
}

// kroAccounts are the service accounts ("namespace/name") kro's
// Deployments run as: a Deployment in no namespace is in the
// Application's, and one that names no account runs as "default".
func kroAccounts(ms []charts.Manifest, namespace string) []string {
	var out []string
	for _, m := range ms {
		if str(m.Object, "kind") != "Deployment" {
			continue
		}
		ns, sa := str(m.Object, "metadata", "namespace"), str(m.Object, "spec", "template", "spec", "serviceAccountName")
		if ns == "" {
			ns = namespace
		}
		if sa == "" {
			sa = "default"
		}
		if a := ns + "/" + sa; !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// decodeObject decodes an object of rbac.authorization.k8s.io/v1, as
// kroStatusRBAC reads it.
func decodeObject(obj map[string]any, into any) bool {
	data, err := json.Marshal(obj)
	return err == nil && json.Unmarshal(data, into) == nil
}

// grantedRules are the rules of the named ClusterRoles and of those they
// aggregate, as the clusterrole-aggregation controller merges them;
// aggregates says whether one aggregates.
func grantedRules(roles []rbacv1.ClusterRole, names []string) (rules []rbacv1.PolicyRule, aggregates bool) {
	for _, r := range roles {
		if !slices.Contains(names, r.Name) {
			continue
		}
		rules = append(rules, r.Rules...)
		if r.AggregationRule == nil {
			continue
		}
		aggregates = true
		for _, sel := range r.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			if err != nil {
				continue
			}
			for _, o := range roles {
				if o.Name != r.Name && s.Matches(labels.Set(o.Labels)) {
					rules = append(rules, o.Rules...)
				}
			}
		}
	}
	return rules, aggregates
}

// allows reports whether a rule grants verb on resource/subresource of
// group for every object (no resourceNames), as Kubernetes' RBAC
// authorizer does (k8s.io/kubernetes at upstream.Kubernetes: RuleAllows
// of plugin/pkg/auth/authorizer/rbac/rbac.go, and VerbMatches,
// APIGroupMatches, ResourceMatches and ResourceNameMatches of
// pkg/apis/rbac/v1/evaluation_helpers.go), ported.
func allows(rules []rbacv1.PolicyRule, verb, group, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined += "/" + subresource
	}
	for _, r := range rules {
		if len(r.ResourceNames) > 0 {
			continue
		}
		if !slices.Contains(r.Verbs, "*") && !slices.Contains(r.Verbs, verb) {
			continue
		}
		if !slices.Contains(r.APIGroups, "*") && !slices.Contains(r.APIGroups, group) {
			continue
		}
		if slices.ContainsFunc(r.Resources, func(rr string) bool {
			return rr == "*" || rr == combined ||
				subresource != "" && len(rr) == len(subresource)+2 && strings.HasPrefix(rr, "*/") && strings.HasSuffix(rr, subresource)
		}) {
			return true
		}
	}
	return false
}
