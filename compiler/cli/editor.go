package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/editor"
	"github.com/platc/platc/compiler/load"
)

// runEditor writes platc's schema into the spec folder's CUE module and
// the spec file that applies it (package editor), for an editor running
// cue lsp.
func runEditor(c *call, specDir string) int {
	if err := writeEditorFiles(c.dir, specDir, "", c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "%v\n", err)
		return ExitProblems
	}
	return ExitOK
}

// writeEditorFiles writes the files of package editor into specDir, a
// slash path below the repository root, printing each it changes: the
// schema and the file that applies it always, the module file where
// there is none. The file that applies the schema is named after the
// spec's entries as platc reads them now. The files are named after
// shownRoot in what it prints, the folder as the user named it ("" for
// none).
func writeEditorFiles(root, specDir, shownRoot string, stdout io.Writer) error {
	osPath := func(p string) string { return filepath.Join(root, filepath.FromSlash(path.Join(specDir, p))) }
	shown := func(p string) string { return path.Join(specDir, p) }
	// The spec's package, from its first file that is not the one
	// written here.
	entries, err := os.ReadDir(osPath("."))
	if err != nil {
		return fmt.Errorf("platc editor: %v", err)
	}
	pkg := ""
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
			continue
		}
		data, err := os.ReadFile(osPath(e.Name()))
		if err != nil {
			return fmt.Errorf("platc editor: %v", err)
		}
		f, err := parser.ParseFile(shown(e.Name()), data, parser.ParseComments)
		switch {
		case e.Name() == editor.ApplyFile && err == nil && !load.IsEditorFile(f):
			return fmt.Errorf("%s: exists and is not the file platc editor writes (it holds more than platc's schema applied): rename it, then run platc editor again", shown(e.Name()))
		case e.Name() == editor.ApplyFile:
			continue
		case err != nil:
			return fmt.Errorf("%s: the file does not parse: fix it, then run platc editor again", shown(e.Name()))
		}
		pkg = cmp.Or(pkg, f.PackageName())
	}
	if pkg == "" {
		return fmt.Errorf("%s: no .cue files of a package: write the platform spec first (platc init starts one)", specDir)
	}
	spec := load.Load(os.DirFS(root), specDir, &diag.Log{})
	var data *load.Value
	if spec != nil {
		data = spec.Data
	}
	apply, err := editor.Apply(pkg, data)
	if err != nil {
		return fmt.Errorf("platc editor: %v", err)
	}
	files := []struct {
		name string
		data []byte
		keep bool // an existing file is left as it is
	}{
		{editor.ModuleFile, editor.Module(), true},
		{editor.SchemaFile, editor.Schema(), false},
		{editor.ApplyFile, apply, false},
	}
	wrote := false
	for _, f := range files {
		old, err := os.ReadFile(osPath(f.name))
		switch {
		case err == nil && (f.keep || bytes.Equal(old, f.data)):
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("platc editor: %v", err)
		}
		if err = os.MkdirAll(filepath.Dir(osPath(f.name)), 0o755); err == nil {
			err = os.WriteFile(osPath(f.name), f.data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("platc editor: %v", err)
		}
		fmt.Fprintf(stdout, "platc: wrote %s\n", filepath.Join(shownRoot, filepath.FromSlash(shown(f.name))))
		wrote = true
	}
	if !wrote {
		fmt.Fprintf(stdout, "platc: %s and %s are up to date\n", filepath.Join(shownRoot, filepath.FromSlash(shown(editor.ApplyFile))), filepath.Join(shownRoot, filepath.FromSlash(shown("cue.mod"))))
	}
	return nil
}
