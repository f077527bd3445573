//go:build unix

package emit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestWriteSurvivesSIGKILL runs the scenario's write in a child process
// (this test binary, again) that SIGKILLs itself at each step in turn, and
// requires the repository to be exactly the old one or exactly the new one
// once recovered.
func TestWriteSurvivesSIGKILL(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	for k, step := range s.steps(t) {
		t.Run(fmt.Sprintf("%d-%s", k, step.Kind), func(t *testing.T) {
			dir := s.setUp(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "PLATC_EMIT_KILL_AT="+strconv.Itoa(k), "PLATC_EMIT_DIR="+dir)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v\n%s", err, out)
			}
			want, which := after, "new"
			if beforeCommit(step.Kind) {
				want, which = before, "old"
			}
			if _, err := recoverFresh(t, dir, RecoverOptions{}); err != nil {
				t.Fatalf("Recover: %v", err)
			}
			assertTree(t, dir, want, which)
		})
	}
}

// TestSIGKILLChild is the child of TestWriteSurvivesSIGKILL: it writes the
// scenario into PLATC_EMIT_DIR and SIGKILLs itself at the step
// PLATC_EMIT_KILL_AT.
func TestSIGKILLChild(t *testing.T) {
	at, dir := os.Getenv("PLATC_EMIT_KILL_AT"), os.Getenv("PLATC_EMIT_DIR")
	if at == "" {
		return // run as a test of its own: only a child does the work (os/exec's TestHelperProcess idiom)
	}
	k, err := strconv.Atoi(at)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	newScenario().write(t, dir, Options{Fault: func(Step) error {
		if calls.Add(1)-1 == int64(k) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
		return nil
	}})
	t.Fatal("the write ended without being killed")
}
