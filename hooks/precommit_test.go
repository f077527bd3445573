package hooks_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// PrecommitEnv turns TestPreCommitFramework on: make precommit sets it.
// The test builds platc as pre-commit does (go install ./... of the whole
// module, every time, in a fresh pre-commit home), which takes longer
// than the rest of this package; make test leaves it out.
const PrecommitEnv = "PLATC_PRECOMMIT"

// TestPreCommitFramework uses platc's hooks for the pre-commit framework
// (.pre-commit-hooks.yaml) as a platform repository does: a repository
// made by platc init, whose .pre-commit-config.yaml names platc's
// repository (here a Git repository of this working tree, at a commit) and
// the hook platc-check, and pre-commit install. pre-commit builds platc
// with go install from the module cache, offline; a commit of a rendered
// tree goes through, one whose out/ is stale or edited is refused with the
// files named, and one that touches neither the spec nor out/ does not run
// the hook.
func TestPreCommitFramework(t *testing.T) {
	if os.Getenv(PrecommitEnv) == "" {
		t.Skip("slow (pre-commit builds platc): make precommit runs it (" + PrecommitEnv + "=1)")
	}
	if _, err := exec.LookPath("pre-commit"); err != nil {
		t.Skip("pre-commit not found: install it (apt-get install pre-commit) to run this test")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: pre-commit clones the hooks' repository with it")
	}

	// The module's dependencies, in the module cache: pre-commit's build
	// runs with GOPROXY=off, and builds every main package of the module,
	// not only platc.
	if out, err := run(t, "..", "go", "list", "-deps", "./..."); err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	modCache, err := run(t, "..", "go", "env", "GOMODCACHE")
	if err != nil {
		t.Fatalf("go env: %v\n%s", err, modCache)
	}
	hooksRepo, rev := snapshot(t)

	platform := t.TempDir()
	if out, err := run(t, platform, "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	platc := copyPlatc(t, filepath.Join(t.TempDir(), "platc"))
	if out, err := run(t, platform, platc, "init", "-repo", "https://git.example.com/demo.git"); err != nil {
		t.Fatalf("platc init: %v\n%s", err, out)
	}
	// The configuration platc init wrote, with platc's repository here.
	config := filepath.Join(platform, ".pre-commit-config.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	local := regexp.MustCompile(`(?m)^(\s*- repo: )https://github\.com/platc/platc\n(\s*rev: )\S+$`).ReplaceAllString(string(data), "${1}file://"+hooksRepo+"\n${2}"+rev)
	if local == string(data) || !strings.Contains(local, "- id: platc-check\n") {
		t.Fatalf("platc init's .pre-commit-config.yaml changed: update this test:\n%s", data)
	}
	if err := os.WriteFile(config, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}

	// pre-commit sets GOPATH to the hook's environment, so its go install
	// would download every module again: GOMODCACHE keeps the machine's
	// module cache, and GOPROXY=off shows that nothing else is needed.
	env := []string{"PRE_COMMIT_HOME=" + t.TempDir(), "GOMODCACHE=" + strings.TrimSpace(modCache), "GOPROXY=off", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
	precommit := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = platform
		cmd.Env = append(os.Environ(), "PLATC_CACHE="+cacheDir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := precommit("pre-commit", "install"); err != nil {
		t.Fatalf("pre-commit install: %v\n%s", err, out)
	}
	if out, err := precommit("git", "add", "-A"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err := precommit("git", "commit", "-qm", "platform: first render")
	if err != nil {
		t.Fatalf("the commit of a rendered platform was refused: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^platc check\.+Passed$`).MatchString(out) {
		t.Errorf("the commit did not run platc-check:\n%s", out)
	}

	// A spec change without its render.
	spec := filepath.Join(platform, "sources", "platform.cue")
	edit(t, spec, "replicaCount: 1", "replicaCount: 2")
	if out, err := precommit("git", "add", "sources"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err = precommit("git", "commit", "-qm", "podinfo: two replicas, not rendered")
	if err == nil {
		t.Fatalf("a commit of a spec change without its render went through:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^platc check\.+Failed$`).MatchString(out) {
		t.Errorf("platc-check did not fail:\n%s", out)
	}
	for _, want := range []string{
		"out/deploy/clusters/local/apps.yaml: stale: its inputs changed since it was rendered\n",
		"platc: out/ is stale: 1 changed, 0 missing, 0 extra: run `platc render` and commit out/\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the refused commit's output lacks %q:\n%s", want, out)
		}
	}

	// Rendered, it goes through.
	if out, err := precommit(platc, "render"); err != nil {
		t.Fatalf("platc render: %v\n%s", err, out)
	}
	if out, err := precommit("git", "add", "out"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := precommit("git", "commit", "-qm", "podinfo: two replicas"); err != nil {
		t.Fatalf("a commit with its render was refused: %v\n%s", err, out)
	}

	// out/ edited by hand.
	apps := filepath.Join(platform, "out", "deploy", "clusters", "local", "apps.yaml")
	edit(t, apps, "replicaCount: 2", "replicaCount: 3")
	if out, err := precommit("git", "add", "out"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err = precommit("git", "commit", "-qm", "three replicas, by hand")
	if err == nil {
		t.Fatalf("a commit of an out/ edited by hand went through:\n%s", out)
	}
	if want := "out/deploy/clusters/local/apps.yaml: edited by hand: the file no longer matches what its inputs produce\n"; !strings.Contains(out, want) {
		t.Errorf("the refused commit's output lacks %q:\n%s", want, out)
	}
	if out, err := precommit("git", "checkout", "HEAD", "--", "out"); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}

	// A commit that touches neither the spec nor out/ skips the hook.
	if err := os.WriteFile(filepath.Join(platform, "NOTES.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := precommit("git", "add", "NOTES.md"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err = precommit("git", "commit", "-qm", "notes")
	if err != nil {
		t.Fatalf("a commit of notes was refused: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^platc check\.+\(no files to check\)Skipped$`).MatchString(out) {
		t.Errorf("a commit outside sources/ and out/ ran platc-check:\n%s", out)
	}
}

// snapshot makes a Git repository of platc's working tree as it is (its
// files that Git tracks or does not ignore, uncommitted changes included)
// with one commit, for pre-commit to clone, and returns its path and the
// commit. The working tree's own repository is left alone.
func snapshot(t *testing.T) (dir, rev string) {
	t.Helper()
	files, err := run(t, "..", "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		t.Skipf("platc's folder is not a Git working tree (git ls-files: %v): pre-commit clones platc's repository", err)
	}
	dir = t.TempDir()
	for _, name := range strings.Split(strings.TrimSuffix(files, "\x00"), "\x00") {
		from, to := filepath.Join("..", filepath.FromSlash(name)), filepath.Join(dir, filepath.FromSlash(name))
		info, err := os.Lstat(from)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(from)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "platc's working tree"}} {
		if out, err := run(t, dir, "git", args...); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	out, err := run(t, dir, "git", "rev-parse", "HEAD")
	if err != nil {
		t.Fatalf("git rev-parse: %v\n%s", err, out)
	}
	return dir, strings.TrimSpace(out)
}

// edit replaces old with new in the file at path, once; the test fails if
// the file does not hold old.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), old, new, 1)
	if edited == string(data) {
		t.Fatalf("%s does not hold %q: update this test", path, old)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
}
