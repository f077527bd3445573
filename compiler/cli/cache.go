package cli

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/emit"
)

// CacheEnv names the environment variable that says where platc keeps its
// cache (compiler.Options.Cache) between runs: a folder, or "off". Unset,
// it is the platc folder of the user's cache directory (os.UserCacheDir).
const CacheEnv = "PLATC_CACHE"

// CacheRepoEnv names the environment variable that says which
// repository's folder of the cache a run uses, when it is not the
// repository the run reads. The pre-commit hook sets it to the working
// tree whose staged copy it checks: keyed by the copy's temporary path,
// each commit would check with an empty cache and leave a folder of its
// own behind.
const CacheRepoEnv = "PLATC_CACHE_REPO"

// cacheBase is the folder of platc's caches (CacheEnv's, else the platc
// folder of the user's cache directory); ok is false when they are off or
// there is no cache directory.
func cacheBase() (string, bool) {
	base := os.Getenv(CacheEnv)
	if base == "off" {
		return "", false
	}
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		base = filepath.Join(d, "platc")
	}
	return base, true
}

// cacheInOutput says why platc's cache may not be where it is, inside the
// output folder outDir of the repository at dir (which platc rewrites
// whole, and whose files are the review), or "".
func cacheInOutput(dir, outDir string) string {
	base, ok := cacheBase()
	if !ok || !inside(base, filepath.Join(dir, outDir)) {
		return ""
	}
	return fmt.Sprintf("the cache (%s=%s) is inside the output folder %s/, which holds only what platc renders: set %s to a folder outside it", CacheEnv, base, outDir, CacheEnv)
}

// openCache returns the cache of the repository at dir (or at
// CacheRepoEnv's folder, when it names one), trimmed, or nil when there is
// none: turned off, or no cache directory or executable to key it by.
func openCache(dir string) compiler.Cache {
	c, base := cacheOf(dir)
	if c == nil {
		return nil
	}
	trimCache(base, time.Now())
	return c
}

// cacheOf is openCache's cache, not trimmed, and its base folder.
func cacheOf(dir string) (*dirCache, string) {
	base, ok := cacheBase()
	if !ok {
		return nil, ""
	}
	v, ok := version()
	if !ok {
		return nil, ""
	}
	// A link to the repository is the repository (git rev-parse
	// --show-toplevel, which the hook passes, resolves links).
	return cacheIn(base, resolved(cmp.Or(os.Getenv(CacheRepoEnv), dir)), v), base
}

// heldCache is the cache of a repository whose cache folder is inside it,
// where the spec may name an output folder around it, which platc refuses
// once the spec is read: until then it reads through, and holds what is
// put, so that nothing is written into an output folder before the
// refusal. release writes what it holds, and trims the cache.
type heldCache struct {
	c    *dirCache
	base string

	mu       sync.Mutex
	held     map[string][]byte
	released bool
}

func (h *heldCache) Get(key string) ([]byte, bool) {
	h.mu.Lock()
	data, ok := h.held[key]
	h.mu.Unlock()
	if ok {
		return data, true
	}
	return h.c.Get(key)
}

func (h *heldCache) Put(key string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		h.c.Put(key, data)
		return
	}
	h.held[key] = data
}

// release writes what the cache holds, and every Put after.
func (h *heldCache) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = true
	trimCache(h.base, time.Now())
	for key, data := range h.held {
		h.c.Put(key, data)
	}
	h.held = nil
}

// cacheIn is the cache of the repository at repo (by its absolute path,
// links resolved) for the platc of version v: a folder per repository, and
// in it a folder per platc. Two builds of platc that take turns on one
// repository (the user's platc and the one the pre-commit framework
// builds) would otherwise replace each other's entries under the same
// keys, and each run after a turn would redo every chart render.
func cacheIn(base, repo, v string) *dirCache {
	sum := sha256.Sum256([]byte(repo))
	return &dirCache{dir: filepath.Join(base, "repos", hex.EncodeToString(sum[:12]), v[:16]), version: v}
}

