package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/platc/platc/compiler"
)

// TestOneNeedChangesOneWave renders the sample, adds one need to one
// module, renders again, and requires the apps files to differ only in
// that Application's wave annotation (and the header's digest): objects
// are ordered by name, so a module whose wave moves stays where it is in
// review.
func TestOneNeedChangesOneWave(t *testing.T) {
	repo := t.TempDir()
	for _, top := range []string{"sources", "clients"} {
		if err := os.CopyFS(filepath.Join(repo, top), os.DirFS(filepath.Join("..", top))); err != nil {
			t.Fatal(err)
		}
	}
	before := renderFiles(t, repo)
	modules := filepath.Join(repo, "sources", "modules.cue")
	data, err := os.ReadFile(modules)
	if err != nil {
		t.Fatal(err)
	}
	const at = "\t\"cost-controls\": {\n"
	edited := strings.Replace(string(data), at, at+"\t\tneeds: [\"velero\"]\n", 1)
	if edited == string(data) {
		t.Fatal("the sample changed: update this test")
	}
	if err := os.WriteFile(modules, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	after := renderFiles(t, repo)
	for _, file := range []string{"out/deploy/clusters/local/apps.yaml", "out/deploy/clusters/customer/apps.yaml"} {
		var changed []string
		for _, line := range strings.Split(udiff.Unified("before", "after", before[file], after[file]), "\n") {
			if (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) && !strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "+++") && !strings.Contains(line, "Digest sha256:") {
				changed = append(changed, line)
			}
		}
		want := []string{`-    argocd.argoproj.io/sync-wave: "0"`, `+    argocd.argoproj.io/sync-wave: "1"`}
		if strings.Join(changed, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: one added need changes these lines:\n%s\nwant only the wave of cost-controls", file, strings.Join(changed, "\n"))
		}
	}
}

func renderFiles(t *testing.T, repo string) map[string]string {
	t.Helper()
	res := compiler.Compile(os.DirFS(repo), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the platform does not compile:\n%s", res.Log)
	}
	files := map[string]string{}
	for _, o := range res.Outputs {
		files[o.Path] = string(o.Data)
	}
	return files
}
