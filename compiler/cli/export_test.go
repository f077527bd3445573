package cli

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/platc/platc/compiler/emit"
)

// Process is, for the tests, what a command takes from its process: the
// zero value is platc as it runs, and each field set replaces a part.
type Process struct {
	// Interrupts replaces the listening for SIGINT and SIGTERM.
	Interrupts func() (context.Context, context.CancelFunc)
	// LockWait replaces how long a command waits for a held lock; with
	// NoLockWait, it does not wait.
	LockWait   time.Duration
	NoLockWait bool
	// LockSleep waits between two tries of a held lock.
	LockSleep func(time.Duration)
	// Fault is emit's fault hook.
	Fault func(emit.Step) error
	// HTTPClient is the client of platc charts pull.
	HTTPClient *http.Client
}

// MainIn is Main in the process p.
func MainIn(p Process, args []string, stdout, stderr io.Writer) int {
	proc := *osProcess
	if p.Interrupts != nil {
		proc.interrupts = p.Interrupts
	}
	if p.LockWait != 0 || p.NoLockWait {
		proc.lockWait = p.LockWait
	}
	proc.lockSleep, proc.fault, proc.httpClient = p.LockSleep, p.Fault, p.HTTPClient
	return run(&proc, args, stdout, stderr)
}

// ReferencePage is the part of docs/cli.md made from the table of
// commands.
func ReferencePage() string { return referencePage(table()) }

// SetMaxInput sets the most bytes platc reads of a file, until the test
// ends.
func SetMaxInput(t interface{ Cleanup(func()) }, n int64) {
	old := maxInput
	maxInput = n
	t.Cleanup(func() { maxInput = old })
}
