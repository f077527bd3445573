package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// chartStore is platc's chart cache: archives by digest, shared by every
// repository (an archive is what its digest says, whoever pulled it), in
// the charts folder of platc's cache. Each read is checked against the
// digest it is asked for.
type chartStore struct{ dir string }

// openChartStore returns the chart cache, or nil with PLATC_CACHE=off or
// no cache directory.
func openChartStore() *chartStore {
	base, ok := cacheBase()
	if !ok {
		return nil
	}
	return &chartStore{dir: filepath.Join(base, "charts")}
}

func (s *chartStore) file(digest string) string {
	return filepath.Join(s.dir, strings.Replace(digest, ":", "-", 1)+".tgz")
}

func (s *chartStore) Archive(digest string) ([]byte, bool) {
	if s == nil || !charts.ValidDigest(digest) {
		return nil, false
	}
	data, err := readInput(s.file(digest), maxInput)
	if err != nil || charts.Digest(data) != digest {
		return nil, false
	}
	return data, true
}

// Damaged implements charts.DamagedArchives: the cache's file for digest
// holds other bytes.
func (s *chartStore) Damaged(digest string) (file, got string, ok bool) {
	if s == nil || !charts.ValidDigest(digest) {
		return "", "", false
	}
	data, err := os.ReadFile(s.file(digest))
	if err != nil {
		return "", "", false
	}
	if got = charts.Digest(data); got == digest {
		return "", "", false
	}
	return s.file(digest), got, true
}

// put stores an archive under its digest.
func (s *chartStore) put(data []byte) error {
	if err := os.MkdirAll(s.dir, 0o777); err != nil {
		return err
	}
	return writeFile(s.dir, "archive.*.tmp", s.file(charts.Digest(data)), data, 0)
}

// chartsIn opens what platc charts pull and vendor work on: the chart
// cache and the repository, which the caller closes; nil, nil and an exit
// code where either cannot be opened.
func chartsIn(c *call) (*chartStore, *os.Root, int) {
	store := openChartStore()
	if store == nil {
		return nil, nil, c.errorf(ExitUsage, "there is no chart cache (%s=off, or no cache directory): set %s to a folder", CacheEnv, CacheEnv)
	}
	if msg := cacheInOutput(c.dir, model.DefaultOutDir); msg != "" {
		return nil, nil, c.errorf(ExitUsage, "%s", msg)
	}
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "platc: opening the repository: %v\n", err)
		return nil, nil, ExitUsage
	}
	return store, root, ExitOK
}

// lockError says what is wrong with the lock file: a YAML syntax error
// at its place, in plain words.
func lockError(file string, err error) string {
	if se := (*diag.SyntaxError)(nil); errors.As(err, &se) {
		return se.At(file).Error()
	}
	return fmt.Sprintf("%s: %v: fix or remove it", file, err)
}

