// Package argocd is what Argo CD would say: Argo CD's own rules for
// AppProjects and Applications, ported function by function (each names
// the upstream file it follows) and proven against Argo CD's code by the
// conformance module (conformance/argocd): URL normalization, Argo CD's
// globs and /regexp/ lists, what a project permits (sources, destinations
// through the cluster they name, Application namespaces, kinds),
// ValidateProject and the offline part of ValidatePermissions. Where an
// answer needs the live installation (a cluster platc does not know, a
// repository's reachability), it says it is not known rather than guess.
//
// It also holds what platc knows of Argo CD's objects: the names,
// annotations and finalizers they use, and the pieces every Application is
// built from (a Helm chart source, the automated sync policy, the project
// of stack instances), and the values of Argo CD's installation. render and
// rgd both build Applications from them, so that an Application looks the
// same whether platc renders it or kro creates it.
//
// It does not decide which Applications exist (render's and rgd's job), nor
// where a problem is in the spec (verify's).
package argocd

import (
	"slices"
	"strings"

	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// Names and values of Argo CD v3 that the output relies on.
const (
	APIVersion      = "argoproj.io/v1alpha1"
	InClusterServer = "https://kubernetes.default.svc"
	SyncWave        = "argocd.argoproj.io/sync-wave"
	// ManifestGeneratePaths lists the paths of the repository whose change
	// refreshes an Application (Argo CD's webhook).
	ManifestGeneratePaths = "argocd.argoproj.io/manifest-generate-paths"
	ResourcesFinalizer    = "resources-finalizer.argocd.argoproj.io"
	CreateNamespace       = "CreateNamespace=true"
	DefaultProjectName    = "default"
	// ValuesRef is the ref name of the values source of a multi-source
	// Application; "$values/..." in valueFiles is the root of its repository.
	ValuesRef = "values"
)

// ChartSource returns the source of a Helm chart pin. A chart of an
// oci:// repository is an OCI source (Argo CD 3.1 and later): the chart
// is the last element of repoURL and the path is always "."; one of a
// registry written without a scheme is a Helm source, as written, which
// Argo CD pulls from the registry.
func ChartSource(c *model.Chart) *object.Map {
	src := object.NewMap()
	if strings.HasPrefix(c.RepoURL, "oci://") {
		return src.Set("repoURL", strings.TrimSuffix(c.RepoURL, "/")+"/"+c.Chart).
			Set("targetRevision", c.Version).
			Set("path", ".")
	}
	return src.Set("repoURL", c.RepoURL).
		Set("chart", c.Chart).
		Set("targetRevision", c.Version)
}

// SourceRepo returns the repoURL an AppProject must allow for a chart: the
// one ChartSource writes.
func SourceRepo(c *model.Chart) string {
	return ChartSource(c).Get("repoURL").(string)
}

// SetDescription sets an Application spec's info to the description, which
// Argo CD shows beside the Application; an empty one sets nothing.
func SetDescription(spec *object.Map, description string) {
	if description != "" {
		spec.Set("info", []any{object.NewMap().Set("name", "Description").Set("value", description)})
	}
}

// ChildHookFinalizers is the jq path expression of the finalizers Argo
// CD's application controller (3.3 and later) adds to an Application
// whose sources have PreDelete or PostDelete hooks (a Helm chart's
// pre-delete and post-delete hooks are, Kyverno's for one):
// pre-delete-finalizer.argocd.argoproj.io and post-delete-finalizer... ,
// each with its "/cleanup" stage. They are the controller's, not Git's:
// an Application that syncs Applications would find each such child
// OutOfSync for ever (its finalizers are not those of its manifest), and
// with selfHeal sync it again and again, removing them, which the
// controller adds back (argoproj/argo-cd#27533).
const ChildHookFinalizers = `.metadata.finalizers[]? | select(startswith("pre-delete-finalizer.argocd.argoproj.io") or startswith("post-delete-finalizer.argocd.argoproj.io"))`

// childHookFinalizers is the ignoreDifferences entry of ChildHookFinalizers:
// one value, which all share (a rendered object is not changed once made).
var childHookFinalizers = object.NewMap().
	Set("group", "argoproj.io").
	Set("kind", "Application").
	Set("jqPathExpressions", []string{ChildHookFinalizers})

// IgnoreChildHookFinalizers adds to the spec of an Application that syncs
// Applications (a root, a group) the ignoreDifferences entry of
// ChildHookFinalizers, after those it has. Its sync does not respect it
// (RespectIgnoreDifferences would keep a child's finalizers as they are
// whenever it has such a one, and so never apply a change platc renders
// to them): a sync of the parent replaces a child's finalizers, and the
// controller adds its own back on its next comparison of the child.
func IgnoreChildHookFinalizers(spec *object.Map) {
	ids, _ := spec.Get("ignoreDifferences").([]any)
	spec.Set("ignoreDifferences", append(slices.Clip(ids), childHookFinalizers))
}

// Application returns an Application with its metadata and spec, in the
// order people read them.
func Application(metadata, spec *object.Map) *object.Map {
	return object.NewMap().
		Set("apiVersion", APIVersion).
		Set("kind", "Application").
		Set("metadata", metadata).
		Set("spec", spec)
}

// InstancesProject is the AppProject of the Applications kro creates for a
// client's instance of a stack in env: the client's project for the stack,
// else the environment's. Where that would be Argo CD's default project,
// which holds no Application outside Argo CD's namespace (and kro creates
// them beside the instance, ADR 010), it is the project platc renders for
// the module that delivers the instances, named after the module;
// generated says so.
func InstancesProject(env *model.Environment, cs *model.ClientStack, module string) (name string, generated bool) {
	switch {
	case cs != nil && cs.Project != "":
		return cs.Project, false
	case env.Project != DefaultProjectName:
		return env.Project, false
	}
	return module, true
}

// RelativePath is the path of file from folder dir, both clean slash
// paths from the repository root: how an Application's helm.valueFiles
// names a file of the repository from its source's folder.
func RelativePath(dir, file string) string {
	d, f := strings.Split(dir, "/"), strings.Split(file, "/")
	n := 0
	for n < len(d) && n < len(f)-1 && d[n] == f[n] {
		n++
	}
	return strings.Repeat("../", len(d)-n) + strings.Join(f[n:], "/")
}
