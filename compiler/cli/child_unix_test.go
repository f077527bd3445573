//go:build unix

package cli

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/platc/platc/compiler/emit"
)

// platcChild is the child of the signal tests (journal_unix_test.go),
// which TestMain runs when PLATC_CHILD_AT is set: it runs platc as
// PLATC_CHILD_ARGS says and, at the step PLATC_CHILD_AT of the write,
// sends itself SIGKILL, or SIGTERM (and waits for platc to have seen it).
// With PLATC_CHILD_AT=compile, the compilation blocks instead, after
// sending SIGTERM. It is no test, so that no test is skipped in every run.
func platcChild() {
	at := os.Getenv("PLATC_CHILD_AT")
	if at == "" {
		return
	}
	if at == "compile" {
		// The compilation blocks, as a chart that never ends does, once
		// platc listens for signals: it sends itself SIGTERM.
		proc := *osProcess
		proc.compiling = func() {
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			select {}
		}
		os.Exit(run(&proc, strings.Split(os.Getenv("PLATC_CHILD_ARGS"), "\x1f"), os.Stdout, os.Stderr))
	}
	k, err := strconv.Atoi(at)
	if err != nil {
		panic(err)
	}
	var ctx context.Context
	var calls atomic.Int64
	proc := *osProcess
	proc.interrupts = func() (context.Context, context.CancelFunc) {
		c, stop := notifyInterrupts()
		ctx = c
		return c, stop
	}
	proc.fault = func(emit.Step) error {
		if calls.Add(1)-1 != int64(k) {
			return nil
		}
		if os.Getenv("PLATC_CHILD_SIGNAL") == "KILL" {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		<-ctx.Done()
		return nil
	}
	os.Exit(run(&proc, strings.Split(os.Getenv("PLATC_CHILD_ARGS"), "\x1f"), os.Stdout, os.Stderr))
}
