package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var appGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

func buildForTest(t *testing.T) Binaries {
	t.Helper()
	cache, err := DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	bins, err := Build(t.Context(), BuildOptions{ProgramsDir: filepath.Join(filepath.Dir(wd), "programs"), CacheDir: cache, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	return bins
}

// testDir is a fresh folder for the test, kept under E2E_KEEP when that
// is set (for the logs of a failure), else removed at the end.
func testDir(t *testing.T, name string) string {
	keep := os.Getenv("E2E_KEEP")
	if keep == "" {
		return t.TempDir()
	}
	dir := filepath.Join(keep, t.Name(), name)
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestOneApplication is the thinnest delivery: one Application of a
// Deployment in a local Git repository, synced by Argo CD's controller
// and Healthy once kwok has made its pod ready.
func TestOneApplication(t *testing.T) {
	bins := buildForTest(t)
	wd, _ := os.Getwd()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Name: "one", Dir: testDir(t, "cluster"), Binaries: bins, ProgramsDir: filepath.Join(filepath.Dir(wd), "programs"), Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if err := c.StartArgoCD(ctx, ArgoCD{}); err != nil {
		t.Fatal(err)
	}

	repo := testDir(t, "repo")
	os.MkdirAll(filepath.Join(repo, "app"), 0o755)
	os.WriteFile(filepath.Join(repo, "app", "deploy.yaml"), []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: example.com/web:1.0
`), 0o644)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "one")

	app, err := Decode([]byte(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: argocd
spec:
  project: default
  source:
    repoURL: file://` + repo + `
    targetRevision: HEAD
    path: app
  destination:
    server: https://kubernetes.default.svc
    namespace: web
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true]
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, c.ArgoCDNamespace(), app...); err != nil {
		t.Fatal(err)
	}
	var sync, health string
	err = c.poll(ctx, "Application web to be Synced and Healthy", 3*time.Minute, func() (bool, string, error) {
		a, err := c.Dynamic.Resource(appGVR).Namespace(c.ArgoCDNamespace()).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		sync, _, _ = unstructured.NestedString(a.Object, "status", "sync", "status")
		health, _, _ = unstructured.NestedString(a.Object, "status", "health", "status")
		conds, _, _ := unstructured.NestedSlice(a.Object, "status", "conditions")
		return sync == "Synced" && health == "Healthy", sync + "/" + health + " " + fmtConds(conds), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func fmtConds(conds []any) string {
	var parts []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		parts = append(parts, m["type"].(string)+": "+m["message"].(string))
	}
	return strings.Join(parts, "; ")
}
