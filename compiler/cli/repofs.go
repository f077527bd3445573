package cli

import (
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/emit"
)

// repoFS is the repository as an fs.FS, read through an os.Root so that no
// path leaves it. Its Sub opens the folder as a root of its own: reading the
// folder's files then resolves one path element each, not every element
// from the repository's root (emit.Scan reads the output folder this way).
// A Sub holds an open folder until it is closed.
type repoFS struct {
	rootFS
	root *os.Root
}

// rootFS is what os.Root's FS implements. Embedding it, not fs.FS, keeps
// its ReadFile, ReadDir, Stat, Lstat and ReadLink, which fs.ReadFile,
// fs.Stat and the others would otherwise reach through Open.
type rootFS interface {
	fs.ReadDirFS
	fs.ReadFileFS
	fs.StatFS
	fs.ReadLinkFS
}

// ReadFile reads the named file, as os.Root's FS does, opening it in
// non-blocking mode where the system has one: reads of a regular file
// never block anyway, and an open in blocking mode costs four more system
// calls (the os package switches the mode to try the poller and back). A
// large platform's output folder has thousands of files.
func (r *repoFS) ReadFile(name string) ([]byte, error) {
	f, err := r.open(name, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, _ := f.Stat()
	return readSized(f, name, info)
}

// readSized reads the open file f, named name, whose information is info
// (nil when unknown): a regular file of at most maxInput bytes, in one
// read of its size and one more to see its end.
func readSized(f *os.File, name string, info fs.FileInfo) ([]byte, error) {
	size := 512
	if info != nil {
		if err := checkInput(info, maxInput); err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if info.Mode().IsRegular() {
			size = int(info.Size()) + 1 // one more, to see the end in one read
		}
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if int64(len(data)) > maxInput {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge(maxInput)}
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data))
		}
	}
}

// ReadDir reads the named folder, sorted by name, as os.Root's FS does,
// opening it as ReadFile opens a file.
func (r *repoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := r.open(name, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return entries, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return entries, nil
}

// open opens name without blocking, with the open flags flag also.
func (r *repoFS) open(name string, flag int) (*os.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return r.root.OpenFile(name, os.O_RDONLY|emit.OpenNonblock|flag, 0)
}

// OpenFolder opens the folder name, for emit.Scan to read below it.
func (r *repoFS) OpenFolder(name string) (*os.File, error) {
	return r.open(name, openDirectory)
}

func newRepoFS(root *os.Root) *repoFS {
	return &repoFS{rootFS: root.FS().(rootFS), root: root}
}

// Sub opens dir as a repoFS of its own; Close releases it.
func (r *repoFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return r, nil
	}
	root, err := r.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &closingFS{newRepoFS(root)}, nil
}

// closingFS is a repoFS of a folder it opened, which Close closes.
type closingFS struct{ *repoFS }

func (c *closingFS) Close() error { return c.root.Close() }
