package verify

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
)

// project is an AppProject an environment's Applications may use, compiled
// once (argocd.Project), with where the spec makes it.
type project struct {
	*argocd.Project
	declared *model.Project // the environment's project, or nil
	module   *model.Module  // the stacks module platc renders it for, or nil
}

// fix says where to change what the project permits.
func (p *project) fix(field string) string {
	switch {
	case p.declared != nil:
		return "add it to " + p.declared.FieldPath(field)
	case p.module != nil:
		return fmt.Sprintf("platc renders project %s for the stack instances of module %s; report this as a bug of platc", p.Name, p.module.Name)
	}
	return "Argo CD's built-in project default holds no Application outside Argo CD's namespace: name a project of the environment that lists it, or leave the client's project unset for the one platc renders"
}

// envArgo is what Argo CD knows of one environment: its projects by name
// (with the built-in default unless overridden), clusters and enabled
// namespaces.
type envArgo struct {
	projects map[string]*project
	// permissions checks the Applications against the clusters Argo CD
	// knows (in-cluster, and the environment's).
	permissions *argocd.Permissions
	// appNamespaces is the rendered application.namespaces; enabled is
	// it compiled.
	appNamespaces []string
	enabled       argocd.Namespaces
}

// argo reads the environment's projects and checks them as Argo CD's API
// server would (ValidateProject); a duplicate name is an error.
func (v *verifier) argo(env *model.Environment, files []int) *envArgo {
	spec := v.in.Spec
	clusters := []argocd.Cluster{argocd.InCluster}
	known := func(d model.Destination) {
		c := argocd.Cluster{Server: d.Server, Name: d.Name}
		if !argocd.IsInCluster(argocd.Destination{Server: d.Server, Name: d.Name}) && !slices.Contains(clusters, c) {
			clusters = append(clusters, c)
		}
	}
	known(env.Destination)
	for _, m := range spec.Modules { // the modules' own clusters
		if m.Destination != nil || env.SetsSources() {
			known(m.DestinationIn(env))
		}
	}
	e := &envArgo{projects: map[string]*project{}, permissions: &argocd.Permissions{Clusters: clusters}}
	declared := map[string]*model.Project{}
	for _, p := range env.Projects {
		declared[p.Name] = p
	}
	twice := map[string]bool{}
	for _, fi := range files {
		f := v.in.Files[fi]
		if f.Values {
			if f.Path == render.ArgoCDValuesFile(&spec.Platform, env.Name) && len(f.Objects) > 0 {
				if s, _ := object.Lookup(f.Objects[0], "configs", "params", argocd.ApplicationNamespacesKey).(string); s != "" {
					e.appNamespaces = strings.Split(s, ",")
				}
			}
			continue
		}
		for _, obj := range f.Objects {
			if obj.Get("kind") != "AppProject" {
				continue
			}
			p := &project{Project: argocd.ProjectFromObject(obj)}
			// The environment's projects are in appprojects.yaml; those
			// of stack instances beside the Applications.
			if m := spec.Module(p.Name); m != nil && m.Kind.Info().Syncs == model.SyncsInstances && path.Base(f.Path) != render.AppProjectsFile {
				p.module = m
			} else {
				p.declared = declared[p.Name]
			}
			if e.projects[p.Name] != nil || twice[p.Name] {
				where := env.FieldPath("projects")
				if d := declared[p.Name]; d != nil {
					where = d.Path
				}
				v.reportf(diag.Duplicate, where, "two AppProjects named %s in environment %s: Argo CD keeps one; platc names the project of a stacks module's instances after the module, so rename the environment's project", p.Name, env.Name)
				// Which one Argo CD keeps is not known: judge no
				// Application by either.
				delete(e.projects, p.Name)
				twice[p.Name] = true
				continue
			}
			e.projects[p.Name] = p
			if p.declared != nil {
				for _, pr := range p.ValidateProject() {
					at, pos, fix := v.projectProblemAt(p.declared, pr)
					v.log.Reportf(diag.ArgoCDProject, pos, at, "Argo CD refuses project %s: %s: %s", p.Name, pr.Message, fix)
				}
			}
		}
	}
	e.enabled = argocd.NewNamespaces(e.appNamespaces)
	if e.projects[argocd.DefaultProjectName] == nil && !twice[argocd.DefaultProjectName] {
		e.projects[argocd.DefaultProjectName] = &project{Project: argocd.DefaultProject()}
	}
	return e
}

