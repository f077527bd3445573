//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package emit

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an flock(2) on the open output folder itself, without
// waiting: the kernel releases it when the process ends, even when it is
// killed, so no lock outlives its holder. held says another holds it.
func tryLock(_ *os.Root, _ string, dir *os.File) (held bool, err error) {
	err = syscall.Flock(int(dir.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// unlockDir releases the lock tryLock took.
func unlockDir(_ *os.Root, _ string, dir *os.File) {
	syscall.Flock(int(dir.Fd()), syscall.LOCK_UN)
}

// staleLockHint is what to do about a lock whose holder is gone: nothing,
// the kernel released it.
func staleLockHint(string) string { return "" }

// syncDir syncs the folder dir, so that a file made in it is found there
// after a crash.
func syncDir(root *os.Root, dir string) error {
	f, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
