package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/platc/platc/compiler"
)

// CacheEnv names the environment variable that says where platc keeps its
// cache (compiler.Options.Cache) between runs: a folder, or "off". Unset,
// it is the platc folder of the user's cache directory (os.UserCacheDir).
const CacheEnv = "PLATC_CACHE"

// openCache returns the cache of the repository at dir, or nil when
// there is none: turned off, or no cache directory or executable to key it
// by. Each repository has a folder of its own; each entry starts with the
// identity of the platc executable that wrote it, so that another build of
// platc (which may make something else of a build) does not use it.
func openCache(dir string) compiler.Cache {
	base := os.Getenv(CacheEnv)
	if base == "off" {
		return nil
	}
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		base = filepath.Join(d, "platc")
	}
	repo, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	info, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256([]byte(repo))
	return &dirCache{
		dir:      filepath.Join(base, "repos", hex.EncodeToString(sum[:12])),
		identity: fmt.Sprintf("%s %d %d\n", exe, info.Size(), info.ModTime().UnixNano()),
	}
}

// dirCache is a compiler.Cache kept in a folder, one file per key. A
// failure to read or write it only costs time.
type dirCache struct {
	dir      string
	identity string // the first line of every entry
}

func (c *dirCache) Get(key string) ([]byte, bool) {
	data, err := os.ReadFile(filepath.Join(c.dir, key))
	if err != nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(data, []byte(c.identity))
	return rest, ok
}

// Put writes the entry beside its place and renames it there, so that a
// reader never sees half of it.
func (c *dirCache) Put(key string, data []byte) {
	if os.MkdirAll(c.dir, 0o777) != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, err = f.Write(append([]byte(c.identity), data...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}
