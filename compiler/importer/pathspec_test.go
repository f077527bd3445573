package importer

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPathspecIsGits holds pathspec to git ls-files, which Argo CD's git
// files generator runs by default, on the same files and patterns.
func TestPathspecIsGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: the patterns are compared with git ls-files")
	}
	files := []string{
		"apps/a/config.json", "apps/a/b/config.json", "apps/config.json", "apps/a/config.yaml",
		"clusters/eu.yaml", "clusters/us-1.yaml", "clusters/old/eu.yaml", "readme.md", "x[1].json",
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	for _, pattern := range []string{
		"apps/*/config.json", "apps/**/config.json", "apps/**", "clusters/*.yaml", "clusters/??-?.yaml",
		"clusters/[eu]*.yaml", "clusters/[!e]*.yaml", "apps", "apps/a/config.json", "*.md", "x\\[1\\].json", "apps/*/config.*",
	} {
		var want []string
		for _, f := range strings.Split(git("ls-files", "--full-name", "-z", "--", pattern), "\x00") {
			if f != "" {
				want = append(want, f)
			}
		}
		match, err := pathspec(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		var got []string
		for _, f := range files {
			if match(f) {
				got = append(got, f)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: pathspec matches %q, git ls-files %q", pattern, got, want)
		}
	}
}
