package manifests

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// cacheEntry is a folder's outcome with what building it read. It names
// the folder it describes: an entry stored under another folder's key (a
// cache folder copied or mixed up) describes that folder, not this one.
// That the bytes are the ones stored is the store's to check (cache.Cache).
type cacheEntry struct {
	Dir      string
	Reads    []read
	Objects  []Object
	Problems []Problem
}

// read is one look at the repository, and what it saw.
type read struct {
	Op, Name, Saw string
}

// cached returns the outcome of the build of dir stored in cache, which
// may be nil, if the repository fsys still reads as it did for that build.
func cached(c cache.Cache, fsys fs.FS, dir string) (*cacheEntry, bool) {
	if c == nil {
		return nil, false
	}
	data, ok := c.Get(cache.Manifests.Key(dir))
	if !ok {
		return nil, false
	}
	e, err := decodeEntry(data)
	if err != nil || e.Dir != dir {
		return nil, false
	}
	for _, r := range e.Reads {
		if look(fsys, r.Op, r.Name) != r.Saw {
			return nil, false
		}
	}
	return e, true
}

// store records the outcome of the build of dir, and what it read.
func store(c cache.Cache, dir string, reads []read, objects []Object, problems []Problem) {
	c.Put(cache.Manifests.Key(dir), encodeEntry(&cacheEntry{Dir: dir, Reads: reads, Objects: objects, Problems: problems}))
}

// encodeEntry writes e in object's binary form, after cache.Manifests'
// layout; a problem's id by its name, which stays when diag's table
// changes order.
func encodeEntry(e *cacheEntry) []byte {
	data, _ := object.Entry(cache.Manifests.Layout(), e) // strings and ints only
	return data
}

// decodeEntry reads what encodeEntry wrote; an id this platc does not know
// is an entry it did not write.
func decodeEntry(data []byte) (e *cacheEntry, err error) {
	err = object.ReadEntry(cache.Manifests.Layout(), data, &e)
	if err == nil && e == nil {
		err = object.ErrCorrupt
	}
	return e, err
}

// The operations of recordingFS, as look performs them.
const (
	opStat     = "stat"
	opReadDir  = "readdir"
	opReadFile = "readfile"
	opLstat    = "lstat"
	opReadLink = "readlink"
)

// look performs op on name in fsys and says what it saw, as a string that
// changes whenever what a build could learn from the operation does.
func look(fsys fs.FS, op, name string) string {
	switch op {
	case opStat:
		return sawStat(fs.Stat(fsys, name))
	case opReadDir:
		return sawReadDir(fs.ReadDir(fsys, name))
	case opReadFile:
		return sawReadFile(fs.ReadFile(fsys, name))
	case opLstat:
		return sawStat(fs.Lstat(fsys, name))
	case opReadLink:
		return sawReadLink(fs.ReadLink(fsys, name))
	}
	return "unknown operation " + op
}

func sawStat(info fs.FileInfo, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%v %d", info.Mode(), info.Size())
}

func sawReadDir(entries []fs.DirEntry, err error) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s %v\n", e.Name(), e.Type())
	}
	if err != nil {
		b.WriteString("error: " + err.Error())
	}
	return b.String()
}

func sawReadLink(target string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return target
}

func sawReadFile(data []byte, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// recordingFS is fsys, recording every look a build takes at it. It serves what
// fsys serves, and records what look would see, so that the record can be
// checked again later. A build that opens a file directly (neither BuildRead
// nor kustomize's adapter does: they read through Stat, ReadDir and ReadFile)
// cannot be recorded, and is not cached.
type recordingFS struct {
	fsys fs.FS

	mu      sync.Mutex
	reads   []read
	seen    map[read]bool
	unsound bool
}

func (r *recordingFS) record(op, name, saw string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd := read{Op: op, Name: name, Saw: saw}
	if !r.seen[rd] {
		r.seen[rd] = true
		r.reads = append(r.reads, rd)
	}
}

// Reads returns what was read, in a stable order.
func (r *recordingFS) Reads() []read {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.reads)
	slices.SortFunc(out, func(a, b read) int {
		return strings.Compare(a.Op+"\x00"+a.Name+"\x00"+a.Saw, b.Op+"\x00"+b.Name+"\x00"+b.Saw)
	})
	return out
}

func (r *recordingFS) Open(name string) (fs.File, error) {
	r.mu.Lock()
	r.unsound = true
	r.mu.Unlock()
	return r.fsys.Open(name)
}

func (r *recordingFS) Stat(name string) (fs.FileInfo, error) {
	info, err := fs.Stat(r.fsys, name)
	r.record(opStat, name, sawStat(info, err))
	return info, err
}

func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(r.fsys, name)
	r.record(opReadDir, name, sawReadDir(entries, err))
	return entries, err
}

// Lstat and ReadLink make recordingFS an fs.ReadLinkFS where fsys is one,
// for OutsideLink; on another, Lstat is Stat and ReadLink fails, as they
// would on fsys.
func (r *recordingFS) Lstat(name string) (fs.FileInfo, error) {
	info, err := fs.Lstat(r.fsys, name)
	r.record(opLstat, name, sawStat(info, err))
	return info, err
}

func (r *recordingFS) ReadLink(name string) (string, error) {
	target, err := fs.ReadLink(r.fsys, name)
	r.record(opReadLink, name, sawReadLink(target, err))
	return target, err
}

func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(r.fsys, name)
	r.record(opReadFile, name, sawReadFile(data, err))
	return data, err
}
