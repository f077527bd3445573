package verify

import (
	"testing"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// TestKindProblem: Kubernetes' own kinds at an environment's version, and
// the kinds of a group the platform defines.
func TestKindProblem(t *testing.T) {
	env := &model.Environment{Name: "prod", Kubernetes: model.Kubernetes{Version: "1.34.0"}}
	old := &model.Environment{Name: "old", Kubernetes: model.Kubernetes{Version: "1.20.0"}}
	k := newEnvKinds(env)
	k.define("shop.example.com", "Widget")
	k.define("seen.example.com", "")
	// The kinds of the CRDs platc embeds, in groups other projects
	// share, and a stack's instance kind in kro's default group.
	k.define("argoproj.io", "Application")
	k.define("argoproj.io", "AppProject")
	k.define("kro.run", "ResourceGraphDefinition")
	k.define("kro.run", "Site")
	listed := &model.Environment{Name: "listed", Kubernetes: model.Kubernetes{Version: "1.34.0", APIVersions: []string{"argoproj.io/v1alpha1/Applicaton", "shop.example.com/v1/Gadget"}}}
	kl := newEnvKinds(listed)
	kl.groups = k.groups
	for _, c := range []struct {
		env              *model.Environment
		apiVersion, kind string
		want             string
		id               diag.ID // of a problem: unknown-kind where not given
	}{
		{env, "apps/v1", "Deployment", "", 0},
		{env, "v1", "ConfigMap", "", 0},
		{env, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", 0},
		{env, "apps/v1", "Deploymnet", `Kubernetes defines no kind Deploymnet in apps/v1 (did you mean "Deployment"?)`, 0},
		{env, "apps/v9", "Deployment", `Kubernetes serves no API version apps/v9: use "apps/v1"`, 0},
		{env, "policy/v1beta1", "PodDisruptionBudget", "Kubernetes 1.34.0 no longer serves policy/v1beta1 PodDisruptionBudget (removed in 1.25): use policy/v1 PodDisruptionBudget", 0},
		{old, "policy/v1beta1", "PodDisruptionBudget", "", 0},
		{old, "resource.k8s.io/v1beta1", "ResourceClaim", "Kubernetes 1.20.0 does not serve resource.k8s.io/v1beta1 ResourceClaim (it does from 1.32): raise environments.old.kubernetes.version, or use another version of the kind", 0},
		// GA kinds say when they came too.
		{old, "resource.k8s.io/v1", "ResourceClaim", "Kubernetes 1.20.0 does not serve resource.k8s.io/v1 ResourceClaim (it does from 1.34): raise environments.old.kubernetes.version, or use another version of the kind", 0},
		{env, "shop.example.com/v1", "Widget", "", 0},
		{env, "shop.example.com/v1", "Widgit", `no CRD of the platform defines kind Widgit in group shop.example.com, which defines Widget (did you mean "Widget"?); if the cluster has it otherwise, add "shop.example.com/v1" to environments.prod.kubernetes.apiVersions`, 0},
		{env, "seen.example.com/v1", "Anything", "", 0},
		{env, "elsewhere.example.com/v1", "Anything", "", 0},
		// Groups several projects share: Argo Rollouts' and Workflows'
		// kinds, an ApplicationSet (whose CRD platc does not embed), the
		// instances of an RGD that names no group, are the cluster's;
		// a kind spelled like a known one is likely a typo.
		{env, "argoproj.io/v1alpha1", "Rollout", "", 0},
		{env, "argoproj.io/v1alpha1", "Workflow", "", 0},
		{env, "argoproj.io/v1alpha1", "ApplicationSet", "", 0},
		{env, "kro.run/v1alpha1", "Gadget", "", 0},
		{env, "argoproj.io/v1alpha1", "Applicaton", `no CRD of the platform defines kind Applicaton in group argoproj.io, which Argo CD, Argo Workflows, Argo Rollouts and Argo Events share, and it is spelled like Application: fix the kind, or if another project's CRD defines it, add "argoproj.io/v1alpha1/Applicaton" to environments.prod.kubernetes.apiVersions`, diag.SharedGroupKind},
		{env, "kro.run/v1alpha1", "Sites", `no CRD of the platform defines kind Sites in group kro.run, which kro and every ResourceGraphDefinition that names no group share, and it is spelled like Site: fix the kind, or if another project's CRD defines it, add "kro.run/v1alpha1/Sites" to environments.prod.kubernetes.apiVersions`, diag.SharedGroupKind},
		// A kind the environment says its cluster serves.
		{listed, "argoproj.io/v1alpha1", "Applicaton", "", 0},
		{listed, "shop.example.com/v1", "Gadget", "", 0},
		{listed, "shop.example.com/v1", "Gizmo", `no CRD of the platform defines kind Gizmo in group shop.example.com, which defines Widget; if the cluster has it otherwise, add "shop.example.com/v1" to environments.listed.kubernetes.apiVersions`, 0},
	} {
		kinds := k
		if c.env == listed {
			kinds = kl
		}
		got := kindProblem(c.env, kinds, c.apiVersion, c.kind)
		want := kindVerdict{c.id, c.want}
		if c.want != "" && c.id == 0 {
			want.id = diag.UnknownKind
		}
		if got != want {
			t.Errorf("%s %s at %s:\n got %v %q\nwant %v %q", c.apiVersion, c.kind, c.env.Kubernetes.Version, got.id, got.msg, want.id, want.msg)
		}
	}
}