// sourceOrigin is the spec path to blame for source i of a: the chart's
// version for a chart source without one, else the Application's.
func (v *verifier) sourceOrigin(a app, i int) string {
	if i < 0 || i >= len(a.spec.Sources) {
		return a.origin
	}
	src := a.spec.Sources[i]
	if src.Chart == "" || src.TargetRevision != "" {
		return a.origin
	}
	for _, ch := range v.in.Spec.Charts {
		if ch.Chart == src.Chart && ch.RepoURL == src.RepoURL && ch.Version == "" {
			return ch.FieldPath("version")
		}
	}
	return a.origin
}

// permitted checks an Application against its AppProject as Argo CD does
// before syncing (util/argo.ValidatePermissions, and the controller's
// checks of Applications in other namespaces), through compiler/argocd.
// Placeholders kro's preview leaves to the cluster are not judged.
func (v *verifier) permitted(env *model.Environment, a app, e *envArgo, synced []syncedObject) {
	proj := e.projects[a.spec.ProjectName()]
	if proj == nil {
		return // an unknown project (check has reported it), or two of one name
	}
	for _, c := range a.spec.SourceProblems() {
		v.reportf(diag.ArgoCDApplication, v.sourceOrigin(a, c.Source), "Argo CD refuses source %d (%s) of Application %q (%s): %s", c.Source, a.spec.Sources[c.Source].RepoURL, a.name(), where(a, env), c.Message)
	}
	for _, c := range e.permissions.Validate(*a.spec, proj.Project) {
		switch c.Kind {
		case argocd.SourceNotPermitted:
			if repo := a.spec.Sources[c.Source].RepoURL; !rgd.HasPlaceholder(repo) {
				if proj.declared == nil {
					v.reportf(diag.ProjectSource, a.origin, "project %s does not permit source repository %s of Application %q (%s): %s%s", proj.Name, repo, a.name(), where(a, env), proj.fix("sourceRepos"), sourceHint(proj.Spec().SourceRepos, repo))
					continue
				}
				// One problem per missing repository, at the project.
				v.affects(diag.ProjectSource, proj.declared.FieldPath("sourceRepos"), a, env, "project %s does not permit source repository %s, which affects %s: %s%s", proj.Name, repo, diag.Affected, proj.fix("sourceRepos"), sourceHint(proj.Spec().SourceRepos, repo))
			}
		case argocd.DestinationNotPermitted:
			d := a.spec.Destination
			if rgd.HasPlaceholder(d.Namespace) || rgd.HasPlaceholder(d.Server) || rgd.HasPlaceholder(d.Name) {
				continue
			}
			target := cmp.Or(d.Name, d.Server)
			fix := proj.fix("destinations") + noNamespaceHint(proj.Spec().Destinations, d.Namespace)
			at := ""
			if proj.declared != nil {
				at = proj.declared.FieldPath("destinations")
			}
			if cluster, err := argocd.DestinationCluster(d, e.permissions.Clusters); err == nil {
				if denial, i, ok := proj.denialFix(cluster, d.Namespace); ok {
					fix = denial
					if at != "" {
						at = fmt.Sprintf("%s[%d]", at, i)
					}
				}
			}
			if at == "" {
				v.reportf(diag.ProjectDestination, a.origin, "project %s does not permit destination %s, namespace %q, of Application %q (%s): %s", proj.Name, target, d.Namespace, a.name(), where(a, env), fix)
				continue
			}
			v.affects(diag.ProjectDestination, at, a, env, "project %s does not permit destination %s, namespace %q, which affects %s: %s", proj.Name, target, d.Namespace, diag.Affected, fix)
		case argocd.InvalidSource:
			v.reportf(diag.ArgoCDApplication, v.sourceOrigin(a, c.Source), "Argo CD refuses Application %q (%s): %s", a.name(), where(a, env), c.Message)
		case argocd.InvalidDestination:
			v.reportf(diag.ArgoCDApplication, a.origin, "Argo CD refuses Application %q (%s): %s", a.name(), where(a, env), c.Message)
		default:
			panic(fmt.Sprintf("verify: a condition of unknown kind %d", c.Kind))
		}
	}
	v.impersonation(env, a, proj, e)
	argoNS := v.in.Spec.Platform.ArgoCDNamespace
	if ns := a.namespace(); ns != "" && ns != argoNS && !rgd.HasPlaceholder(ns) {
		if !proj.IsAppNamespacePermitted(ns, argoNS) {
			if proj.declared == nil {
				v.reportf(diag.SourceNamespace, a.origin, "Application %q (%s) lives in namespace %s, outside Argo CD's %s, and project %s does not list it in sourceNamespaces: %s%s", a.name(), where(a, env), ns, argoNS, proj.Name, proj.fix("sourceNamespaces"), namespaceHint(proj.Spec().SourceNamespaces))
			} else {
				v.affects(diag.SourceNamespace, proj.declared.FieldPath("sourceNamespaces"), a, env, "project %s does not list namespace %s, outside Argo CD's %s, in sourceNamespaces, which affects %s: %s%s", proj.Name, ns, argoNS, diag.Affected, proj.fix("sourceNamespaces"), namespaceHint(proj.Spec().SourceNamespaces))
			}
		}
		if !e.enabled.Enabled(ns, argoNS) {
			v.reportf(diag.SourceNamespace, a.origin, "Application %q (%s) lives in namespace %s, which the Argo CD values of environment %s do not enable (application.namespaces %q): Argo CD would ignore it; report this as a bug of platc", a.name(), where(a, env), ns, env.Name, strings.Join(e.appNamespaces, ","))
		}
	}
	if ns := a.spec.Destination.Namespace; a.spec.HasSyncOption(argocd.CreateNamespace) && !rgd.HasPlaceholder(ns) && !proj.IsGroupKindPermitted("", "Namespace", ns, false) {
		fix := "add {group: \"\", kind: \"Namespace\"} to " + proj.fixPath("clusterResourceWhitelist")
		if proj.declared == nil {
			v.reportf(diag.ProjectKind, a.origin, "Application %q (%s) creates its namespace (CreateNamespace=true) but project %s does not allow the cluster-scoped kind Namespace: %s, or set createNamespace: false", a.name(), where(a, env), proj.Name, fix)
		} else {
			v.affects(diag.ProjectKind, proj.declared.FieldPath("clusterResourceWhitelist"), a, env, "project %s does not allow the cluster-scoped kind Namespace, which an Application that creates its namespace (CreateNamespace=true) needs; this affects %s: %s, or set createNamespace: false", proj.Name, diag.Affected, fix)
		}
	}
	v.renderedKinds(env, a, proj, synced)
	v.syncedNamespaces(env, a, proj, e, synced)
	if a.mod != nil && !a.root && a.file != "kro" {
		for _, dir := range v.manifestsFolders(a.mod, env) {
			v.repoPathKinds(a, proj, dir)
		}
	}
}

