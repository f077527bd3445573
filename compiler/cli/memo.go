package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/model"
)

// The check memo: the verdict of a `platc check` that passed, kept in the
// cache with the identity of everything the compilation read (every file
// and folder of the repository and of the client checkouts, every path
// it found missing, the chart archives it asked for) and a digest of the
// output folder as it was. A check whose inputs all have the identity
// they had, and whose output folder holds the same bytes, would compile
// the same spec into the same files and find the same problems, so it
// reports what that check reported without compiling. That is `make
// check`, or an editor's check, run again while nothing changed (the
// pre-commit hook checks a fresh copy of what is staged: it always
// compiles).
//
// This is the test cache of the go command, made for a compiler: inputs
// are known by what the file system says of them, as go test knows the
// files a test opened (cmd/go, hashOpen) and Git its index, without
// reading them; what is checked, the output folder, is compared byte for
// byte. A path that changed less than memoSettle before the check started
// is not memoized, so that a write within the resolution of the file system's
// clock cannot hide. Only a check that passed is kept: a failure always
// compiles, to say what is wrong. Every other command compiles.

// MemoEnv names the environment variable that turns the check memo off
// ("off") while keeping the rest of the cache: to time a check that
// compiles, or to rule the memo out.
const MemoEnv = "PLATC_MEMO"

// memoFormat names the layout of a memo entry; it is in every key.
const memoFormat = "check-memo-1"

// memoSettle is how long a path must have been left alone before a check
// that read it is memoized (go test's modTimeCutoff).
const memoSettle = 2 * time.Second

// memoEntry is one check's memo.
type memoEntry struct {
	OutDir string `json:"outDir"`
	// Output is the digest of the output folder as the check read it
	// (stateDigest).
	Output   string         `json:"output"`
	Reads    []memoRead     `json:"reads"`
	Archives []memoArchive  `json:"archives,omitempty"`
	Problems []diag.Problem `json:"problems,omitempty"`
	Counts   counts         `json:"counts"`
}

// memoRead is a path the compilation read and what it found: the file's
// identity, or nothing (ID nil) where the path was missing.
type memoRead struct {
	Root  string  `json:"r,omitempty"` // "" the repository, else "client:" and the client's name
	Path  string  `json:"p"`
	Lstat bool    `json:"l,omitempty"` // the path itself, not what a link names
	ID    *fileID `json:"i,omitempty"`
}

// memoArchive is a chart archive the compilation asked platc's chart
// cache for, and the identity of its file where it was there (what the
// cache returns is checked against the digest).
type memoArchive struct {
	Digest string  `json:"d"`
	ID     *fileID `json:"i,omitempty"` // the archive's file; nil: not there
}

// clientRoot names a client's checkout in memoRead.Root.
func clientRoot(name string) string { return "client:" + name }

// memoKey is the cache key of the memo of c's check: its flags (client
// checkouts as written and by absolute path, -crds by digest). ok is false
// where the key cannot be made; then the check compiles and reports why.
func (c *common) memoKey() (key string, ok bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nspec %q\nstrict %v\n", memoFormat, strings.TrimSuffix(c.specDir, "/"), c.strict)
	for _, name := range slices.Sorted(maps.Keys(c.clientRepos)) {
		abs, err := filepath.Abs(c.clientRepos[name])
		if err != nil {
			return "", false
		}
		// As written too: the problems name the checkout's files so.
		fmt.Fprintf(h, "client %q %q %q\n", name, c.clientRepos[name], abs)
	}
	if c.crds != "" {
		crds, err := c.readCRDs()
		if err != nil {
			return "", false
		}
		for _, name := range slices.Sorted(maps.Keys(crds)) {
			fmt.Fprintf(h, "crd %q %x\n", name, sha256.Sum256(crds[name]))
		}
	}
	return memoFormat + "-" + hex.EncodeToString(h.Sum(nil)), true
}

// checkFromMemo reports c's check of repo (open's, not compiled yet) from
// its memo in the repository's cache, under key, and returns its exit code; ok is false
// when there is no memo, or anything it read is not as it was: then the
// check compiles in repo. It locks the output folders and completes an
// interrupted write there first, as a check that compiles does, since
// that may change what the memo compares; the compilation after it finds
// them locked, or the reason they are not.
func (c *call) checkFromMemo(repo *compiled, key string) (code int, ok bool) {
	data, found := repo.cache.Get(key)
	if !found {
		return 0, false
	}
	var m memoEntry
	if json.Unmarshal(data, &m) != nil || m.OutDir == "" {
		return 0, false
	}
	// As Compile does: the default output folder at once, the spec's
	// once the spec is known to name it (its reads are as they were);
	// a recovery there could change what was just compared.
	if repo.out.prepare(model.DefaultOutDir) != nil {
		return 0, false // the compilation says why
	}
	open, done := c.openRoots(repo.root)
	defer done()
	for name := range c.clientRepos {
		if _, err := open(clientRoot(name)); err != nil {
			return 0, false // the compilation says why
		}
	}
	if !m.unchanged(open) || !m.sameArchives(openChartStore()) {
		return 0, false
	}
	if m.OutDir != model.DefaultOutDir {
		if repo.out.prepare(m.OutDir) != nil || repo.out.recovered {
			return 0, false
		}
	}
	st, err := emit.Scan(newRepoFS(repo.root), m.OutDir)
	if err != nil || stateDigest(st) != m.Output {
		return 0, false
	}
	if c.proc.memoHit != nil {
		c.proc.memoHit()
	}
	repo.out.printNotes()
	log := &diag.Log{}
	for _, p := range m.Problems {
		log.Add(p)
	}
	c.rep.log(log)
	if interrupted(repo.ctx, c.rep, "nothing was written") {
		return ExitUsage, true
	}
	c.rep.checked(&m.Counts, m.OutDir+"/ is up to date")
	return ExitOK, true
}

