package emit

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncfsFrom is the number of staged files from which a write syncs them
// with one syncfs(2) before the commit point instead of an fsync(2) each.
// syncfs also waits for everything else pending on that file system, which
// a render of a few files should not wait for.
const syncfsFrom = 256

// syncAtOnce says whether a write that stages n files syncs them at once,
// with syncStaged, rather than each as it is written.
func syncAtOnce(n int) bool { return n >= syncfsFrom }

// syncStaged makes the staged files under outDir durable with syncfs(2).
func syncStaged(root *os.Root, outDir string) error {
	f, err := root.Open(outDir)
	if err != nil {
		return err
	}
	err = unix.Syncfs(int(f.Fd()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// The inode flags of chattr(1)'s i and a (linux/fs.h), which x/sys/unix
// does not name.
const (
	fsImmutable = 0x00000010
	fsAppend    = 0x00000020
)

// cannotReplace reports whether the file name of r is immutable or
// append-only, which no rename replaces (chattr(1)'s i and a).
func cannotReplace(r *os.Root, name string) bool {
	f, err := r.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	return err == nil && flags&(fsImmutable|fsAppend) != 0
}
