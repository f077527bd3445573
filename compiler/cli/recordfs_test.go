package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/platc/platc/compiler/charts"
)

// TestRecordingFS: each way of reading records the path read, a Sub's
// under its folder; a path that reads otherwise the second time, or an
// error other than a missing path, spoils the record; a record of a path
// changed within the settling time is not listed.
func TestRecordingFS(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a.txt": "a", "sub/b.txt": "b"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	rec := newReads()
	fsys := rec.fsFor(newRepoFS(root), "")
	fs.ReadFile(fsys, "a.txt")
	fs.Stat(fsys, "missing.txt")
	sub, err := fs.Sub(fsys, "sub")
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := fs.ReadDir(sub, ".")
	for _, e := range entries {
		e.Info()
	}
	if f, err := sub.Open("b.txt"); err == nil {
		f.Close()
	}
	got := map[string]bool{}
	list, ok := rec.list(time.Now(), 0)
	if !ok {
		t.Fatal("a clean record is not listed")
	}
	for _, r := range list {
		got[r.Path+map[bool]string{true: " lstat", false: ""}[r.Lstat]+map[bool]string{true: " missing", false: ""}[r.ID == nil]] = true
	}
	want := []string{"a.txt", "missing.txt missing", "sub", "sub/b.txt", "sub/b.txt lstat"}
	for _, w := range want {
		if !got[w] {
			t.Errorf("not recorded: %s (recorded: %v)", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("recorded %v, want exactly %v", got, want)
	}
	if _, ok := rec.list(time.Now(), time.Hour); ok {
		t.Error("a record of files written just now is listed with an hour to settle")
	}

	// A Sub reads its folder as repoFS's does: a link out of it does
	// not read, as in every other command.
	if err := os.Symlink("../a.txt", filepath.Join(dir, "sub", "out.txt")); err != nil {
		t.Fatal(err)
	}
	plain, err := newRepoFS(root).Sub("sub")
	if err != nil {
		t.Fatal(err)
	}
	_, plainErr := fs.ReadFile(plain, "out.txt")
	_, recErr := fs.ReadFile(sub, "out.txt")
	if plainErr == nil || recErr == nil {
		t.Errorf("a link out of a Sub's folder reads: through repoFS %v, recorded %v; want both to fail", plainErr, recErr)
	}
	plain.(io.Closer).Close()

	// The same path, changed between two reads.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed"), 0o666)
	fs.ReadFile(fsys, "a.txt")
	if _, ok := rec.list(time.Now(), 0); ok {
		t.Error("a record of a file that changed while it was read is listed")
	}

	// An error that is not a missing path.
	rec = newReads()
	fsys = rec.fsFor(newRepoFS(root), "")
	fs.ReadFile(fsys, "a.txt/inside")
	if _, ok := rec.list(time.Now(), 0); ok {
		t.Error("a record of a failed read is listed")
	}
}

// TestMemoArchives: the chart archives a check asked for are the same when
// the one it found is the same file and the one it did not find is still
// missing.
func TestMemoArchives(t *testing.T) {
	store := &chartStore{dir: t.TempDir()}
	had, missing := []byte("an archive"), []byte("another")
	if err := store.put(had); err != nil {
		t.Fatal(err)
	}
	rec := newReads()
	a := recordingArchives{store, rec}
	if _, found := a.Archive(charts.Digest(had)); !found {
		t.Fatal("the archive put is not found")
	}
	if _, found := a.Archive(charts.Digest(missing)); found {
		t.Fatal("an archive never put is found")
	}
	m := memoEntry{Archives: rec.archiveList()}
	if len(m.Archives) != 2 || !m.sameArchives(store) {
		t.Fatalf("the archives recorded %+v are not the same at once", m.Archives)
	}
	if err := store.put(missing); err != nil {
		t.Fatal(err)
	}
	if m.sameArchives(store) {
		t.Error("an archive that appeared is the same")
	}
	os.Remove(store.file(charts.Digest(missing)))
	if err := store.put(had); err != nil { // the same bytes, another file
		t.Fatal(err)
	}
	if m.sameArchives(store) {
		t.Error("an archive written again is the same")
	}
}
