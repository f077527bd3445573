package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"path"
	"sync"
	"syscall"
	"time"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
)

// lockWait is how long a command waits for another platc that holds the
// output root's lock: longer than the largest render takes.
const lockWait = 30 * time.Second

// process is what a command takes from the process it runs in, beyond its
// arguments. Tests replace parts of it.
type process struct {
	// interrupts returns a context that SIGINT and SIGTERM cancel, and
	// the function that stops listening for them.
	interrupts func() (context.Context, context.CancelFunc)
	lockWait   time.Duration
	// lockSleep, when set, waits between two tries of a held lock
	// (emit.LockOptions.Sleep).
	lockSleep func(time.Duration)
	// fault, when set, is emit's fault hook, for writes and recoveries.
	fault func(emit.Step) error
	// compiling, when set, is called as a compilation starts, on its
	// goroutine (tests block it).
	compiling func()
	// httpClient, when set, is the client of platc charts pull and
	// platc outdated (tests trust their loopback servers through it);
	// else their own.
	httpClient *http.Client
}

var osProcess = &process{interrupts: notifyInterrupts, lockWait: lockWait}

// notifyInterrupts listens for SIGINT and SIGTERM until the first one:
// after it, a second one ends platc at once, which the journal makes
// safe (the next platc completes or undoes the write).
func notifyInterrupts() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// outputs are the output roots a command looks at: it locks each before it
// reads it (for the whole command, when it reads or writes it) and
// completes a write that was interrupted there, through
// compiler.Options.PrepareOutput, which Compile calls on other goroutines.
type outputs struct {
	root      *os.Root
	proc      *process
	holder    string // "platc render"
	interrupt <-chan struct{}
	// hold keeps the locks for the command: render, check and release
	// read and write the output root; the others only recover it.
	hold   bool
	stderr io.Writer

	mu    sync.Mutex
	locks map[string]*emit.Lock // by output root; nil: the root is missing
	notes []string              // what recoveries did, printed after the compilation
}

// prepare locks the output root outDir and recovers it. A command that
// does not hold the lock takes it only when a journal is there.
func (o *outputs) prepare(outDir string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, done := o.locks[outDir]; done {
		return nil
	}
	if !o.hold {
		if _, err := o.root.Lstat(path.Join(outDir, emit.JournalName)); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	lock, err := o.lock(outDir, false)
	if err != nil || !o.hold {
		if lock != nil {
			lock.Unlock()
		}
		return err
	}
	o.locks[outDir] = lock
	return nil
}

// lock takes the lock of outDir (making the folder with create) and
// recovers it.
func (o *outputs) lock(outDir string, create bool) (*emit.Lock, error) {
	lock, err := emit.LockOutput(o.root, outDir, emit.LockOptions{
		Create:    create,
		Holder:    o.holder,
		Wait:      o.proc.lockWait,
		Interrupt: o.interrupt,
		Sleep:     o.proc.lockSleep,
		Waiting: func(holder string) {
			fmt.Fprintf(o.stderr, "platc: %s is locked by %s: waiting up to %s for it\n", outDir+"/", holder, o.proc.lockWait)
		},
	})
	if err != nil || lock == nil {
		return nil, err
	}
	rec, err := emit.Recover(o.root, outDir, emit.RecoverOptions{Fault: o.proc.fault})
	if s := rec.String(); s != "" {
		o.notes = append(o.notes, "platc: "+s)
	}
	if err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("%s/: completing a write that was interrupted: %w: fix that, and run platc again", outDir, err)
	}
	return lock, nil
}

// keepOnly releases the locks of every output root but outDir: the spec
// named another than the default one. keepOnly("") releases them all.
func (o *outputs) keepOnly(outDir string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for dir, l := range o.locks {
		if dir != outDir && l != nil {
			l.Unlock()
			delete(o.locks, dir)
		}
	}
}

func (o *outputs) printNotes() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range o.notes {
		fmt.Fprintln(o.stderr, n)
	}
	o.notes = nil
}

// write writes outs (and the spec edits also) into outDir, as emit.Write
// does, under outDir's lock: a root that was missing when the command
// started is made and locked now, and read again, since another platc may
// have written it meanwhile.
func (o *outputs) write(outDir string, st *emit.State, outs, also []emit.Output) (*emit.Result, error) {
	o.mu.Lock()
	lock := o.locks[outDir]
	o.mu.Unlock()
	if lock == nil {
		var err error
		if lock, err = o.lock(outDir, true); err != nil {
			return nil, err
		}
		o.printNotes()
		o.mu.Lock()
		o.locks[outDir] = lock
		o.mu.Unlock()
		if st, err = emit.Scan(newRepoFS(o.root), outDir); err != nil {
			return nil, err
		}
		if c := emit.Conflicts(st, outs); len(c) > 0 {
			return nil, fmt.Errorf("%s: %s: move it out of %s/, platc does not overwrite it", c[0].Path, c[0].Problem, outDir)
		}
	}
	return emit.Write(o.root, outDir, st, outs, emit.Options{Also: also, Interrupt: o.interrupt, Fault: o.proc.fault})
}

// writeID is the kind of problem of err, which stopped a scan or a write
// of the output folder: another platc's lock, or I/O.
func writeID(err error) diag.ID {
	var locked *emit.LockedError
	if errors.As(err, &locked) {
		return diag.Locked
	}
	return diag.IO
}
