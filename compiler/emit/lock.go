package emit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// LockName is the file in the output root naming the lock's holder, for
// the message of a platc that waits. It exists while the lock is held, or
// after a killed platc until the next takes the lock.
const LockName = ".platc-lock"

// lockPoll is how often a waiting platc tries the lock again.
const lockPoll = 100 * time.Millisecond

// LockOptions configure LockOutput.
type LockOptions struct {
	// Create makes a missing output root and its parents; Unlock removes
	// them if still empty. Without it a missing root is not locked.
	Create bool
	// Holder names the taker for waiters, such as "platc render".
	Holder string
	// Wait is how long to wait for another holder; zero fails at once.
	Wait time.Duration
	// Interrupt stops the wait.
	Interrupt <-chan struct{}
	// Waiting, when set, is told who holds the lock when the wait starts.
	Waiting func(holder string)
	// Sleep, when set, replaces the timer between tries (for tests).
	Sleep func(time.Duration)
}

// Lock is an output root's advisory lock, exclusive between processes and
// between two locks of one process, released however the process ends.
type Lock struct {
	root    *os.Root
	outDir  string
	dir     *os.File
	created []string // the folders LockOutput made, parents first
}

// LockedError is another platc holding the lock for longer than the wait.
type LockedError struct {
	OutDir string
	Holder string // such as "platc render (PID 1234)"
	Waited time.Duration
}

func (e *LockedError) Error() string {
	s := fmt.Sprintf("%s/ is locked by %s", e.OutDir, e.Holder)
	if e.Waited > 0 {
		s += fmt.Sprintf(", still after waiting %s", e.Waited)
	}
	return s + ": let it finish, or end it if it is stuck, then run platc again" + staleLockHint(e.OutDir)
}

// LockOutput takes the lock of the output root outDir, waiting as opts
// say. It returns nil, nil when the root is missing and opts.Create unset.
func LockOutput(root *os.Root, outDir string, opts LockOptions) (*Lock, error) {
	var created []string
	if opts.Create {
		var err error
		if created, err = mkdirAll(root, outDir); err != nil {
			return nil, fmt.Errorf("making the output folder: %w", err)
		}
	}
	tries := int(opts.Wait / lockPoll)
	for try := 0; ; {
		dir, err := root.Open(outDir)
		if errors.Is(err, fs.ErrNotExist) && !opts.Create {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("locking the output folder: %w", err)
		}
		held, err := tryLock(root, outDir, dir)
		if err != nil {
			dir.Close()
			return nil, fmt.Errorf("locking the output folder: %w", err)
		}
		if !held {
			if !stillThere(root, outDir, dir) {
				// Removed or replaced while waiting: lock the new one.
				unlockDir(root, outDir, dir)
				dir.Close()
				if opts.Create {
					if _, err := mkdirAll(root, outDir); err != nil {
						return nil, fmt.Errorf("making the output folder: %w", err)
					}
				}
				continue
			}
			// The holder file is only for messages: a read-only
			// output folder goes on without it.
			info := strconv.Itoa(os.Getpid()) + " " + opts.Holder + "\n"
			root.WriteFile(path.Join(outDir, LockName), []byte(info), 0o666)
			return &Lock{root: root, outDir: outDir, dir: dir, created: created}, nil
		}
		dir.Close()
		holder := lockHolder(root, outDir)
		if try >= tries {
			return nil, &LockedError{OutDir: outDir, Holder: holder, Waited: opts.Wait}
		}
		if try == 0 && opts.Waiting != nil {
			opts.Waiting(holder)
		}
		if !sleep(opts) {
			return nil, ErrInterrupted
		}
		try++
	}
}

// sleep waits between two tries; it returns false when interrupted.
func sleep(opts LockOptions) bool {
	if opts.Sleep != nil {
		opts.Sleep(lockPoll)
		select {
		case <-opts.Interrupt:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(lockPoll)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-opts.Interrupt:
		return false
	}
}

// stillThere reports whether the open folder dir is still outDir.
func stillThere(root *os.Root, outDir string, dir *os.File) bool {
	open, err := dir.Stat()
	if err != nil {
		return false
	}
	now, err := root.Stat(outDir)
	return err == nil && os.SameFile(open, now)
}

// lockHolder says who holds the lock, as its holder recorded it.
func lockHolder(root *os.Root, outDir string) string {
	data, err := root.ReadFile(path.Join(outDir, LockName))
	pid, holder, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
	_, perr := strconv.Atoi(pid)
	if err != nil || perr != nil || !ok || strings.ContainsAny(holder, "\n\x00") || len(holder) > 200 {
		return "another platc process"
	}
	return fmt.Sprintf("%s (PID %s)", holder, pid)
}

// Unlock releases the lock, first removing the folders LockOutput made if
// nothing was written in them.
func (l *Lock) Unlock() {
	l.root.Remove(path.Join(l.outDir, LockName))
	for i := len(l.created) - 1; i >= 0; i-- {
		if l.root.Remove(l.created[i]) != nil {
			break
		}
	}
	unlockDir(l.root, l.outDir, l.dir)
	l.dir.Close()
}

// mkdirAll makes dir and its parents, returning those it made, parents
// first.
func mkdirAll(root *os.Root, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, err := root.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := root.Mkdir(missing[i], 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		} else if err == nil {
			made = append(made, missing[i])
		}
	}
	return made, nil
}
