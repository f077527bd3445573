package emit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// folderFS is an os.Root's file system that opens folders as files, as
// the CLI's repository does, so that Scan reads below their descriptors.
// It counts what is opened through fs.FS, which Scan then does not use.
type folderFS struct {
	fs.FS
	root   *os.Root
	opened *int
}

func (f folderFS) Open(name string) (fs.File, error) {
	*f.opened++
	return f.FS.Open(name)
}

func (f folderFS) OpenFolder(name string) (*os.File, error) {
	return f.root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
}

// TestScanBelowAFolderAsBefore: reading below a folder's descriptor finds
// what reading through fs.FS finds, in a tree of every kind of entry:
// generated and foreign files, an empty file, one larger than a listing's
// buffer, folders deep and empty, symbolic links to a file, a folder and
// nowhere, a named pipe (never opened), and platc's own files, which
// only the output folder's are.
func TestScanBelowAFolderAsBefore(t *testing.T) {
	dir := t.TempDir()
	large := gen(strings.Repeat("k: value\n", 20000))
	makeTree(t, dir, map[string]string{
		"out/apps.yaml":             gen("a: 1\n"),
		"out/README.md":             "not generated\n",
		"out/empty.yaml":            "",
		"out/large.yaml":            large,
		"out/" + JournalName:        "journal",
		"out/" + LockName:           "lock",
		"out/g/" + JournalName:      gen("not the output folder's\n"),
		"out/g/h/i/apps.yaml":       gen("b: 2\n"),
		"out/g/notes.txt":           "notes\n",
		"target/apps.yaml":          gen("outside\n"),
		"out/z-last/x-y/z/apps.yml": gen("c: 3\n"),
	})
	for i := range 300 { // more entries than one listing call returns
		makeTree(t, dir, map[string]string{filepath.Join("out", "many", strings.Repeat("n", 40)+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".yaml"): gen("m: 1\n")})
	}
	if err := os.MkdirAll(filepath.Join(dir, "out", "empty-folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"file-link.yaml": "../target/apps.yaml", "dir-link": "../target", "dangling": "../nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, "out", link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "out", "g", "pipe"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	root := openRoot(t, dir)
	want, err := Scan(root.FS(), "out")
	if err != nil {
		t.Fatalf("Scan through fs.FS: %v", err)
	}
	opened := 0
	got, err := Scan(folderFS{root.FS(), root, &opened}, "out")
	if err != nil {
		t.Fatalf("Scan below the folder: %v", err)
	}
	if opened != 0 {
		t.Errorf("Scan below the folder opened %d files through fs.FS; want none", opened)
	}
	if diff := cmp.Diff(want, got, ignoreRead); diff != "" {
		t.Errorf("Scan below the folder (+) differs from Scan through fs.FS (-):\n%s", diff)
	}
	if len(got.Generated) < 300 || got.Generated["out/large.yaml"] != fileOf([]byte(large)) {
		t.Errorf("Scan below the folder read %d generated files, large.yaml of %d bytes; want 300 and more, %d bytes", len(got.Generated), got.Generated["out/large.yaml"].Size, len(large))
	}
}

// TestScanBelowAFolderMissingOrAFile: a missing output folder is an empty
// one, and one that is a file cannot be read, as through fs.FS.
func TestScanBelowAFolderMissingOrAFile(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	opened := 0
	st, err := Scan(folderFS{root.FS(), root, &opened}, "out")
	if err != nil || len(st.Generated)+len(st.Foreign)+len(st.Folders) != 0 {
		t.Errorf("Scan of a missing folder = %+v, %v; want it empty", st, err)
	}
	makeTree(t, dir, map[string]string{"out": "a file"})
	if _, err := Scan(folderFS{root.FS(), root, &opened}, "out"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("Scan of a file = %v; want not a directory", err)
	}
	if _, err := Scan(root.FS(), "out"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("Scan through fs.FS of a file = %v; want not a directory", err)
	}
}
