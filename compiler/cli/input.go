package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/platc/platc/compiler/emit"
)

// maxInput is the most bytes platc reads of one file it is given (a spec
// file, a values file, a chart archive, a rehearsal's report, a file of
// an earlier render): far more than any of them holds.
var maxInput int64 = 64 << 20

// errNotRegular is what a file that is not a regular file one (a FIFO, a
// device, a socket) is refused with: it may never end.
var errNotRegular = errors.New("not a regular file (a FIFO, a device or a socket, which may never end): name a regular file")

// errTooLarge says a file is larger than max bytes.
func errTooLarge(max int64) error {
	return fmt.Errorf("larger than %d MiB, the most platc reads of a file: not read", max>>20)
}

// readInput reads the file name, a regular file of at most max bytes,
// opened without blocking (a FIFO's open would wait for a writer).
func readInput(name string, max int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|emit.OpenNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkInput(info, max); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge(max)}
	}
	return data, nil
}

// checkInput refuses a file that is not regular, or larger than max
// bytes. A folder is left to the read, which says what it is.
func checkInput(info fs.FileInfo, max int64) error {
	switch {
	case info.IsDir():
		return nil
	case !info.Mode().IsRegular():
		return errNotRegular
	case info.Size() > max:
		return errTooLarge(max)
	}
	return nil
}

// writeFileAtomic writes a file of the repository beside its place and
// renames it there.
func writeFileAtomic(root *os.Root, name string, data []byte) error {
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".platc-tmp")
	if err := root.WriteFile(tmp, data, 0o666); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// writeFile writes data to the file name whole or not at all, so that a
// reader never sees half of it: into a new file of dir named after
// pattern (os.CreateTemp: made by platc alone), renamed over name. perm,
// unless 0, is the file's mode.
func writeFile(dir, pattern, name string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && perm != 0 {
		err = os.Chmod(f.Name(), perm)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
