//go:build linux

package emit

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
)

// scanFolder reads the folder f, at path dir, and its sub-folders into st,
// as scanDir does, but with Linux system calls on f's descriptor: entry
// types come from getdents64, not a stat each, and each entry opens
// relative to its folder without following symbolic links, as os.Root
// does, in fewer calls. ok is false if the descriptor cannot be reached or
// a listing has no types; scanDir reads the folder then.
func scanFolder(f *os.File, outDir, dir string, st *State) (ok bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, nil
	}
	buf := make([]byte, 16<<10)
	var file []byte // every file is read into it in turn: Scan keeps no bytes
	if cerr := rc.Control(func(fd uintptr) { err = scanFD(int(fd), outDir, dir, st, buf, &file) }); cerr != nil || errors.Is(err, errNoTypes) {
		return false, nil
	}
	return true, err
}

func scanFD(fd int, outDir, dir string, st *State, buf []byte, file *[]byte) error {
	entries, err := readDirFD(fd, buf)
	if err != nil {
		return &fs.PathError{Op: "readdirent", Path: dir, Err: err}
	}
	for _, e := range entries {
		p := path.Join(dir, e.name)
		typ := e.typ
		if typ == syscall.DT_UNKNOWN {
			// A file system whose listings have no types: scanDir
			// reads it instead.
			return errNoTypes
		}
		switch {
		case dir == outDir && (e.name == JournalName || e.name == LockName):
			// platc's own, as in scanDir.
		case typ == syscall.DT_DIR:
			st.Folders[p] = true
			sub, err := openAt(fd, e.name, syscall.O_DIRECTORY)
			if err != nil {
				return err
			}
			err = scanFD(sub, outDir, p, st, buf, file)
			syscall.Close(sub)
			if err != nil {
				return err
			}
		case typ != syscall.DT_REG:
			st.Foreign = append(st.Foreign, p)
		default:
			data, err := readFileAt(fd, e.name, (*file)[:0])
			if err != nil {
				return err
			}
			st.addFile(p, data)
			*file = data
		}
	}
	return nil
}

type dirEntry struct {
	name string
	typ  uint8
}

// readDirFD lists the folder open as fd, by name, without "." and "..".
func readDirFD(fd int, buf []byte) ([]dirEntry, error) {
	var entries []dirEntry
	for {
		var n int
		err := ignoringEINTR(func() (err error) { n, err = syscall.Getdents(fd, buf); return err })
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		// struct linux_dirent64: inode (8 bytes), offset (8), record
		// length (2), type (1), name (NUL-terminated).
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, syscall.EIO
			}
			name := b[19:reclen]
			if i := slices.Index(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				entries = append(entries, dirEntry{s, b[18]})
			}
			b = b[reclen:]
		}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// openAt opens name in the folder fd, read-only, refusing a symbolic link.
func openAt(fd int, name string, flags int) (int, error) {
	var f int
	err := ignoringEINTR(func() (err error) {
		f, err = syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|flags, 0)
		return err
	})
	if err != nil {
		return -1, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return f, nil
}

// readFileAt reads the file name of the folder fd in one read of its size
// plus a byte (a file that grew is read on to its end), reusing into's
// array where it has room.
func readFileAt(fd int, name string, into []byte) ([]byte, error) {
	f, err := openAt(fd, name, syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(f)
	size, known := 512, 0
	var s syscall.Stat_t
	if ignoringEINTR(func() error { return syscall.Fstat(f, &s) }) == nil && s.Size < 1<<30 {
		size, known = int(s.Size)+1, int(s.Size)
	}
	data := slices.Grow(into[:0], size)
	for {
		var n int
		err := ignoringEINTR(func() (err error) { n, err = syscall.Read(f, data[len(data):cap(data)]); return err })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return data, nil
		}
		data = data[:len(data)+n]
		if len(data) == known && known > 0 && s.Mode&syscall.S_IFMT == syscall.S_IFREG {
			return data, nil
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data))
		}
	}
}

// errNoTypes says that a folder's listing has no types.
var errNoTypes = errors.New("no types in a folder's listing")

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}
