package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// A recordingFS is a repoFS that keeps the identity (fileID) of every
// file and folder a compilation reads through it, and of every path it
// finds missing, so that a later run can tell, by one stat per path,
// that it would read the same (the check memo, memo.go). A folder's
// identity covers its list of names (adding, removing or renaming an
// entry changes its modification and change times), not what its files
// hold: each file read is recorded on its own.
//
// The output folder, read through OpenFolder, is not recorded: the memo
// compares what it holds, byte for byte.
type recordingFS struct {
	inner  *repoFS // a Sub's reads its folder, as repoFS's Sub does
	prefix string  // the path of a Sub's folder in the records, "" at the root
	rec    *reads
	root   string    // which root rec names: "" the repository, else a client's
	closer io.Closer // a Sub's folder, closed by Close
}

// reads is what one compilation read, from any goroutine. A read that
// cannot be identified (an error other than a missing path, a system
// without file identities) or that saw the same path change spoils the
// record: no memo is written from it.
type reads struct {
	mu       sync.Mutex
	seen     map[readKey]*fileID // nil: missing
	archives map[string]*fileID  // chart archives asked for: their files, nil where missing
	spoiled  bool
}

type readKey struct {
	root, path string
	lstat      bool // the path itself, not what a symbolic link names
}

func newReads() *reads { return &reads{seen: map[readKey]*fileID{}, archives: map[string]*fileID{}} }

// fsFor returns fsys recording into rec as the root named root.
func (rec *reads) fsFor(fsys *repoFS, root string) *recordingFS {
	return &recordingFS{inner: fsys, rec: rec, root: root}
}

// add records what the read of name found: its identity (fi), or that it
// is missing (err is fs.ErrNotExist).
func (rec *reads) add(root, name string, lstat bool, fi fs.FileInfo, err error) {
	var id *fileID
	switch {
	case err == nil:
		v, ok := identify(fi)
		if !ok {
			rec.spoil()
			return
		}
		id = &v
	case errors.Is(err, fs.ErrNotExist):
	default:
		rec.spoil()
		return
	}
	key := readKey{root, name, lstat}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if prev, ok := rec.seen[key]; ok && !prev.equal(id) {
		rec.spoiled = true // it changed while the compilation read it
	}
	rec.seen[key] = id
}

func (rec *reads) spoil() {
	rec.mu.Lock()
	rec.spoiled = true
	rec.mu.Unlock()
}

// list returns the reads sorted by root, folder and name (the order in
// which memo.go checks them, a folder opened once), or ok false when the
// record is spoiled or a path changed less than settle before now: a
// write within the resolution of the file system's clock would not show.
func (rec *reads) list(now time.Time, settle time.Duration) (out []memoRead, ok bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.spoiled {
		return nil, false
	}
	for k, id := range rec.seen {
		if id != nil && id.recent(now, settle) {
			return nil, false
		}
		out = append(out, memoRead{Root: k.root, Path: k.path, Lstat: k.lstat, ID: id})
	}
	slices.SortFunc(out, func(a, b memoRead) int {
		if c := strings.Compare(a.Root, b.Root); c != 0 {
			return c
		}
		da, na := path.Split(a.Path)
		db, nb := path.Split(b.Path)
		if c := strings.Compare(da, db); c != 0 {
			return c
		}
		if c := strings.Compare(na, nb); c != 0 {
			return c
		}
		switch {
		case a.Lstat == b.Lstat:
			return 0
		case a.Lstat:
			return 1
		}
		return -1
	})
	return out, true
}

func (r *recordingFS) full(name string) string {
	if r.prefix == "" {
		return name
	}
	if name == "." {
		return r.prefix
	}
	return r.prefix + "/" + name
}

func (r *recordingFS) add(name string, lstat bool, fi fs.FileInfo, err error) {
	r.rec.add(r.root, r.full(name), lstat, fi, err)
}

// Open opens name, recording the identity of the file it opened.
func (r *recordingFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := r.inner.Open(name)
	if err != nil {
		r.add(name, false, nil, err)
		return nil, err
	}
	fi, err := f.Stat()
	r.add(name, false, fi, err)
	if err != nil {
		f.Close()
		return nil, err
	}
	if rd, ok := f.(fs.ReadDirFile); ok && fi.IsDir() {
		return &recordingDir{ReadDirFile: rd, fsys: r, name: name}, nil
	}
	return f, nil
}

// ReadFile reads name as repoFS does, recording the identity of the file
// it read (from the open file: what was read, whatever the path names
// meanwhile).
func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	f, fi, err := r.openRecorded(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, name, fi)
}

// ReadDir reads the folder name as repoFS does, recording its identity
// and, where the caller asks an entry for its information, the entry's.
func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, _, err := r.openRecorded(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := readDirOpen(f, name)
	if err != nil {
		r.rec.spoil()
		return entries, err
	}
	return r.entries(name, entries), nil
}

// openRecorded opens name as repoFS does, and records the identity of
// what it opened.
func (r *recordingFS) openRecorded(name string) (*os.File, fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := r.inner.open(name)
	if err != nil {
		r.add(name, false, nil, err)
		return nil, nil, err
	}
	fi, err := f.Stat()
	r.add(name, false, fi, err)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func (r *recordingFS) entries(dir string, entries []fs.DirEntry) []fs.DirEntry {
	for i, e := range entries {
		entries[i] = recordingEntry{e, r, path.Join(dir, e.Name())}
	}
	return entries
}

func (r *recordingFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := r.inner.Stat(name)
	r.add(name, false, fi, err)
	return fi, err
}

func (r *recordingFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := r.inner.Lstat(name)
	r.add(name, true, fi, err)
	return fi, err
}

// ReadLink records the link's own identity, taken before it is read: a
// link made again to name another file is a new file.
func (r *recordingFS) ReadLink(name string) (string, error) {
	fi, err := r.inner.Lstat(name)
	r.add(name, true, fi, err)
	if err != nil {
		return "", err
	}
	return r.inner.ReadLink(name)
}

// Sub is the folder dir, opened as repoFS's Sub opens it (a root of its
// own, so that a link reads there as it does in every other command) and
// recorded into the same record under its path.
func (r *recordingFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		sub := *r
		sub.closer = nil // the folder is r's to close
		return &sub, nil
	}
	fi, err := r.inner.Stat(dir)
	r.add(dir, false, fi, err)
	inner, closer, err := r.inner.subRoot(dir)
	if err != nil {
		return nil, err
	}
	return &recordingFS{inner: inner, prefix: r.full(dir), rec: r.rec, root: r.root, closer: closer}, nil
}

// Close closes a Sub's folder.
func (r *recordingFS) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// OpenFolder opens the output folder for emit.Scan, unrecorded.
func (r *recordingFS) OpenFolder(name string) (*os.File, error) {
	return r.inner.OpenFolder(name)
}

// recordingDir is a folder opened by Open: its entries record what Info
// finds.
type recordingDir struct {
	fs.ReadDirFile
	fsys *recordingFS
	name string
}

func (d *recordingDir) ReadDir(n int) ([]fs.DirEntry, error) {
	entries, err := d.ReadDirFile.ReadDir(n)
	return d.fsys.entries(d.name, entries), err
}

// recordingEntry is an entry of a folder read through a recordingFS; the
// information Info reads about it is recorded as an Lstat of it.
type recordingEntry struct {
	fs.DirEntry
	fsys *recordingFS
	name string
}

func (e recordingEntry) Info() (fs.FileInfo, error) {
	fi, err := e.DirEntry.Info()
	e.fsys.add(e.name, true, fi, err)
	return fi, err
}