// syncedNamespaces checks objects an Application syncs into a namespace
// other than its destination's: Argo CD refuses the sync unless the
// project permits that namespace (validateSyncPermissions,
// controller/sync.go). One problem per namespace; none where only the
// cluster knows.
func (v *verifier) syncedNamespaces(env *model.Environment, a app, proj *project, e *envArgo, synced []syncedObject) {
	d := a.spec.Destination
	var cluster argocd.Cluster
	reported := map[string]bool{}
	for _, o := range synced {
		if o.clusterScoped || o.namespace == "" || o.namespace == d.Namespace || reported[o.namespace] || rgd.HasPlaceholder(o.namespace) {
			continue
		}
		if cluster == (argocd.Cluster{}) {
			c, err := argocd.DestinationCluster(d, e.permissions.Clusters)
			if err != nil {
				return // the destination's own problem, reported with it
			}
			cluster = c
		}
		if ok, known := proj.IsDestinationPermitted(cluster, o.namespace); !known || ok {
			continue
		}
		reported[o.namespace] = true
		field, target := "server", cluster.Server
		if d.Name != "" || target == "" {
			field, target = "name", cluster.Name
		}
		fix := fmt.Sprintf("add {%s: %q, namespace: %q} to %s, or remove the object's metadata.namespace", field, target, o.namespace, proj.fixPath("destinations"))
		if denial, _, ok := proj.denialFix(cluster, o.namespace); ok {
			fix = denial
		}
		v.reportf(diag.ProjectDestination, a.origin, "Application %q (%s) syncs %s (%s), but project %s does not permit namespace %s: Argo CD refuses the sync; %s", a.name(), where(a, env), o, o.from(), proj.Name, o.namespace, fix)
	}
}

// denialFix says which project destination denies the cluster and
// namespace, and what to do: adding a destination does not help, as Argo
// CD stops at the denial.
func (p *project) denialFix(c argocd.Cluster, namespace string) (string, int, bool) {
	i, how := p.DenyingDestination(c, namespace)
	if how == argocd.NotDenied {
		return "", 0, false
	}
	at := fmt.Sprintf("%s[%d] %s", p.fixPath("destinations"), i, destinationText(p.Spec().Destinations[i]))
	if how == argocd.DeniedCluster {
		return fmt.Sprintf("%s denies the cluster in namespace %s, whatever the other destinations permit (Argo CD's rule since v3.6.2: a denied name or server refuses the cluster wherever the destination's namespace matches, even where its other field matches); remove that denial, or narrow its namespace", at, namespace), i, true
	}
	return fmt.Sprintf("%s denies namespace %s on the cluster, whatever the other destinations permit; remove that denial, or deploy to another namespace", at, namespace), i, true
}

