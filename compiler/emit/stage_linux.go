package emit

import (
	"os"

	"golang.org/x/sys/unix"
)

// stageSynced says whether each staged file is synced as it is written.
// On Linux it is not: syncStaged syncs them all with one syncfs(2) before
// the journal's commit point, which costs one flush of the file system
// instead of one per file (a first render writes thousands).
const stageSynced = false

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
