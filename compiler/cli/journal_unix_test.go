//go:build unix

package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/emit"
)

// child runs platc in a child process (this test binary, again) on dir,
// which kills itself with sig at the k-th step of the write.
func child(t *testing.T, dir string, k int, sig string, args ...string) (exit *exec.ExitError, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0]) // TestMain runs the child (platcChild)
	cmd.Env = append(os.Environ(), "PLATC_CHILD_AT="+strconv.Itoa(k), "PLATC_CHILD_SIGNAL="+sig, "PLATC_CHILD_ARGS="+strings.Join(append(args, "-C", dir), "\x1f"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if !errors.As(err, &exit) {
		t.Fatalf("the child: %v, want it to exit non-zero\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	return exit, out.String(), errOut.String()
}

// TestRenderKilledAtEveryStep SIGKILLs a render at each step of its write;
// the next platc command (check) completes or undoes the write first and
// says so, and the repository is exactly the old one or the new one.
func TestRenderKilledAtEveryStep(t *testing.T) {
	dir := rendered(t)
	steps, before, after := renderSteps(t, dir, "render")
	for k, step := range steps {
		t.Run(fmt.Sprintf("%d-%s", k, step.Kind), func(t *testing.T) {
			d := copyRepo(t, dir)
			exit, _, stderr := child(t, d, k, "KILL", "render")
			if ws := exit.Sys().(syscall.WaitStatus); ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v\n%s", exit, stderr)
			}
			code, _, stderr := platc(t, "check", "-C", d)
			first, _, _ := strings.Cut(stderr, "\n")
			switch {
			case step.Kind == emit.StepJournal:
				// Killed before it wrote anything.
				if code != cli.ExitProblems || strings.Contains(stderr, "interrupted") {
					t.Errorf("check: exit %d, stderr:\n%s", code, stderr)
				}
				assertSame(t, before, tree(t, d), "old")
			case beforeCommit(step.Kind):
				if code != cli.ExitProblems || !strings.HasPrefix(first, "platc: out/: undid a write that was interrupted before its commit point (") {
					t.Errorf("check: exit %d, stderr:\n%s", code, stderr)
				}
				assertSame(t, before, tree(t, d), "old")
			default:
				want := "platc: out/: completed a write that was interrupted after its commit point: 2 files written, 2 removed\n" + unlocked
				if code != cli.ExitOK || stderr != want {
					t.Errorf("check: exit %d, stderr %q, want %q", code, stderr, want)
				}
				assertSame(t, after, tree(t, d), "new")
			}
		})
	}
}

// TestRenderTerminatedAtEachKindOfStep sends SIGTERM to a render at the
// first step of each kind: before the commit point it undoes what it
// staged and says so, after it finishes; both exit 2.
func TestRenderTerminatedAtEachKindOfStep(t *testing.T) {
	dir := rendered(t)
	steps, before, after := renderSteps(t, dir, "render")
	for k, step := range steps {
		if k > 0 && steps[k-1].Kind == step.Kind {
			continue
		}
		t.Run(fmt.Sprintf("%d-%s", k, step.Kind), func(t *testing.T) {
			d := copyRepo(t, dir)
			exit, stdout, stderr := child(t, d, k, "TERM", "render")
			if exit.ExitCode() != cli.ExitUsage {
				t.Errorf("exit %v, want %d", exit, cli.ExitUsage)
			}
			if beforeCommit(step.Kind) {
				if want := unlocked + "platc: interrupted: nothing was written, out/ is as it was [interrupted]\n"; stdout != "" || stderr != want {
					t.Errorf("stdout %q, stderr %q, want %q", stdout, stderr, want)
				}
				assertSame(t, before, tree(t, d), "old")
				return
			}
			if want := rerendered; stdout != want {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			if want := unlocked + "platc: interrupted: out/ was committed: the render was finished [interrupted]\n"; stderr != want {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
			assertSame(t, after, tree(t, d), "new")
		})
	}
}

// TestTerminatedWhileCompiling sends SIGTERM to a render whose
// compilation never ends (a fault injected, as a chart that never ends):
// the first SIGTERM ends it, and out/ is as it was. The child is killed,
// and the test fails, if it has not ended after a minute.
func TestTerminatedWhileCompiling(t *testing.T) {
	dir := rendered(t)
	before := tree(t, dir)
	cmd := exec.Command(os.Args[0]) // TestMain runs the child (platcChild)
	cmd.Env = append(os.Environ(), "PLATC_CHILD_AT=compile", "PLATC_CHILD_ARGS="+strings.Join([]string{"render", "-C", dir}, "\x1f"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("platc did not end on SIGTERM\nstderr:\n%s", errOut.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != cli.ExitUsage {
		t.Errorf("exit %v, want %d", err, cli.ExitUsage)
	}
	if want := "platc: interrupted: nothing was written [interrupted]\n"; out.String() != "" || errOut.String() != want {
		t.Errorf("stdout %q, stderr %q, want %q", out.String(), errOut.String(), want)
	}
	assertSame(t, before, tree(t, dir), "old")
}
