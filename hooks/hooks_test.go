// Package hooks_test tests the Git pre-commit hook in this folder, as `make
// hooks` (platc hooks install) installs it, on a temporary repository.
package hooks_test

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// cacheDir is the platc cache of the test run, and tmpDir a folder of the
// run for what its tests share.
var cacheDir, tmpDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "platc-hooks-test-")
	if err != nil {
		panic(err)
	}
	tmpDir, cacheDir = dir, filepath.Join(dir, "cache")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	platcOnce sync.Once
	platcErr  error
	platcOut  string
)

// copyPlatc builds platc once per run (linking it takes seconds), copies
// it to the path to, and returns to.
func copyPlatc(t *testing.T, to string) string {
	t.Helper()
	bin := filepath.Join(tmpDir, "platc")
	platcOnce.Do(func() { platcOut, platcErr = run(t, "..", "go", "build", "-o", bin, "./cmd/platc") })
	if platcErr != nil {
		t.Fatalf("go build: %v\n%s", platcErr, platcOut)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return to
}

func run(t *testing.T, dir string, name string, args ...string) (string, error) {
	t.Helper()
	return runCached(t, cacheDir, dir, name, args...)
}

// runCached is run with the platc cache at cache.
func runCached(t *testing.T, cache, dir string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	// PLATC_CACHE keeps platc's cache of this run out of the user's.
	cmd.Env = append(os.Environ(), "PLATC_CACHE="+cache, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sampleRepo returns a Git repository holding the sample platform, with
// the hook installed (as make hooks does: platc built into the Git
// folder installs it), and the platc it runs.
func sampleRepo(t *testing.T) (repo, platc string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: the hook is a Git hook")
	}
	repo = t.TempDir()
	for _, top := range []string{"sources", "clients", "out"} {
		if err := os.CopyFS(filepath.Join(repo, top), os.DirFS(filepath.Join("..", top))); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(t, repo, "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	platc = copyPlatc(t, filepath.Join(repo, ".git", "platc"))
	if out, err := run(t, repo, platc, "hooks", "install"); err != nil {
		t.Fatalf("platc hooks install: %v\n%s", err, out)
	}
	return repo, platc
}

// TestPreCommitHookRefusesAStaleCommit installs the hook in a repository
// holding the sample platform: a commit of a spec change without its render
// is refused and names the files; with its render, it goes through.
func TestPreCommitHookRefusesAStaleCommit(t *testing.T) {
	repo, _ := sampleRepo(t)
	if out, err := run(t, repo, "git", "add", "-A"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := run(t, repo, "git", "commit", "-qm", "the sample, rendered"); err != nil {
		t.Fatalf("a fresh commit was refused: %v\n%s", err, out)
	}

	charts := filepath.Join(repo, "sources", "charts.cue")
	data, err := os.ReadFile(charts)
	if err != nil {
		t.Fatal(err)
	}
	bumped := strings.Replace(string(data), `version: "1.15.4"`, `version: "1.15.5"`, 1)
	if bumped == string(data) {
		t.Fatal("the sample changed: update this test")
	}
	if err := os.WriteFile(charts, []byte(bumped), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, repo, "git", "add", "sources"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err := run(t, repo, "git", "commit", "-qm", "qdrant 1.15.5, not rendered")
	if err == nil {
		t.Fatal("a commit of a spec change without its render went through")
	}
	for _, want := range []string{
		"out/deploy/clusters/local/apps.yaml: stale: its inputs changed since it was rendered",
		"pre-commit: the staged out/ is not what the staged spec renders: run platc render, then git add out/",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the hook's output lacks %q:\n%s", want, out)
		}
	}

	// An unstaged render does not count: the hook checks what is staged.
	if out, err := run(t, repo, filepath.Join(repo, ".git", "platc"), "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	if _, err := run(t, repo, "git", "commit", "-qm", "still not staged"); err == nil {
		t.Error("the hook looked at the working tree, not at what is staged")
	}
	if out, err := run(t, repo, "git", "add", "out"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := run(t, repo, "git", "commit", "-qm", "qdrant 1.15.5, rendered"); err != nil {
		t.Errorf("a commit with its render was refused: %v\n%s", err, out)
	}
}

// TestPreCommitHookUsesTheWorkingTreesCache commits a render: the hook's
// check of the staged copy uses the cache of the working tree, where the
// render kept what it computed, and meets every entry it needs there (it
// writes none); it leaves no cache folder of the copy's behind.
func TestPreCommitHookUsesTheWorkingTreesCache(t *testing.T) {
	repo, platc := sampleRepo(t)
	cache := t.TempDir()
	if out, err := runCached(t, cache, repo, platc, "render"); err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	entries := func() map[string]time.Time {
		found := map[string]time.Time{}
		err := filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			found[path] = info.ModTime()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	rendered := entries()
	if len(rendered) == 0 {
		t.Fatal("the render kept nothing in the cache: the test shows nothing")
	}
	if out, err := runCached(t, cache, repo, "git", "add", "-A"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := runCached(t, cache, repo, "git", "commit", "-qm", "the sample, rendered"); err != nil {
		t.Fatalf("a fresh commit was refused: %v\n%s", err, out)
	}
	if got := entries(); !maps.Equal(got, rendered) {
		t.Errorf("the hook's check changed the cache:\nafter the render: %v\nafter the commit: %v", slices.Sorted(maps.Keys(rendered)), slices.Sorted(maps.Keys(got)))
	}
}
