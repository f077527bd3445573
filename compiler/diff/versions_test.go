package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// golden reads the render of a golden case as diff reads a folder.
func golden(t *testing.T, name string) []Object {
	t.Helper()
	files := map[string][]byte{}
	root := filepath.Join("..", "..", "golden", name)
	err := filepath.WalkDir(filepath.Join(root, "out"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Objects(files, "out")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// TestVersions compares the versions of golden/chart-versions with the
// same render where the lab runs the platform's kyverno, and the staging
// instance the lab's web: Applications platc renders, and those kro will
// create for an instance (its chartVersions, or the RGD's default).
func TestVersions(t *testing.T) {
	old := golden(t, "chart-versions")
	var new []Object
	for _, o := range golden(t, "chart-versions") {
		switch {
		case o.Env == "lab" && o.Kind == "Application" && o.Name == "kyverno":
			o.Data["spec"].(map[string]any)["source"].(map[string]any)["targetRevision"] = "3.7.2"
		case o.Env == "staging" && o.Kind == "Site":
			o.Data["spec"].(map[string]any)["chartVersions"] = map[string]any{"web": "0.5.1"}
		}
		new = append(new, o)
	}
	got := Versions(old, new, Filter{})
	want := []VersionChange{
		{Env: "lab", Chart: "https://kyverno.github.io/kyverno/ kyverno", Old: []string{"3.9.0"}, New: []string{"3.7.2"}, Applications: []string{"kyverno"}},
		{Env: "staging", Chart: "oci://ghcr.io/example/charts/web", Old: []string{"0.4.0"}, New: []string{"0.5.1"}, Applications: []string{"blue-web"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Versions (-want +got):\n%s", diff)
	}
	if got := Versions(old, new, Filter{Env: "staging"}); len(got) != 1 || !strings.HasPrefix(got[0].Chart, "oci://") {
		t.Errorf("Versions of staging: %+v", got)
	}
	if got := Versions(old, old, Filter{}); len(got) != 0 {
		t.Errorf("a render against itself: %+v", got)
	}
}
