package verify

import (
	"testing"

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
	for _, c := range []struct {
		env              *model.Environment
		apiVersion, kind string
		want             string
	}{
		{env, "apps/v1", "Deployment", ""},
		{env, "v1", "ConfigMap", ""},
		{env, "apiextensions.k8s.io/v1", "CustomResourceDefinition", ""},
		{env, "apps/v1", "Deploymnet", `Kubernetes defines no kind Deploymnet in apps/v1 (did you mean "Deployment"?)`},
		{env, "apps/v9", "Deployment", `Kubernetes serves no API version apps/v9: use "apps/v1"`},
		{env, "policy/v1beta1", "PodDisruptionBudget", "Kubernetes 1.34.0 no longer serves policy/v1beta1 PodDisruptionBudget (removed in 1.25): use policy/v1 PodDisruptionBudget"},
		{old, "policy/v1beta1", "PodDisruptionBudget", ""},
		{old, "resource.k8s.io/v1beta1", "ResourceClaim", "Kubernetes 1.20.0 does not serve resource.k8s.io/v1beta1 ResourceClaim (it does from 1.32): raise environments.old.kubernetes.version, or use another version of the kind"},
		// GA kinds say when they came too.
		{old, "resource.k8s.io/v1", "ResourceClaim", "Kubernetes 1.20.0 does not serve resource.k8s.io/v1 ResourceClaim (it does from 1.34): raise environments.old.kubernetes.version, or use another version of the kind"},
		{env, "shop.example.com/v1", "Widget", ""},
		{env, "shop.example.com/v1", "Widgit", `no CRD of the platform defines kind Widgit in group shop.example.com, which defines Widget (did you mean "Widget"?); if the cluster has it otherwise, add "shop.example.com/v1" to environments.prod.kubernetes.apiVersions`},
		{env, "seen.example.com/v1", "Anything", ""},
		{env, "elsewhere.example.com/v1", "Anything", ""},
	} {
		if got := kindProblem(c.env, k, c.apiVersion, c.kind); got != c.want {
			t.Errorf("%s %s at %s:\n got %q\nwant %q", c.apiVersion, c.kind, c.env.Kubernetes.Version, got, c.want)
		}
	}
}
