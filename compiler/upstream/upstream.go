// Package upstream names, in one place, the releases of the projects platc
// checks by, renders with and delivers to: Argo CD (whose rules
// compiler/argocd ports and whose controller the delivery test runs), kro
// and Helm (whose code platc links), kustomize, Kubernetes (the schemas of
// its built-in kinds, the default kubernetes.version, the delivery test's
// API server), the argo-cd chart that make bootstrap-argocd installs, and
// the delivery test's kwok and etcd.
//
// It pins no module: the go.mod files do. TestTheOnePlace requires every
// go.mod of the repository, the Makefile, the docs and every comment to
// name these versions and no other, so that a bump changes this file, runs
// the tests, and follows the list they print (docs/upstream.md).
package upstream

import "strings"

// The releases platc targets.
const (
	// ArgoCD is the Argo CD whose rules compiler/argocd ports and whose
	// application controller and repo server the delivery test runs.
	// renovate: datasource=go depName=github.com/argoproj/argo-cd/v3
	ArgoCD = "v3.6.2"
	// Kro is the kro whose graph builder and CEL environment check
	// stacks, and whose controller the delivery test runs.
	// renovate: datasource=go depName=github.com/kubernetes-sigs/kro
	Kro = "v0.9.4"
	// Helm is the Helm whose SDK renders charts: the one ArgoCD's image
	// bundles (hack/tool-versions.sh), so that platc renders a chart as
	// Argo CD's repo server does.
	// renovate: datasource=go depName=helm.sh/helm/v4
	Helm = "v4.3.2"
	// Kustomize is the kustomize whose API builds kustomizations, and the
	// binary the delivery test's repo server runs. Argo CD v3.6.2's image
	// bundles v5.8.3 (ArgoCDKustomize), whose modules platc cannot link:
	// sigs.k8s.io/kustomize/api and kyaml v0.21.3 require
	// k8s.io/kube-openapi v0.0.0-20261001230523-97fa35140926, which moved
	// to sigs.k8s.io/structured-merge-diff/v7, while the k8s.io/* modules
	// of Kubernetes v1.37.2 (k8s.io/apimachinery v0.37.2, which Helm's
	// SDK and kro's code bring through client-go) are built on v6: their
	// pkg/util/managedfields/internal no longer compiles. A replace of
	// kube-openapi would break go install ...@latest, and the k8s.io/*
	// modules that use v7 (v0.38) are not released yet. v5.8.2 builds as
	// v5.8.3 does: API v0.21.3 changed no behaviour (loops replaced by
	// slices.Contains, kyaml's built-in OpenAPI bundle stored unzipped,
	// the same schemas), and it needs Go 1.27, which platc's module
	// therefore does not require yet (it builds with Go 1.26).
	// renovate: datasource=go depName=sigs.k8s.io/kustomize/kustomize/v5
	Kustomize = "v5.8.2"
	// KustomizeAPI is the sigs.k8s.io/kustomize/api module of Kustomize,
	// and ArgoCDKustomize the kustomize ArgoCD's image bundles.
	KustomizeAPI    = "v0.21.2"
	ArgoCDKustomize = "v5.8.3"
	// Kubernetes is the Kubernetes whose published OpenAPI the built-in
	// kinds' schemas are (schemas/builtin), the default of an
	// environment's kubernetes.version, and the delivery test's API
	// server; its k8s.io/* modules are KubernetesModules.
	// renovate: datasource=go depName=k8s.io/kubernetes
	Kubernetes = "v1.37.2"
	// ArgoCDChart is the argo-cd chart (argoproj/argo-helm) that make
	// bootstrap-argocd installs, with its image set to ArgoCD and its CRDs
	// taken from ArgoCD's own manifests: ArgoCDChartApp is the newest
	// appVersion of a chart whose version could be checked offline.
	// renovate: datasource=helm depName=argo-cd registryUrl=https://argoproj.github.io/argo-helm
	ArgoCDChart    = "10.1.1"
	ArgoCDChartApp = "v3.4.4"
	// Kwok and Etcd are the delivery test's kwok (its nodes and pods) and
	// etcd (the API server's store).
	// renovate: datasource=go depName=sigs.k8s.io/kwok
	Kwok = "v0.8.0"
	// renovate: datasource=go depName=go.etcd.io/etcd/server/v3
	Etcd = "v3.7.3"
	// GoToolchain is the Go that builds the modules of Argo CD (its go.mod
	// says go 1.27.0): the conformance module of Argo CD and the delivery
	// test's programs set GOTOOLCHAIN to it, and the go command fetches it
	// from the module proxy once. platc's own module builds with Go 1.26.
	GoToolchain = "go1.27.3"
)

