//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package emit

import (
	"errors"
	"io/fs"
	"os"
	"path"
)

// tryLock, where there is no flock(2), makes the lock file itself the
// lock: creating it fails while another holds it. A platc that was killed
// leaves it behind (staleLockHint says what to do). A folder platc may not
// write in is not locked: nobody writes it.
func tryLock(root *os.Root, outDir string, _ *os.File) (held bool, err error) {
	f, err := root.OpenFile(path.Join(outDir, LockName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	switch {
	case errors.Is(err, fs.ErrExist):
		return true, nil
	case errors.Is(err, fs.ErrPermission):
		return false, nil // a read-only output folder, which nobody writes
	case err != nil:
		return false, err
	}
	return false, f.Close()
}

// unlockDir releases the lock tryLock took.
func unlockDir(root *os.Root, outDir string, _ *os.File) {
	root.Remove(path.Join(outDir, LockName))
}

// staleLockHint is what to do about a lock whose holder is gone.
func staleLockHint(outDir string) string {
	return "; if that process is not running any more, remove " + path.Join(outDir, LockName)
}

// syncDir does nothing: folders cannot be synced here.
func syncDir(*os.Root, string) error { return nil }
