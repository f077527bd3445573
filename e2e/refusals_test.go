package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/e2e/cluster"
	"github.com/platc/platc/e2e/deliver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var appGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// TestRefusals shows, on the real controller, the two refusals that only
// a sync used to find and that platc vet now makes offline
// (compiler/verify/owners.go, golden/error-project-kinds and
// golden/error-shared-objects): a kind the project does not permit is
// refused at sync, and two Applications that sync one object both report
// SharedResourceWarning.
func TestRefusals(t *testing.T) {
	t.Parallel()
	acquire(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	opts := envOptions(t, "refusals")
	c, err := cluster.Start(ctx, cluster.Options{Name: "refusals", Dir: opts.Dir, Binaries: opts.Binaries, ProgramsDir: opts.ProgramsDir, Log: os.Stderr, Nice: besideSample})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if err := c.StartArgoCD(ctx, cluster.ArgoCD{}); err != nil {
		t.Fatal(err)
	}
	repo, err := deliver.NewRepo(testDir(t, "repo"), "")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"config/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  currency: EUR\n",
	} {
		os.MkdirAll(filepath.Join(repo.Dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(repo.Dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := repo.Commit("refusals"); err != nil {
		t.Fatal(err)
	}
	app := func(name, project string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
spec:
  project: %s
  source: {repoURL: %q, targetRevision: HEAD, path: config}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true]
---
`, name, project, repo.FileURL())
	}
	objs, err := cluster.Decode([]byte(`apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: narrow
  namespace: argocd
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  clusterResourceWhitelist: [{group: "", kind: Namespace}]
  namespaceResourceWhitelist: [{group: apps, kind: Deployment}]
---
` + app("narrow", "narrow") + app("one", "default") + app("two", "default")))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, c.ArgoCDNamespace(), objs...); err != nil {
		t.Fatal(err)
	}

	wait := func(what, name string, found func(u *unstructured.Unstructured) string) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for {
			u, err := c.Dynamic.Resource(appGVR).Namespace(c.ArgoCDNamespace()).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				if msg := found(u); msg != "" {
					report.AddCheck(&deliver.Check{Name: what, Env: "refusals", Pass: true, Detail: name + ": " + msg})
					return
				}
			}
			if time.Now().After(deadline) {
				report.AddCheck(&deliver.Check{Name: what, Env: "refusals", Detail: "not seen on " + name})
				t.Errorf("%s: not seen on Application %s: %v", what, name, u)
				return
			}
			time.Sleep(time.Second)
		}
	}
	wait("a kind the project does not permit is refused at sync", "narrow", func(u *unstructured.Unstructured) string {
		for _, m := range messages(u) {
			if strings.Contains(m, "not permitted in project narrow") {
				return m
			}
		}
		return ""
	})
	for _, name := range []string{"one", "two"} {
		wait("two Applications that sync one object: SharedResourceWarning", name, func(u *unstructured.Unstructured) string {
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "SharedResourceWarning" {
					return fmt.Sprint(m["message"])
				}
			}
			return ""
		})
	}
}

// messages are an Application's conditions' messages, its operation's
// and its sync results'.
func messages(u *unstructured.Unstructured) []string {
	var out []string
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		out = append(out, fmt.Sprint(m["message"]))
	}
	if msg, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "message"); msg != "" {
		out = append(out, msg)
	}
	results, _, _ := unstructured.NestedSlice(u.Object, "status", "operationState", "syncResult", "resources")
	for _, r := range results {
		m, _ := r.(map[string]any)
		out = append(out, fmt.Sprint(m["message"]))
	}
	return out
}
