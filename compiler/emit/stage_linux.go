package emit

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncfsFrom is how many files a write stages from which it makes them
// durable with one syncfs(2) of the output folder's file system before the
// journal's commit point, instead of one fsync(2) as each is written. A
// first render writes thousands, for which one flush of the file system is
// the cheaper (BenchmarkWrite/fresh); but syncfs also waits for whatever
// else is waiting to be written on that file system, which an everyday
// render of a few files should not wait for: there an fsync each is the
// cheaper.
const syncfsFrom = 256

// syncAtOnce says whether a write that stages n files syncs them at once,
// with syncStaged, rather than each as it is written.
func syncAtOnce(n int) bool { return n >= syncfsFrom }

// syncStaged makes the staged files of the output folder outDir durable
// before the commit point: syncfs(2) of the file system that holds it
// writes every dirty page and inode of it, the staged files' among them.
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
