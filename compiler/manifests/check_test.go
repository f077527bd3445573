package manifests

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/diag"
)

func TestCheck(t *testing.T) {
	obj := func(apiVersion, kind, name, namespace string, line int) Object {
		return Object{APIVersion: apiVersion, Kind: kind, Name: name, Namespace: namespace, File: "m/a.yaml", Line: line}
	}
	tests := []struct {
		name        string
		objects     []Object
		destination string
		want        []Problem
	}{{
		name: "fine",
		objects: []Object{
			obj("v1", "ConfigMap", "no-namespace", "", 1),
			obj("v1", "ConfigMap", "destination", "rag", 2),
			obj("v1", "Namespace", "rag", "", 3),
			obj("v1", "Namespace", "other", "", 4),
			obj("rbac.authorization.k8s.io/v1", "ClusterRole", "reader", "", 5),
			obj("kyverno.io/v1", "ClusterPolicy", "p", "", 6),
			// same name, other kind, group or namespace: not duplicates
			obj("v1", "Secret", "no-namespace", "", 7),
			obj("example.com/v1", "ConfigMap", "no-namespace", "", 8),
			obj("rbac.authorization.k8s.io/v1", "Role", "reader", "", 9),
		},
		destination: "rag",
	}, {
		// Argo CD applies an object where it says (the project must
		// permit it there: verify's), and clears the namespace of a
		// cluster-scoped one before it compares.
		name: "other namespaces",
		objects: []Object{
			obj("apps/v1", "Deployment", "web", "other", 1),
			obj("apps/v1", "Deployment", "web", "", 2), // in rag: not the one in other
			obj("v1", "Namespace", "rag", "rag", 3),
			obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "things.example.com", "rag", 4),
			obj("cert-manager.io/v1", "ClusterIssuer", "letsencrypt", "kube-system", 5),
			obj("kro.run/v1alpha1", "ResourceGraphDefinition", "stack", "rag", 6),
		},
		destination: "rag",
	}, {
		name: "duplicates",
		objects: []Object{
			obj("apps/v1", "Deployment", "web", "", 1),
			obj("apps/v1beta1", "Deployment", "web", "rag", 5), // the destination applies to the first
			obj("rbac.authorization.k8s.io/v1", "ClusterRole", "reader", "", 9),
			// cluster-scoped: the namespace it sets is cleared
			{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader", Namespace: "rag", File: "m/b.yaml"},
		},
		destination: "rag",
		want: []Problem{
			{ID: diag.ObjectConflict, File: "m/a.yaml", Line: 5, Msg: `Deployment "web" is declared twice (first at m/a.yaml:1): Argo CD would apply both and fight itself: keep one`},
			{ID: diag.ObjectConflict, File: "m/b.yaml", Msg: `ClusterRole "reader" is declared twice (first at m/a.yaml:9): Argo CD would apply both and fight itself: keep one`},
		},
	}, {
		name: "no destination namespace",
		objects: []Object{
			obj("v1", "ConfigMap", "a", "one", 1),
			obj("v1", "ConfigMap", "a", "two", 2),
			obj("v1", "ConfigMap", "a", "", 3),
			obj("v1", "ConfigMap", "a", "", 4),
		},
		want: []Problem{{ID: diag.ObjectConflict, File: "m/a.yaml", Line: 4, Msg: `ConfigMap "a" is declared twice (first at m/a.yaml:3): Argo CD would apply both and fight itself: keep one`}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Check(tt.objects, tt.destination)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusterScoped(t *testing.T) {
	for _, tt := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"v1", "Namespace", true},
		{"v1", "PersistentVolume", true},
		{"v1", "PersistentVolumeClaim", false},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", true},
		{"rbac.authorization.k8s.io/v1", "RoleBinding", false},
		{"storage.k8s.io/v1", "StorageClass", true},
		{"storage.k8s.io/v1", "CSIDriver", true},
		{"scheduling.k8s.io/v1", "PriorityClass", true},
		{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", true},
		{"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", true},
		{"apiregistration.k8s.io/v1", "APIService", true},
		{"networking.k8s.io/v1", "IngressClass", true},
		{"networking.k8s.io/v1", "Ingress", false},
		{"node.k8s.io/v1", "RuntimeClass", true},
		{"kyverno.io/v1", "ClusterPolicy", true},
		{"kyverno.io/v1", "Policy", false},
		{"cert-manager.io/v1", "ClusterIssuer", true},
		{"external-secrets.io/v1beta1", "ClusterSecretStore", true},
		{"external-secrets.io/v1beta1", "ClusterExternalSecret", true},
		{"external-secrets.io/v1beta1", "ExternalSecret", false},
		{"kro.run/v1alpha1", "ResourceGraphDefinition", true},
		{"example.com/v1", "ClusterPolicy", false}, // the group matters
		{"v1", "ClusterRole", false},
	} {
		if got := ClusterScoped(tt.apiVersion, tt.kind); got != tt.want {
			t.Errorf("ClusterScoped(%q, %q) = %v, want %v", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
}
