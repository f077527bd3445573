package cli

import (
	"io/fs"
	"os"
)

// repoFS is the repository as an fs.FS, read through an os.Root so that no
// path leaves it. Its Sub opens the folder as a root of its own: reading the
// folder's files then resolves one path element each, not every element
// from the repository's root (emit.Scan reads the output folder this way).
// A Sub holds an open folder until it is closed.
type repoFS struct {
	fs.FS
	root *os.Root
}

func newRepoFS(root *os.Root) *repoFS { return &repoFS{FS: root.FS(), root: root} }

// Sub opens dir as a repoFS of its own; Close releases it.
func (r *repoFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return r, nil
	}
	sub, err := r.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &closingFS{newRepoFS(sub)}, nil
}

// ReadFile and ReadDir are os.Root's, which fs.ReadFile and fs.ReadDir
// would otherwise reach through Open.
func (r *repoFS) ReadFile(name string) ([]byte, error) {
	return r.FS.(fs.ReadFileFS).ReadFile(name)
}

func (r *repoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return r.FS.(fs.ReadDirFS).ReadDir(name)
}

// closingFS is a repoFS of a folder it opened, which Close closes.
type closingFS struct{ *repoFS }

func (c *closingFS) Close() error { return c.root.Close() }
