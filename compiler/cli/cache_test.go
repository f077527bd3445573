package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain keeps the commands the tests run from the user's cache: each
// test run gets a cache folder of its own. It also makes this test binary
// the platc command of the txtar scripts (script_test.go), and the child
// of the signal tests (platcChild).
func TestMain(m *testing.M) {
	platcChild()
	testscript.Main(cachedRun{m}, map[string]func(){
		"platc": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// cachedRun runs the tests with a cache folder of their own.
type cachedRun struct{ m *testing.M }

func (r cachedRun) Run() int {
	dir, err := os.MkdirTemp("", "platc-cache-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv(CacheEnv, dir)
	return r.m.Run()
}

func TestDirCache(t *testing.T) {
	dir := t.TempDir()
	a := &dirCache{dir: filepath.Join(dir, "repo"), version: "one"}
	if _, ok := a.Get("k"); ok {
		t.Fatal("an empty cache has an entry")
	}
	a.Put("k", []byte("outcome"))
	if got, ok := a.Get("k"); !ok || string(got) != "outcome" {
		t.Errorf("Get after Put = %q, %v; want \"outcome\", true", got, ok)
	}
	b := &dirCache{dir: a.dir, version: "two"}
	if got, ok := b.Get("k"); ok {
		t.Errorf("another platc's entry was used: %q", got)
	}
	b.Put("k", []byte("other"))
	if got, ok := b.Get("k"); !ok || string(got) != "other" {
		t.Errorf("Get after Put = %q, %v; want \"other\", true", got, ok)
	}
	entries, err := os.ReadDir(a.dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the cache folder holds %v (%v), want the one entry and no temporary file", entries, err)
	}
}

// TestCacheKeptPerPlatc: two builds of platc that take turns on one
// repository keep their entries side by side; neither replaces the
// other's.
func TestCacheKeptPerPlatc(t *testing.T) {
	base, repo := t.TempDir(), "/work/platform"
	one := cacheIn(base, repo, strings.Repeat("1", 64))
	two := cacheIn(base, repo, strings.Repeat("2", 64))
	one.Put("k", []byte("one's outcome"))
	two.Put("k", []byte("two's outcome"))
	for _, c := range []struct {
		cache *dirCache
		want  string
	}{{one, "one's outcome"}, {two, "two's outcome"}} {
		if got, ok := c.cache.Get("k"); !ok || string(got) != c.want {
			t.Errorf("after both wrote k, Get = %q, %v; want %q", got, ok, c.want)
		}
	}
}

// TestDirCacheBindsEntries checks that an entry is used only under its
// key and with the bytes it was written with.
func TestDirCacheBindsEntries(t *testing.T) {
	c := &dirCache{dir: t.TempDir(), version: "one"}
	c.Put("a", []byte("outcome of a"))
	c.Put("b", []byte("outcome of b"))
	read := func(key string) []byte {
		data, err := os.ReadFile(filepath.Join(c.dir, key))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, b := read("a"), read("b")
	os.WriteFile(filepath.Join(c.dir, "a"), b, 0o666)
	os.WriteFile(filepath.Join(c.dir, "b"), a, 0o666)
	for _, key := range []string{"a", "b"} {
		if got, ok := c.Get(key); ok {
			t.Errorf("swapped: Get(%q) = %q, want no entry", key, got)
		}
	}
	os.WriteFile(filepath.Join(c.dir, "a"), bytes.Replace(a, []byte("of a"), []byte("of x"), 1), 0o666)
	if got, ok := c.Get("a"); ok {
		t.Errorf("tampered: Get = %q, want no entry", got)
	}
}

// TestCacheCannotChangeAVerdict runs vet on a repository with two
// repo-path folders, one that checks and one that does not, with a cache
// whose entries are swapped, then tampered with, and requires each time
// the verdict of vet without a cache.
func TestCacheCannotChangeAVerdict(t *testing.T) {
	repo := t.TempDir()
	for name, data := range map[string]string{
		"sources/platform.cue": `package platform

platform: {name: "p", repoURL: "https://git.example.com/p.git"}
modules: {
	good: {path: "sources/manifests/good", namespace: "good"}
	bad: {path: "sources/manifests/bad", namespace: "bad"}
}
environments: dev: revision: "HEAD"
`,
		"sources/manifests/good/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n",
		"sources/manifests/bad/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: bad\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	vet := func() (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"vet", "-C", repo}, &stdout, &stderr)
		return code, stderr.String()
	}
	t.Setenv(CacheEnv, "off")
	wantCode, want := vet()
	if wantCode != ExitProblems || !strings.Contains(want, "sources/manifests/bad/cm.yaml") {
		t.Fatalf("vet without a cache: exit %d, stderr:\n%s", wantCode, want)
	}
	cacheDir := t.TempDir()
	t.Setenv(CacheEnv, cacheDir)
	entries := func() []string {
		found, err := filepath.Glob(filepath.Join(cacheDir, "repos", "*", "*", "manifests-*"))
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	steps := []struct {
		name   string
		change func(a, b string)
	}{
		{"a cold cache", func(a, b string) {}},
		{"a warm cache", func(a, b string) {}},
		{"entries swapped", func(a, b string) {
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			os.WriteFile(a, db, 0o666)
			os.WriteFile(b, da, 0o666)
		}},
		{"a byte changed in each entry", func(a, b string) {
			for _, f := range []string{a, b} {
				data, _ := os.ReadFile(f)
				data[len(data)-len(data)/3] ^= 0x20
				os.WriteFile(f, data, 0o666)
			}
		}},
		{"bodies swapped under headers that match", func(a, b string) {
			// The cache's own binding is written again: the entries'
			// record of the folder they describe still tells.
			c := openCache(repo).(*dirCache)
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			_, ba, _ := bytes.Cut(da, []byte("\n"))
			_, bb, _ := bytes.Cut(db, []byte("\n"))
			c.Put(filepath.Base(a), bb)
			c.Put(filepath.Base(b), ba)
		}},
	}
	for _, step := range steps {
		if found := entries(); len(found) == 2 {
			step.change(found[0], found[1])
		} else if step.name != "a cold cache" {
			t.Fatalf("%s: the cache holds %d folder entries, want 2", step.name, len(found))
		}
		if code, got := vet(); code != wantCode || got != want {
			t.Errorf("%s: vet: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", step.name, code, got, wantCode, want)
		}
	}
}

func TestOpenCacheOff(t *testing.T) {
	t.Setenv(CacheEnv, "off")
	if c := openCache("."); c != nil {
		t.Errorf("%s=off gives a cache: %#v", CacheEnv, c)
	}
	t.Setenv(CacheEnv, t.TempDir())
	if c := openCache("."); c == nil {
		t.Errorf("%s=<folder> gives no cache", CacheEnv)
	}
}

// TestOpenCacheRepo: a repository's cache folder is found by its path,
// links resolved, or by CacheRepoEnv's, which the pre-commit hook sets
// to the working tree whose staged copy it checks.
func TestOpenCacheRepo(t *testing.T) {
	t.Setenv(CacheEnv, t.TempDir())
	tree, copied := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(tree, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	folder := func(dir string) string { return openCache(dir).(*dirCache).dir }
	own := folder(tree)
	if other := folder(copied); other == own {
		t.Fatalf("two repositories share the cache folder %s", own)
	}
	if got := folder(link); got != own {
		t.Errorf("through a link, the cache folder is %s, want the repository's %s", got, own)
	}
	t.Setenv(CacheRepoEnv, tree)
	if got := folder(copied); got != own {
		t.Errorf("with %s=%s, the copy's cache folder is %s, want the tree's %s", CacheRepoEnv, tree, got, own)
	}
}

func TestPinned(t *testing.T) {
	build := func(version string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/platc/platc", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want bool
	}{
		{"a released version", build("v1.2.3"), true},
		{"a clean work tree", build("(devel)", "vcs.revision", "5e60d3c", "vcs.modified", "false"), true},
		{"a work tree with changes", build("(devel)", "vcs.revision", "5e60d3c", "vcs.modified", "true"), false},
		{"go run or go test", build("(devel)"), false},
	}
	for _, tt := range tests {
		if got := pinned(tt.info); got != tt.want {
			t.Errorf("%s: pinned = %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, ok := version(); !ok {
		t.Error("version() knows no version of the test binary")
	}
}

// TestTrimCache: the entries no run has used for cacheTrimAge are
// removed, with the folders of repositories left with none; chart
// archives and entries in use stay; a trim is made at most once every
// cacheTrimEvery.
func TestTrimCache(t *testing.T) {
	base := t.TempDir()
	now := time.Now()
	old, recent := now.Add(-cacheTrimAge-time.Hour), now.Add(-cacheTrimAge+time.Hour)
	write := func(name string, at time.Time) string {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("entry"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(base, filepath.FromSlash(name)))
		return err == nil
	}
	write("repos/a/one/old", old)
	write("repos/a/one/recent", recent)
	write("repos/a/one/key.123.tmp", old)
	write("repos/a/two/old", old)
	write("repos/a/kept-by-an-earlier-platc", old)
	write("repos/b/one/old", old)
	write("repos/c/kept-by-an-earlier-platc", old)
	write("charts/sha256-archive", old)

	trimCache(base, now)
	for name, want := range map[string]bool{
		"repos/a/one/old":                  false,
		"repos/a/one/key.123.tmp":          false,
		"repos/a/one/recent":               true,
		"repos/a/two":                      false,
		"repos/a/kept-by-an-earlier-platc": false,
		"repos/b":                          false,
		"repos/c":                          false,
		"charts/sha256-archive":            true,
	} {
		if got := exists(name); got != want {
			t.Errorf("after a trim, %s exists: %v, want %v", name, got, want)
		}
	}

	write("repos/a/one/old", old)
	trimCache(base, now.Add(cacheTrimEvery-time.Minute))
	if !exists("repos/a/one/old") {
		t.Error("a second trim within a day removed an entry")
	}
	trimCache(base, now.Add(cacheTrimEvery+time.Minute))
	if exists("repos/a/one/old") {
		t.Error("a trim a day after the last kept an old entry")
	}
}

// TestDirCacheGetMarksUse: an entry read is marked used for trimCache,
// at most once every cacheTouchEvery.
func TestDirCacheGetMarksUse(t *testing.T) {
	c := &dirCache{dir: t.TempDir(), version: "one"}
	c.Put("k", []byte("outcome"))
	name := filepath.Join(c.dir, "k")
	for _, tc := range []struct {
		age    time.Duration
		marked bool
	}{{cacheTouchEvery + time.Minute, true}, {cacheTouchEvery - time.Minute, false}} {
		at := time.Now().Add(-tc.age).Truncate(time.Second)
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get("k"); !ok {
			t.Fatal("the entry is not found")
		}
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if marked := !info.ModTime().Equal(at); marked != tc.marked {
			t.Errorf("an entry last marked %v ago: marked again %v, want %v", tc.age, marked, tc.marked)
		}
	}
}
