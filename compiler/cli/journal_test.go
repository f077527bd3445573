package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/emit"
)

// platcIn runs the CLI in-process, in the process p.
func platcIn(t *testing.T, p cli.Process, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.MainIn(p, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// rendered is the test repository rendered, with its spec then changed so
// that the next render changes files and removes others (a group, with
// its folders).
func rendered(t *testing.T) string {
	t.Helper()
	dir := repo(t)
	if code, _, stderr := platc(t, "render", "-C", dir); code != cli.ExitOK {
		t.Fatalf("render: %s", stderr)
	}
	spec := filepath.Join(dir, "sources", "platform.cue")
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(`version: "1.2.3"`, `version: "1.2.4"`, `extras: group: ["metrics"]`, "", `metrics: {chart: "redis", namespace: "metrics"}`, "").Replace(string(data))
	writeFile(t, dir, "sources/platform.cue", edited)
	return dir
}

// copyRepo copies the repository at dir to a new folder.
func copyRepo(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	for p, data := range tree(t, dir) {
		writeFile(t, to, p, data)
	}
	return to
}

// renderSteps renders a copy of dir and returns the steps of its write,
// and the repository before and after it.
func renderSteps(t *testing.T, dir string, args ...string) (steps []emit.Step, before, after map[string]string) {
	t.Helper()
	c := copyRepo(t, dir)
	before = tree(t, c)
	var mu sync.Mutex
	code, _, stderr := platcIn(t, cli.Process{Fault: func(s emit.Step) error {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, s)
		return nil
	}}, append(args, "-C", c)...)
	if code != cli.ExitOK {
		t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
	}
	return steps, before, tree(t, c)
}

func beforeCommit(k emit.StepKind) bool { return k <= emit.StepCommit }

func assertSame(t *testing.T, want, got map[string]string, which string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the repository is not exactly the %s one (-want +got):\n%s", which, diff)
	}
}

// TestReleaseIsAllOrNothing kills a release at the steps of its write (in
// the process: the write panics there): the spec's edit and out/ are
// either both done or both not, once the next platc (vet) has recovered.
func TestReleaseIsAllOrNothing(t *testing.T) {
	dir := sample(t)
	steps, before, after := renderSteps(t, dir, "release", "v0.12.0")
	if before["sources/environments.cue"] == after["sources/environments.cue"] {
		t.Fatal("the release did not edit the spec")
	}
	for k, step := range steps {
		// The first and the last step of each kind: the sample's release
		// writes dozens of files.
		if k > 0 && k < len(steps)-1 && steps[k-1].Kind == step.Kind && steps[k+1].Kind == step.Kind {
			continue
		}
		t.Run(fmt.Sprintf("%d-%s", k, step.Kind), func(t *testing.T) {
			d := copyRepo(t, dir)
			var calls atomic.Int64
			func() {
				defer func() { recover() }()
				platcIn(t, cli.Process{Fault: func(emit.Step) error {
					if calls.Add(1)-1 >= int64(k) {
						panic("killed")
					}
					return nil
				}}, "release", "-C", d, "v0.12.0")
				t.Fatal("the release was not killed")
			}()
			code, _, stderr := platc(t, "vet", "-C", d)
			if code != cli.ExitOK {
				t.Fatalf("vet: exit %d\n%s", code, stderr)
			}
			if beforeCommit(step.Kind) {
				assertSame(t, before, tree(t, d), "old")
			} else {
				assertSame(t, after, tree(t, d), "new")
			}
		})
	}
}

// holdLock takes the output root's lock of the repository at dir as
// another platc would, until the test ends or the returned function is
// called.
func holdLock(t *testing.T, dir string) (unlock func()) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := emit.LockOutput(root, "out", emit.LockOptions{Holder: "platc render"})
	if err != nil || l == nil {
		t.Fatalf("LockOutput: %v, %v", l, err)
	}
	var once sync.Once
	unlock = func() { once.Do(func() { l.Unlock(); root.Close() }) }
	t.Cleanup(unlock)
	return unlock
}

func TestRenderAndCheckFailWhileAnotherPlatcHoldsTheLock(t *testing.T) {
	dir := rendered(t)
	before := tree(t, dir)
	holdLock(t, dir)
	for _, cmd := range []string{"render", "check"} {
		code, stdout, stderr := platcIn(t, cli.Process{NoLockWait: true}, cmd, "-C", dir)
		// The spec compiles before platc takes the lock: its note comes
		// first.
		want := unlocked + fmt.Sprintf("platc: out/ is locked by platc render (PID %d): let it finish, or end it if it is stuck, then run platc again [locked]\n", os.Getpid())
		if code != cli.ExitUsage || stdout != "" || stderr != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q", cmd, code, stdout, stderr, want)
		}
	}
	delete(before, "out/"+emit.LockName)
	got := tree(t, dir)
	delete(got, "out/"+emit.LockName)
	assertSame(t, before, got, "old")
	// vet reads no output: it does not wait for the lock.
	if code, _, stderr := platcIn(t, cli.Process{NoLockWait: true}, "vet", "-C", dir); code != cli.ExitOK {
		t.Errorf("vet: exit %d\n%s", code, stderr)
	}
}

func TestRenderWaitsForAnotherPlatc(t *testing.T) {
	dir := rendered(t)
	unlock := holdLock(t, dir)
	sleeps := 0
	code, stdout, stderr := platcIn(t, cli.Process{LockSleep: func(_ time.Duration) {
		// The other platc finishes while this one waits.
		if sleeps++; sleeps == 3 {
			unlock()
		}
	}}, "render", "-C", dir)
	want := fmt.Sprintf("platc: out/ is locked by platc render (PID %d): waiting up to 30s for it\n", os.Getpid()) + unlocked
	if code != cli.ExitOK || stderr != want || stdout != rerendered {
		t.Errorf("render: exit %d, stdout %q, stderr %q, want %q", code, stdout, stderr, want)
	}
	if sleeps != 3 {
		t.Errorf("slept %d times, want 3", sleeps)
	}
}

// TestRenderRollsBackAWriteThatFailedAfterItsCommitPoint fails a rename
// after the commit point (as a file system gone read-only would): render
// puts back what it had replaced, says so, and leaves out/ as it was; the
// next render writes as if nothing had happened.
func TestRenderRollsBackAWriteThatFailedAfterItsCommitPoint(t *testing.T) {
	dir := rendered(t)
	_, _, after := renderSteps(t, dir, "render")
	before := tree(t, dir)
	code, _, stderr := platcIn(t, cli.Process{Fault: func(s emit.Step) error {
		if s.Kind == emit.StepRename && s.Path == "out/deploy/clusters/dev/apps.yaml" {
			return errors.New("operation not permitted")
		}
		return nil
	}}, "render", "-C", dir)
	want := unlocked + "platc: writing out/deploy/clusters/dev/apps.yaml: operation not permitted: rolled the write back, out/ is as it was [io]\n"
	if code != cli.ExitUsage || stderr != want {
		t.Errorf("render: exit %d, stderr %q, want %q", code, stderr, want)
	}
	assertSame(t, before, tree(t, dir), "old")
	code, stdout, stderr := platc(t, "render", "-C", dir)
	if code != cli.ExitOK || stderr != unlocked || stdout != rerendered {
		t.Errorf("render: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	assertSame(t, after, tree(t, dir), "new")
}
