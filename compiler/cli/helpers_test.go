package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/platc/platc/compiler/cli"
)

// The helpers of the Go tests that a script cannot express (fault
// injection through the process hooks, signals): the CLI's behaviour is
// tested as data in testdata/script.

// unlocked is the note that render, check and vet print on the
// repository of testdata/repo.txtar, whose chart has no lock.
const unlocked = "platc: note: 1 chart is not rendered, since sources has no charts.lock: redis; run platc charts pull (it uses the network) to lock, fetch and render them [not-checked]\n"

// rerendered is the summary of a render of the platform of rendered (a
// folder rendered, then its spec changed): what it checked, wrote, and
// did not check (its chart).
const rerendered = "platc: sources/ checked in part: 2 environments, 6 Applications, 0 AppProjects, 0 stacks; out/: 4 files, 2 written, 2 unchanged, 2 removed; not checked: 1 chart without a lock (run platc charts pull)\n"

// repo writes testdata/repo.txtar to a new folder and returns its path.
func repo(t *testing.T) string {
	t.Helper()
	a, err := txtar.ParseFile("testdata/repo.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		writeFile(t, dir, f.Name, string(f.Data))
	}
	return dir
}

// sample copies the sample platform (spec, client files, render) to a new
// folder and returns it.
func sample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, top := range []string{"sources", "clients", "out"} {
		if err := os.CopyFS(filepath.Join(dir, top), os.DirFS(filepath.Join("../..", top))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}

// platc runs the CLI in-process and returns its exit code and output.
func platc(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// tree returns every file below dir, by slash path, with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