// KubernetesModules is the version of the k8s.io/* staging modules
// (k8s.io/api, k8s.io/apimachinery, ...) of Kubernetes: "v0.37.2" for
// "v1.37.2".
func KubernetesModules() string {
	return "v0" + strings.TrimPrefix(Kubernetes, "v1")
}

// Minor is the minor release of a version: "v3.6" of "v3.6.2" or "3.6".
// A version that is not major.minor[.patch] is returned as it is.
func Minor(version string) string {
	v := "v" + strings.TrimPrefix(version, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}

// ArgoCDPorted are the files of Argo CD's module (at ArgoCD) whose rules
// compiler/argocd, check, verify, render and charts port, or whose facts
// they use (the bundled tools, the CRDs): what make upstream-diff compares
// between two releases when ArgoCD moves, and between ArgoCD and every
// newer release the module proxy serves (CI). Read-only.
var ArgoCDPorted = []string{
	"go.mod", // gobwas/glob, regexp2, robfig/cron, gojq: the libraries the rules run on
	"hack/tool-versions.sh",
	"docs/operator-manual/health.md",
	"manifests/crds/application-crd.yaml",
	"manifests/crds/appproject-crd.yaml",
	"pkg/apis/application/v1alpha1/app_project_types.go",
	"pkg/apis/application/v1alpha1/types.go",
	"reposerver/repository/repository.go",
	"server/server.go",
	"util/app/path/path.go",
	"util/argo/argo.go",
	"util/argo/normalizers/diff_normalizer.go",
	"util/db/cluster.go",
	"util/git/git.go",
	"util/glob/glob.go",
	"util/glob/list.go",
	"util/helm/cmd.go",
	"util/kustomize/kustomize.go",
	"util/rbac/rbac.go",
	"util/regex/regex.go",
	"util/security/application_namespaces.go",
	"util/settings/impersonation.go",
	"util/settings/settings.go",
	"util/sourceintegrity/gpg.go",
}

// KroPorted are the files of kro's module (at Kro) that compiler/kro
// ports beside the code it links, compared as ArgoCDPorted are.
// Read-only.
var KroPorted = []string{
	"go.mod",
	"helm/templates/cluster-role.yaml", // the RBAC verify reads (krorbac.go)
	"pkg/features/features.go",
	"pkg/graph/build_context.go",
	"pkg/graph/builder.go",
	"pkg/graph/parser/cel.go", // extractExpressions, which kro.Unterminated ports
	"pkg/graph/validation.go",
	"pkg/runtime/collection.go",
	"pkg/simpleschema/markers.go",
}

// Target is one release platc targets, as platc version lists it.
type Target struct {
	Name    string // "Argo CD"
	Version string // "v3.6.2"
	Module  string // its Go module, "" where platc builds none of it
	Use     string // what platc does with it
}

// Targets are the releases platc targets, in the order platc version
// prints them. Read-only.
var Targets = []Target{
	{"Argo CD", ArgoCD, "github.com/argoproj/argo-cd/v3", "its rules checked by, its controller and repo server delivered to"},
	{"kro", Kro, "github.com/kubernetes-sigs/kro", "its graph builder and CEL linked, its controller delivered to"},
	{"Helm", Helm, "helm.sh/helm/v4", "renders charts (the Helm Argo CD " + ArgoCD + " bundles)"},
	{"kustomize", Kustomize, "sigs.k8s.io/kustomize/kustomize/v5", "builds kustomizations"},
	{"Kubernetes", Kubernetes, "k8s.io/kubernetes", "built-in kinds' schemas, the default kubernetes.version, the delivery test's API server"},
	{"argo-cd chart", ArgoCDChart, "", "make bootstrap-argocd (appVersion " + ArgoCDChartApp + ", run with Argo CD " + ArgoCD + ")"},
	{"kwok", Kwok, "sigs.k8s.io/kwok", "the delivery test's nodes and pods"},
	{"etcd", Etcd, "go.etcd.io/etcd/server/v3", "the delivery test's API server's store"},
}
