package manifests

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
)

// clusterScoped are the cluster-scoped kinds Check knows, by API group
// ("" is the core group): the common ones of Kubernetes, and those of the
// operators a platform usually runs (Kyverno, cert-manager, External
// Secrets, kro). A kind not listed is taken as namespaced.
var clusterScoped = map[string][]string{
	"":                             {"Namespace", "PersistentVolume"},
	"rbac.authorization.k8s.io":    {"ClusterRole", "ClusterRoleBinding"},
	"apiextensions.k8s.io":         {"CustomResourceDefinition"},
	"storage.k8s.io":               {"StorageClass", "CSIDriver"},
	"scheduling.k8s.io":            {"PriorityClass"},
	"admissionregistration.k8s.io": {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"},
	"apiregistration.k8s.io":       {"APIService"},
	"networking.k8s.io":            {"IngressClass"},
	"node.k8s.io":                  {"RuntimeClass"},
	"kyverno.io":                   {"ClusterPolicy"},
	"cert-manager.io":              {"ClusterIssuer"},
	"external-secrets.io":          {"ClusterSecretStore", "ClusterExternalSecret"},
	"kro.run":                      {"ResourceGraphDefinition"},
}

// ClusterScoped reports whether a kind (by apiVersion group and kind) is one
// of the cluster-scoped kinds Check knows (clusterScoped). The version in
// apiVersion does not matter.
func ClusterScoped(apiVersion, kind string) bool {
	return slices.Contains(clusterScoped[Group(apiVersion)], kind)
}

// Group is the API group of an apiVersion: "" for the core group (v1).
func Group(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// Check checks the objects of one Application for duplicates, and
// returns the problems, sorted: two objects with the same group, kind,
// namespace and name (Argo CD would fight itself); the second one is
// blamed. As Argo CD's NormalizeTargetObjects (controller/state.go) does
// before it compares, a namespaced object that sets no namespace is in
// destinationNamespace, and a cluster-scoped one (see ClusterScoped) is in
// none, whatever it sets: Argo CD clears it. Kinds Check does not know are
// taken as namespaced.
//
// A namespaced object may name another namespace than the destination's:
// Argo CD applies it there, where the project permits that namespace,
// which verify checks for each environment.
func Check(objects []Object, destinationNamespace string) []Problem {
	var problems []Problem
	sorted := slices.Clone(objects)
	slices.SortStableFunc(sorted, compareObjects)
	type key struct{ group, kind, namespace, name string }
	seen := map[key]Object{}
	for _, o := range sorted {
		k := key{Group(o.APIVersion), o.Kind, o.Namespace, o.Name}
		switch {
		case ClusterScoped(o.APIVersion, o.Kind):
			k.namespace = ""
		case o.Namespace == "":
			k.namespace = destinationNamespace
		}
		if first, dup := seen[k]; dup {
			problems = append(problems, Problem{ID: diag.ObjectConflict, File: o.File, Line: o.Line,
				Msg: fmt.Sprintf("%s %q is declared twice (first at %s): Argo CD would apply both and fight itself: keep one", o.Kind, o.Name, first.Where())})
			continue
		}
		seen[k] = o
	}
	slices.SortFunc(problems, compareProblems)
	return problems
}