// openRoots returns the roots memoRead.Root names, opened on first use
// (the repository's is repo), and closes the clients' with done.
func (c *common) openRoots(repo *os.Root) (open func(name string) (*os.Root, error), done func()) {
	opened := map[string]*os.Root{"": repo}
	done = func() {
		for name, r := range opened {
			if name != "" {
				r.Close()
			}
		}
	}
	return func(name string) (*os.Root, error) {
		if r, ok := opened[name]; ok {
			return r, nil
		}
		client, ok := strings.CutPrefix(name, "client:")
		dir, known := c.clientRepos[client]
		if !ok || !known {
			return nil, fmt.Errorf("no root %q", name)
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		opened[name] = r
		return r, nil
	}, done
}

// unchanged reports whether every path of m reads as it did: one stat
// each, relative to its folder, each folder opened once.
func (m *memoEntry) unchanged(open func(root string) (*os.Root, error)) bool {
	var (
		dir            *os.Root
		dirErr         error
		curRoot, cur   string
		started, owned bool
	)
	closeDir := func() {
		if owned && dir != nil {
			dir.Close()
		}
		dir, dirErr, owned = nil, nil, false
	}
	defer closeDir()
	for _, r := range m.Reads {
		d, base := path.Split(r.Path)
		if !started || r.Root != curRoot || d != cur {
			closeDir()
			started, curRoot, cur = true, r.Root, d
			root, err := open(r.Root)
			switch {
			case err != nil:
				dirErr = err
			case d == "":
				dir = root
			default:
				dir, dirErr = root.OpenRoot(strings.TrimSuffix(d, "/"))
				owned = dirErr == nil
			}
		}
		var fi fs.FileInfo
		err := dirErr
		if dir != nil {
			if r.Lstat {
				fi, err = dir.Lstat(base)
			} else {
				fi, err = dir.Stat(base)
			}
		}
		if r.ID == nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			continue
		}
		if err != nil {
			return false
		}
		if id, ok := identify(fi); !ok || !r.ID.equal(&id) {
			return false
		}
	}
	return true
}

// sameArchives reports whether the chart cache answers as it did: an
// archive it had is the same file (the cache is named by digest and
// checked on every read), one it had not it still has not.
func (m *memoEntry) sameArchives(store *chartStore) bool {
	for _, a := range m.Archives {
		if a.ID == nil {
			if _, found := store.Archive(a.Digest); found {
				return false
			}
			continue
		}
		fi, err := os.Stat(store.file(a.Digest))
		if err != nil {
			return false
		}
		if id, ok := identify(fi); !ok || !a.ID.equal(&id) {
			return false
		}
	}
	return true
}

// stateDigest is the digest of what the output folder st holds: every
// file platc generated with its bytes, every other file and folder.
func stateDigest(st *emit.State) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(st.Generated)) {
		fmt.Fprintf(h, "generated %q %x\n", p, sha256.Sum256(st.Generated[p]))
	}
	for _, p := range st.Foreign {
		fmt.Fprintf(h, "foreign %q\n", p)
	}
	for _, p := range slices.Sorted(maps.Keys(st.Folders)) {
		if st.Folders[p] {
			fmt.Fprintf(h, "folder %q\n", p)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keepMemo writes the memo of the check of repo, which passed, into the
// repository's cache under key, from what it read (rec), unless the record is spoiled
// or holds a path changed since settle before the check started, the
// check recovered a write (which changed what it read while it read it),
// or its problems were folded.
func (c *call) keepMemo(key string, rec *reads, repo *compiled, start time.Time) {
	res := repo.res
	if repo.out.recovered || res.Log.Folded() > 0 {
		return
	}
	list, ok := rec.list(start, c.proc.memoSettle)
	if !ok {
		return
	}
	m := memoEntry{OutDir: res.OutDir, Output: stateDigest(res.Existing), Reads: list, Archives: rec.archiveList(), Problems: res.Log.Problems(), Counts: *repo.counts()}
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	repo.cache.Put(key, data)
}

// recordingArchives is platc's chart cache, recording what was asked:
// the identity of each archive's file it had, or that it had none.
type recordingArchives struct {
	store *chartStore
	rec   *reads
}

func (a recordingArchives) Archive(digest string) ([]byte, bool) {
	data, found := a.store.Archive(digest)
	var id *fileID
	if found {
		fi, err := os.Stat(a.store.file(digest))
		v, ok := fileID{}, false
		if err == nil {
			v, ok = identify(fi)
		}
		if !ok {
			a.rec.spoil()
			return data, found
		}
		id = &v
	}
	a.rec.mu.Lock()
	a.rec.archives[digest] = id
	a.rec.mu.Unlock()
	return data, found
}

func (rec *reads) archiveList() []memoArchive {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []memoArchive
	for _, d := range slices.Sorted(maps.Keys(rec.archives)) {
		out = append(out, memoArchive{Digest: d, ID: rec.archives[d]})
	}
	return out
}