// destinationText is a project destination as the spec writes it.
func destinationText(d argocd.ProjectDestination) string {
	var fields []string
	for _, f := range []struct{ name, value string }{{"server", d.Server}, {"name", d.Name}, {"namespace", d.Namespace}} {
		if f.value != "" {
			fields = append(fields, fmt.Sprintf("%s: %q", f.name, f.value))
		}
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// fixPath is the spec path of a project field, or its name if undeclared.
func (p *project) fixPath(field string) string {
	if p.declared != nil {
		return p.declared.FieldPath(field)
	}
	return "project " + p.Name + "'s " + field
}

// namespacedKindFix says how to make p permit a namespaced kind: add it to
// the whitelist, or remove it from the blacklist.
func (p *project) namespacedKindFix(group, kind string) string {
	notWhitelisted, blacklisted := p.NamespacedRefusal(group, kind)
	var fixes []string
	if notWhitelisted {
		fixes = append(fixes, fmt.Sprintf("add {group: %q, kind: %q} to %s", group, kind, p.fixPath("namespaceResourceWhitelist")))
	}
	if blacklisted {
		fixes = append(fixes, "remove it from "+p.fixPath("namespaceResourceBlacklist"))
	}
	return strings.Join(fixes, " and ")
}

// repoPathKinds checks the kinds deployed from dir against the project: a
// cluster-scoped kind must be allow-listed (by name too), a namespaced one
// permitted by the namespace lists.
func (v *verifier) repoPathKinds(a app, proj *project, dir string) {
	reported := map[string]bool{}
	for _, o := range v.in.Folders.build(dir).Objects {
		group := manifests.Group(o.APIVersion)
		key := group + "/" + o.Kind
		if reported[key] {
			continue
		}
		if manifests.ClusterScoped(o.APIVersion, o.Kind) {
			if !proj.IsGroupKindPermitted(group, o.Kind, o.Name, false) {
				reported[key] = true
				v.reportf(diag.ProjectKind, a.origin, "Application %q (%s) deploys the cluster-scoped kind %s (%s), which project %s does not allow: add {group: %q, kind: %q} to %s", a.name(), a.file, o.Kind, o.Where(), proj.Name, group, o.Kind, proj.fixPath("clusterResourceWhitelist"))
			}
		} else if !proj.IsGroupKindPermitted(group, o.Kind, o.Name, true) {
			reported[key] = true
			v.reportf(diag.ProjectKind, a.origin, "Application %q (%s) deploys %s (%s), which project %s does not allow: %s", a.name(), a.file, o.Kind, o.Where(), proj.Name, proj.namespacedKindFix(group, o.Kind))
		}
	}
}

// sourceHint says why a pattern that looks like the repository does not
// permit it, where Argo CD's reading differs from a reader's: a "/" at the
// end counts, and braces do not alternate.
func sourceHint(patterns []string, repo string) string {
	trim := func(u string) string { return argocd.NormalizeGitURL(strings.TrimSuffix(strings.TrimSpace(u), "/")) }
	for _, p := range patterns {
		switch {
		case trim(p) == trim(repo):
			return " (Argo CD compares URLs with the \"/\" at the end: write them alike)"
		case strings.ContainsAny(p, "{}"):
			return " (braces do not alternate in sourceRepos: Argo CD reads " + p + " as a URL; list each repository)"
		}
	}
	return ""
}

// noNamespaceHint says why a destination of the project that gives no
// namespace does not permit an Application's namespace.
func noNamespaceHint(dests []argocd.ProjectDestination, namespace string) string {
	if namespace != "" && slices.ContainsFunc(dests, func(d argocd.ProjectDestination) bool { return d.Namespace == "" }) {
		return " (a destination without a namespace permits only Applications that name none: write namespace: \"*\" for any)"
	}
	return ""
}

// namespaceHint says where a /regexp/ is not what Go's regexp reads:
// Argo CD's is regexp2's (.NET) syntax.
func namespaceHint(patterns []string) string {
	for _, p := range patterns {
		if strings.HasPrefix(p, "/") && strings.Contains(p, "[[:") {
			return " (Argo CD's /regexp/ is .NET's syntax, which has no POSIX classes such as [[:alpha:]])"
		}
	}
	return ""
}

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
// without enforcing it, so an unmatched one would sync with the
// controller's rights, which the project meant to avoid.
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
