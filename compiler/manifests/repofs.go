package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/platc/platc/compiler/diag"
)

// root is where repoFS shows the repository to kustomize, which works with
// absolute paths. Messages are given back with it stripped (see oneLine), so
// that they name files relative to the repository root.
const root = "/platc-repository"

var errReadOnly = errors.New("read-only file system")

// repoFS is kustomize's filesys.FileSystem over a repository's fs.FS,
// read-only. Paths outside root do not exist, so nothing outside the
// repository is ever read; errors read as those of kustomize's own on-disk
// file system (no such file or directory, not a directory, is a directory)
// so that kustomize's messages are those Argo CD shows.
//
// It also guards the build: every file kustomize reads passes through
// ReadFile, which refuses (and records) a kustomization or builtin plugin
// configuration naming a remote base or file before kustomize could fetch it
// (see remote.go), and adds the origin annotations to the root
// kustomization (see withOrigins).
type repoFS struct {
	fsys fs.FS
	// originsIn, unless empty, is the folder of the root kustomization:
	// ReadFile serves its kustomization files (whichever name kustomize
	// finds) with buildMetadata: [originAnnotations].
	originsIn string
	// remote are the remote references, and local paths outside the
	// repository, that kustomization files name, refused so far.
	remote []Problem
	// links are the symbolic links out of the repository kustomize met
	// (see OutsideLink), refused so far.
	links []Problem
	// outside are the paths outside the repository kustomize tried to
	// read, relative to the repository root, for a build that fails.
	outside []string

	mu     sync.Mutex
	inRepo map[string]bool // by fsys path: no link on the way leaves the repository
}

var _ filesys.FileSystem = (*repoFS)(nil)

// rel maps a path of kustomize's to a path of fsys; ok is false outside the
// repository. A relative path is taken relative to the repository root, as
// kustomize's on-disk file system takes it relative to its working
// directory.
func rel(p string) (name string, ok bool) {
	p = filepath.ToSlash(abs(p))
	if p == root {
		return ".", true
	}
	name, ok = strings.CutPrefix(p, root+"/")
	return name, ok && fs.ValidPath(name)
}

// abs is the absolute, cleaned form of a path of kustomize's.
func abs(p string) string {
	p = filepath.ToSlash(p)
	if !path.IsAbs(p) {
		p = path.Join(root, p)
	}
	return filepath.FromSlash(path.Clean(p))
}

// resolve maps p, a path of kustomize's, to a path of fsys, as rel does,
// and refuses a path outside the repository, or one that a symbolic link
// takes out of it, as a path that does not exist; it records both for
// Build to report.
func (r *repoFS) resolve(op, p string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name, ok := rel(p)
	if !ok {
		shown, err := filepath.Rel(filepath.FromSlash(root), abs(p))
		if err != nil {
			shown = p
		}
		if shown = filepath.ToSlash(shown); !slices.Contains(r.outside, shown) {
			r.outside = append(r.outside, shown)
		}
		return "", pathError(op, p, fs.ErrNotExist)
	}
	inRepo, known := r.inRepo[name]
	if !known {
		link, target, outside := OutsideLink(r.fsys, name)
		inRepo = !outside
		if r.inRepo == nil {
			r.inRepo = map[string]bool{}
		}
		r.inRepo[name] = inRepo
		if problem := (Problem{ID: diag.Path, File: link, Msg: OutsideMsg(target)}); outside && !slices.Contains(r.links, problem) {
			r.links = append(r.links, problem)
		}
	}
	if !inRepo {
		return "", pathError(op, p, fs.ErrNotExist)
	}
	return name, nil
}

// pathError rewrites an error of fsys as the on-disk one for p.
func pathError(op, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = syscall.ENOENT
	case errors.Is(err, fs.ErrPermission):
		err = syscall.EACCES
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Create, Mkdir, MkdirAll, RemoveAll and WriteFile refuse: the repository
// is read-only.
func (r *repoFS) Create(p string) (filesys.File, error) {
	return nil, &fs.PathError{Op: "open", Path: p, Err: errReadOnly}
}

func (r *repoFS) Mkdir(p string) error {
	return &fs.PathError{Op: "mkdir", Path: p, Err: errReadOnly}
}

func (r *repoFS) MkdirAll(p string) error {
	return &fs.PathError{Op: "mkdir", Path: p, Err: errReadOnly}
}

func (r *repoFS) RemoveAll(p string) error {
	return &fs.PathError{Op: "unlinkat", Path: p, Err: errReadOnly}
}

func (r *repoFS) WriteFile(p string, _ []byte) error {
	return &fs.PathError{Op: "open", Path: p, Err: errReadOnly}
}

// Open opens a file for reading, as ReadFile reads it.
func (r *repoFS) Open(p string) (filesys.File, error) {
	name, info, err := r.stat(p)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return &file{info: info}, nil
	}
	data, err := r.read(p, name)
	if err != nil {
		return nil, err
	}
	return &file{Reader: bytes.NewReader(data), info: info}, nil
}

