package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain keeps the commands the tests run from the user's cache: each
// test run gets a cache folder of its own. It also makes this test binary
// the platc command of the txtar scripts (script_test.go).
func TestMain(m *testing.M) {
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
	a := &dirCache{dir: filepath.Join(dir, "repo"), identity: "platc one\n"}
	if _, ok := a.Get("k"); ok {
		t.Fatal("an empty cache has an entry")
	}
	a.Put("k", []byte("outcome"))
	if got, ok := a.Get("k"); !ok || string(got) != "outcome" {
		t.Errorf("Get after Put = %q, %v; want \"outcome\", true", got, ok)
	}
	b := &dirCache{dir: a.dir, identity: "platc two\n"}
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
