package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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