// stat maps p to a path of fsys and stats it, with the errors of open(2)
// on p.
func (r *repoFS) stat(p string) (string, fs.FileInfo, error) {
	name, err := r.resolve("open", p)
	if err != nil {
		return "", nil, err
	}
	info, err := fs.Stat(r.fsys, name)
	if err != nil {
		return "", nil, pathError("open", p, err)
	}
	return name, info, nil
}

// IsDir reports whether p is a folder of the repository.
func (r *repoFS) IsDir(p string) bool {
	_, info, err := r.stat(p)
	return err == nil && info.IsDir()
}

// ReadDir lists the names in folder p, sorted.
func (r *repoFS) ReadDir(p string) ([]string, error) {
	name, err := r.resolve("open", p)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(r.fsys, name)
	if err != nil {
		return nil, pathError("open", p, err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// CleanedAbs splits p into an existing folder and a file name in it (empty
// when p is a folder), as kustomize's on-disk file system does, errors
// included.
func (r *repoFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	a := abs(p)
	_, info, err := r.stat(a)
	if err != nil {
		return "", "", fmt.Errorf("evalsymlink failure on '%s' : %w", p, r.lstatError(a))
	}
	// Kustomize's on-disk file system evaluates the symbolic links of the
	// path (filepath.EvalSymlinks), and checks its load restrictions on
	// what they lead to: so does this, inside the repository.
	if name, ok := rel(a); ok {
		resolved, _, _, _ := resolveLinks(r.fsys, name)
		a = filepath.FromSlash(path.Join(root, resolved))
	}
	if info.IsDir() {
		return filesys.ConfirmedDir(a), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(a)), filepath.Base(a), nil
}

// lstatError is the error filepath.EvalSymlinks gives for a missing path:
// about its first element that does not exist, or that follows a file.
func (r *repoFS) lstatError(a string) error {
	name, ok := rel(a)
	if !ok || name == "." {
		return &fs.PathError{Op: "lstat", Path: a, Err: syscall.ENOENT}
	}
	at, file := root, false
	for elem := range strings.SplitSeq(name, "/") {
		at = path.Join(at, elem)
		if file {
			return syscall.ENOTDIR // EvalSymlinks does not say where
		}
		_, info, err := r.stat(at)
		if err != nil {
			return &fs.PathError{Op: "lstat", Path: filepath.FromSlash(at), Err: syscall.ENOENT}
		}
		file = !info.IsDir()
	}
	return &fs.PathError{Op: "lstat", Path: a, Err: syscall.ENOENT}
}

// Exists reports whether p exists in the repository.
func (r *repoFS) Exists(p string) bool {
	_, _, err := r.stat(p)
	return err == nil
}

// Glob lists the paths that match pattern, without hidden files unless the
// pattern names them, as kustomize's on-disk file system does.
func (r *repoFS) Glob(pattern string) ([]string, error) {
	name, ok := rel(pattern)
	if !ok {
		return nil, nil
	}
	matches, err := fs.Glob(r.fsys, name)
	if err != nil {
		return nil, err
	}
	for i, m := range matches {
		matches[i] = filepath.FromSlash(path.Join(root, m))
	}
	if filesys.IsHiddenFilePath(pattern) {
		return matches, nil
	}
	return filesys.RemoveHiddenFiles(matches), nil
}

// ReadFile reads a file of the repository. It refuses a kustomization or a
// builtin plugin configuration that names a remote base or file, recording
// the reference, and serves the root kustomization with origin annotations.
func (r *repoFS) ReadFile(p string) ([]byte, error) {
	name, info, err := r.stat(p)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	return r.read(p, name)
}

// read is ReadFile of p, the file name of fsys.
func (r *repoFS) read(p, name string) ([]byte, error) {
	data, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return nil, pathError("open", p, err)
	}
	if found := remoteRefs(name, data); len(found) > 0 {
		for _, f := range found {
			if !slices.Contains(r.remote, f) {
				r.remote = append(r.remote, f)
			}
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: errRemote}
	}
	if r.originsIn != "" && path.Dir(name) == r.originsIn && IsKustomization(path.Base(name)) {
		data = withOrigins(data)
	}
	return data, nil
}

// Walk walks the tree at p in lexical order, as filepath.Walk does.
func (r *repoFS) Walk(p string, walkFn filepath.WalkFunc) error {
	name, err := r.resolve("lstat", p)
	if err != nil {
		return walkFn(p, nil, err)
	}
	return fs.WalkDir(r.fsys, name, func(n string, d fs.DirEntry, err error) error {
		at := filepath.FromSlash(path.Join(root, n))
		if err != nil {
			return walkFn(at, nil, pathError("lstat", at, err))
		}
		info, err := d.Info()
		if err != nil {
			return walkFn(at, nil, pathError("lstat", at, err))
		}
		return walkFn(at, info, nil)
	})
}

// file is an open file of repoFS.
type file struct {
	*bytes.Reader // nil for a folder
	info          fs.FileInfo
}

var _ filesys.File = (*file)(nil)

func (f *file) Read(b []byte) (int, error) {
	if f.Reader == nil {
		return 0, syscall.EISDIR
	}
	return f.Reader.Read(b)
}

func (f *file) Write([]byte) (int, error) { return 0, errReadOnly }

func (f *file) Close() error { return nil }

func (f *file) Stat() (os.FileInfo, error) { return f.info, nil }
