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
	sub, err := r.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &closingFS{newRepoFS(sub)}, nil
}

// closingFS is a repoFS of a folder it opened, which Close closes.
type closingFS struct{ *repoFS }

func (c *closingFS) Close() error { return c.root.Close() }