// version identifies the running platc, for its cache entries: the digest
// of its build information (versions of Go, the module and every
// dependency, build settings, VCS revision). Where that does not pin the
// code (a work tree with changes, go run, go test), the executable's path,
// size and modification time are added: a digest of the executable itself
// would cost a read of tens of megabytes at every run. ok is false when
// neither can be known.
func version() (string, bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	id := info.String()
	if !pinned(info) {
		exe, err := os.Executable()
		if err != nil {
			return "", false
		}
		st, err := os.Stat(exe)
		if err != nil {
			return "", false
		}
		id += fmt.Sprintf("\nexecutable %s %d %d", exe, st.Size(), st.ModTime().UnixNano())
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:]), true
}

// pinned reports whether the build information names the code it was built
// from: a released module version, or a VCS revision without changes (Go
// stamps vcs.modified with the revision).
func pinned(info *debug.BuildInfo) bool {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return true
	}
	return slices.Contains(info.Settings, debug.BuildSetting{Key: "vcs.modified", Value: "false"})
}

// dirCache is a compiler.Cache kept in a folder, one file per key. A
// failure to read or write it only costs time.
//
// An entry starts with a line that binds it to what it is: the entry
// format, the platc version that wrote it, its key and the SHA-256 digest
// of its data. Get ignores an entry whose line does not match: written by
// another platc, found under another key (a file renamed or copied), or
// changed since. The digest is no signature: it catches corruption and
// mix-ups, not someone who can write the cache folder.
type dirCache struct {
	dir     string
	version string
}

// entryFormat is the first word of every entry.
const entryFormat = "platc-cache-1"

func (c *dirCache) header(key string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s %s %s %s\n", entryFormat, c.version, key, hex.EncodeToString(sum[:]))
}

// Get opens the entry in non-blocking mode, as repoFS.ReadFile opens a
// file. An entry found is marked used (its modification time set to now)
// when it was last marked more than cacheTouchEvery ago, for trimCache.
func (c *dirCache) Get(key string) ([]byte, bool) {
	name := filepath.Join(c.dir, key)
	f, err := os.OpenFile(name, os.O_RDONLY|emit.OpenNonblock, 0)
	if err != nil {
		return nil, false
	}
	info, _ := f.Stat()
	data, err := readSized(f, name, info)
	f.Close()
	if err != nil {
		return nil, false
	}
	line, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(line)+"\n" != c.header(key, rest) {
		return nil, false
	}
	if now := time.Now(); info != nil && now.Sub(info.ModTime()) > cacheTouchEvery {
		os.Chtimes(name, now, now)
	}
	return rest, true
}

// The cache is trimmed as Go's build cache is: an entry no run has read
// or written for cacheTrimAge is removed, and so are the folders of a
// platc or a repository left with none, by the first run after
// cacheTrimEvery has passed since the last trim. Chart archives are not
// entries: only platc charts pull fetches them again.
const (
	cacheTrimAge    = 5 * 24 * time.Hour
	cacheTrimEvery  = 24 * time.Hour
	cacheTouchEvery = time.Hour
)

// trimCache trims the cache folder base at now (see cacheTrimAge). A
// failure only leaves an entry in place.
func trimCache(base string, now time.Time) {
	marker := filepath.Join(base, "trimmed")
	if info, err := os.Stat(marker); err == nil && now.Sub(info.ModTime()) < cacheTrimEvery {
		return
	}
	// A folder per repository, in it a folder per platc (and the entries
	// of the platc that kept them all in the repository's folder).
	trimEntries(filepath.Join(base, "repos"), now)
	if os.MkdirAll(base, 0o777) == nil && os.WriteFile(marker, nil, 0o666) == nil {
		os.Chtimes(marker, now, now)
	}
}

// trimEntries removes the files below dir unused for cacheTrimAge at now,
// and the folders that leaves empty.
func trimEntries(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			trimEntries(p, now)
			os.Remove(p) // only if it is empty: a run may have written to it meanwhile
		} else if info, err := e.Info(); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > cacheTrimAge {
			os.Remove(p)
		}
	}
}

func (c *dirCache) Put(key string, data []byte) {
	if os.MkdirAll(c.dir, 0o777) == nil {
		writeFile(c.dir, key+".*.tmp", filepath.Join(c.dir, key), append([]byte(c.header(key, data)), data...), 0)
	}
}
