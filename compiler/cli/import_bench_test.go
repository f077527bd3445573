package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/cli"
)

// BenchmarkImport measures platc import as a user runs it (-n: the
// comparison, nothing written) on a repository of 100 Applications in
// two environments, a kustomize overlay each: charts with values and
// folders of another repository, and their AppProject. Issue 41 asks
// for under a second.
func BenchmarkImport(b *testing.B) {
	dir := b.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			b.Fatal(err)
		}
	}
	var apps, resources strings.Builder
	for i := range 100 {
		source := fmt.Sprintf("    repoURL: https://git.example.com/apps.git\n    targetRevision: main\n    path: apps/app-%d\n", i)
		if i%2 == 0 {
			source = fmt.Sprintf("    repoURL: https://charts.example.com\n    chart: chart-%d\n    targetRevision: 1.%d.0\n    helm:\n      values: |\n        replicas: %d\n        image: {tag: v%d}\n", i%7, i%5, i%3+1, i)
		}
		fmt.Fprintf(&apps, "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app-%d\n  namespace: argocd\n  annotations: {argocd.argoproj.io/sync-wave: \"%d\"}\n  finalizers: [resources-finalizer.argocd.argoproj.io]\nspec:\n  project: team\n  source:\n%s  destination: {name: in-cluster, namespace: ns-%d}\n  syncPolicy:\n    automated: {prune: true, selfHeal: true}\n    syncOptions: [CreateNamespace=true, ServerSideApply=true]\n", i, i%4, source, i)
	}
	write("argocd/base/apps.yaml", apps.String())
	write("argocd/base/project.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team, namespace: argocd}\nspec:\n  sourceRepos: ['*']\n  destinations: [{name: in-cluster, namespace: '*'}]\n  clusterResourceWhitelist: [{group: '', kind: Namespace}]\n")
	resources.WriteString("resources: [apps.yaml, project.yaml]\n")
	write("argocd/base/kustomization.yaml", resources.String())
	write("argocd/dev/kustomization.yaml", "resources: [../base]\n")
	write("argocd/prod/kustomization.yaml", "resources: [../base]\npatches:\n  - target: {kind: Application, name: app-1}\n    patch: |\n      - {op: replace, path: /spec/source/targetRevision, value: v2}\n")
	run := func(b *testing.B) {
		var stdout, stderr bytes.Buffer
		if code := cli.Main([]string{"import", "-n", "-C", dir, "dev=argocd/dev", "prod=argocd/prod"}, &stdout, &stderr); code != cli.ExitOK {
			b.Fatalf("import: exit %d\n%s%s", code, stdout.Bytes(), stderr.Bytes())
		}
	}
	run(b)
	b.ReportAllocs()
	for b.Loop() {
		run(b)
	}
}