// readLock reads the spec's lock file; a missing one is empty.
func readLock(root *os.Root, specDir string) (*charts.Lock, error) {
	data, err := root.ReadFile(path.Join(specDir, charts.LockFile))
	if os.IsNotExist(err) {
		return &charts.Lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	return charts.ParseLock(data)
}

// runChartsPull locks every pin, or, with only, the pins of those charts
// (the spec's names), keeping the lock's entries of the others.
func runChartsPull(c *call, specDir string, only []string, update bool) int {
	store, root, code := chartsIn(c)
	if root == nil {
		return code
	}
	defer root.Close()
	client := cmp.Or(c.proc.httpClient, http.DefaultClient)
	ctx, stop := c.proc.interrupts()
	defer stop()
	fsys := newRepoFS(root)
	pins, folders, log := compiler.Pins(fsys, specDir)
	fmt.Fprint(c.stderr, log.String())
	if log.HasErrors() {
		return ExitProblems
	}
	old, err := readLock(root, specDir)
	if err != nil {
		fmt.Fprintln(c.stderr, lockError(path.Join(specDir, charts.LockFile), err))
		return ExitProblems
	}
	lock := &charts.Lock{}
	failed := false
	for _, name := range only {
		if !slices.ContainsFunc(pins, func(pin *model.Chart) bool { return pin.Name == name }) {
			fmt.Fprintf(c.stderr, "platc charts pull: -chart %s: the spec pins no chart %q (charts.<name>)\n", name, name)
			failed = true
		}
	}
	if failed {
		return ExitUsage
	}
	// lockOne locks one chart version: the lock's entry where keep (a
	// chart -chart does not name), else the archive pulled, into the
	// cache. at places a message; what names the chart in one. It is
	// false where writing the cache failed, which ends the pull.
	lockOne := func(at, what, name, repo, chart, version string, keep bool) bool {
		if lock.Find(repo, chart, version) != nil {
			return true
		}
		if err := charts.CheckFileName(chart, version); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v: fix the dependency\n", at, err)
			failed = true
			return true
		}
		prev := old.Find(repo, chart, version)
		if keep {
			if prev != nil {
				lock.Charts = append(lock.Charts, *prev)
			}
			return true
		}
		e, data, err := charts.Pull(ctx, client, name, repo, chart, version)
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: pulling %s: %v\n", at, what, err)
			failed = true
			return true
		}
		if prev != nil && prev.Digest != e.Digest && !update {
			fmt.Fprintf(c.stderr, "%s: %s %s of %s was re-published: its archive's digest is %s, the lock's %s: review the change, then run platc charts pull -update to accept it\n", at, chart, version, repo, e.Digest, prev.Digest)
			failed = true
			lock.Charts = append(lock.Charts, *prev)
			return true
		}
		if err := store.put(data); err != nil {
			fmt.Fprintf(c.stderr, "platc charts pull: writing the chart cache: %v\n", err)
			return false
		}
		lock.Charts = append(lock.Charts, e)
		fmt.Fprintf(c.stdout, "%s %s %s %s\n", e.Name, chart, version, e.Digest)
		return true
	}
	for _, pin := range pins {
		keep := len(only) > 0 && !slices.Contains(only, pin.Name)
		if !lockOne(fmt.Sprintf("%s: %s", pin.Pos, pin.Path), pin.Chart+" "+pin.Version, pin.Name, pin.RepoURL, pin.Chart, pin.Version, keep) {
			return ExitUsage
		}
	}
	// The dependencies Argo CD's repo server downloads for the charts of
	// the repository's folders (helm dependency build, from their
	// Chart.lock), each locked once: by repository, chart and version,
	// as a pin is. -chart names pins: the dependencies keep their
	// entries.
	for _, dir := range folders {
		deps, why := charts.FolderDependencies(fsys, dir)
		if why != "" {
			fmt.Fprintf(c.stderr, "platc charts pull: the dependencies of the chart in %s are not locked: %s\n", dir, why)
		}
		for _, d := range deps {
			if !lockOne(path.Join(dir, "Chart.lock"), d.Name+" "+d.Version+" of "+d.Repository, d.Name+" ("+dir+")", d.Repository, d.Name, d.Version, len(only) > 0) {
				return ExitUsage
			}
		}
	}
	if failed {
		return ExitProblems
	}
	if err := writeFileAtomic(root, path.Join(specDir, charts.LockFile), lock.Marshal()); err != nil {
		return c.errorf(ExitUsage, "writing the lock file: %v", err)
	}
	fmt.Fprintf(c.stdout, "platc: %s: %d charts locked\n", path.Join(specDir, charts.LockFile), len(lock.Charts))
	return ExitOK
}

func runChartsVendor(c *call, specDir string) int {
	store, root, code := chartsIn(c)
	if root == nil {
		return code
	}
	defer root.Close()
	lock, err := readLock(root, specDir)
	if err != nil {
		fmt.Fprintln(c.stderr, lockError(path.Join(specDir, charts.LockFile), err))
		return ExitProblems
	}
	dir := path.Join(specDir, charts.VendorDir)
	want := map[string][]byte{}
	var missing []string
	for _, e := range lock.Charts {
		data, ok := store.Archive(e.Digest)
		if !ok {
			missing = append(missing, e.Chart+" "+e.Version)
			continue
		}
		if _, dup := want[e.File()]; dup {
			return c.errorf(ExitProblems, "two locked charts would be %s/%s: vendor one of them", dir, e.File())
		}
		want[e.File()] = data
	}
	if len(missing) > 0 {
		return c.errorf(ExitProblems, "the cache does not hold %s: run platc charts pull first", strings.Join(missing, ", "))
	}
	if err := root.MkdirAll(dir, 0o777); err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	for name, data := range want {
		if err := writeFileAtomic(root, path.Join(dir, name), data); err != nil {
			return c.errorf(ExitUsage, "%v", err)
		}
	}
	removed := 0
	entries, _ := fs.ReadDir(root.FS(), dir)
	for _, e := range entries {
		if _, keep := want[e.Name()]; !keep && strings.HasSuffix(e.Name(), ".tgz") && !e.IsDir() {
			if root.Remove(path.Join(dir, e.Name())) == nil {
				removed++
			}
		}
	}
	names := slices.Sorted(maps.Keys(want))
	fmt.Fprintf(c.stdout, "platc: %s/: %d charts (%s), %d removed\n", dir, len(names), strings.Join(names, ", "), removed)
	return ExitOK
}
