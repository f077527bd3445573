package argocd

import (
	"slices"
	"strings"

	"github.com/platc/platc/compiler/object"
)

// ApplicationHealthKey is the argocd-cm key of the health check of
// Applications, and ApplicationHealthLua the check itself, as Argo CD's
// health documentation gives it (docs/operator-manual/health.md).
// Argo CD has not assessed an Application's health since 1.8, so a sync
// wave of child Applications waits only for them to exist; with the check,
// for them to be healthy.
const (
	ApplicationHealthKey = "resource.customizations.health.argoproj.io_Application"
	ApplicationHealthLua = `hs = {}
hs.status = "Progressing"
hs.message = ""
if obj.status ~= nil then
  if obj.status.health ~= nil then
    hs.status = obj.status.health.status
    if obj.status.health.message ~= nil then
      hs.message = obj.status.health.message
    end
  end
end
return hs
`
	// ApplicationNamespacesKey is the argocd-cmd-params-cm key that
	// enables Applications outside Argo CD's namespace, for the
	// application controller and the API server alike: a comma-separated
	// list (the --application-namespaces flag).
	ApplicationNamespacesKey = "application.namespaces"
)

// Install is what an Argo CD installation needs for a platform's
// Applications: the namespaces outside Argo CD's own that hold some, and
// whether Applications have a health.
type Install struct {
	ApplicationNamespaces []string
	ApplicationHealth     bool
	// Impersonation is where a project names destination service
	// accounts: Argo CD syncs as them only with impersonation enabled.
	// It is not enforced, so that the projects that name none (Argo
	// CD's default, with the root Applications) sync as Argo CD's
	// controller, as before; verify requires every Application of a
	// project that names some to match one.
	Impersonation bool
	// KustomizeBuildOptions is argocd-cm's kustomize.buildOptions.
	KustomizeBuildOptions string
}

// Empty reports whether the installation needs nothing beyond Argo CD's
// defaults.
func (in Install) Empty() bool {
	return len(in.ApplicationNamespaces) == 0 && !in.ApplicationHealth && !in.Impersonation && in.KustomizeBuildOptions == ""
}

// ApplicationNamespacesValue is the value of application.namespaces: the
// namespaces, sorted, once each, comma-separated.
func (in Install) ApplicationNamespacesValue() string {
	ns := slices.Clone(in.ApplicationNamespaces)
	slices.Sort(ns)
	return strings.Join(slices.Compact(ns), ",")
}

// KustomizeBuildOptionsKey is argocd-cm's key of the options Argo CD
// passes to kustomize build.
const KustomizeBuildOptionsKey = "kustomize.buildOptions"

// HelmValues are the values of Argo CD's Helm chart (argo-cd, from
// argo-helm) that configure it: configs.params is argocd-cmd-params-cm,
// configs.cm is argocd-cm.
func (in Install) HelmValues() *object.Map {
	configs := object.NewMap()
	if len(in.ApplicationNamespaces) > 0 {
		configs.Set("params", object.NewMap().Set(ApplicationNamespacesKey, in.ApplicationNamespacesValue()))
	}
	if in.ApplicationHealth || in.Impersonation || in.KustomizeBuildOptions != "" {
		configs.Set("cm", object.NewMap().
			SetIf(in.KustomizeBuildOptions != "", KustomizeBuildOptionsKey, in.KustomizeBuildOptions).
			SetIf(in.ApplicationHealth, ApplicationHealthKey, ApplicationHealthLua).
			SetIf(in.Impersonation, ImpersonationEnabledKey, "true").
			SetIf(in.Impersonation, ImpersonationEnforcedKey, "false"))
	}
	return object.NewMap().Set("configs", configs)
}
