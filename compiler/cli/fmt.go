package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"cuelang.org/go/cue/errors"
	cueformat "cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
)

// runFmt formats the spec's .cue files as cue fmt does (CUE's own
// formatter: what it changes is layout, never a value). With check, it
// writes nothing and names the files that are not formatted.
func runFmt(c *call, specDir string, check bool) int {
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "platc: opening the repository: %v\n", err)
		return ExitUsage
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), specDir)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	// The files to rewrite, in ReadDir's order (by name).
	type file struct {
		name string
		data []byte
	}
	var changed []file
	failed := false
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".cue") {
			continue
		}
		name := path.Join(specDir, e.Name())
		if info, err := e.Info(); err == nil && info.Size() > load.MaxFileSize {
			fmt.Fprintf(c.stderr, "%s: larger than %d bytes: platc fmt does not read it\n", name, load.MaxFileSize)
			failed = true
			continue
		}
		src, err := root.ReadFile(name)
		if err != nil {
			fmt.Fprintf(c.stderr, "platc fmt: %v\n", err)
			failed = true
			continue
		}
		// As cue fmt: parsed with its comments, then formatted.
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		var out []byte
		if err == nil {
			out, err = cueformat.Node(f)
		}
		if err != nil {
			// A syntax error: the parser's, at its place.
			for _, e := range errors.Errors(err) {
				pos := e.Position()
				msg, args := e.Msg()
				fmt.Fprintf(c.stderr, "%s:%d:%d: %s: fix it, then run platc fmt again\n", name, pos.Line(), pos.Column(), fmt.Sprintf(msg, args...))
			}
			failed = true
			continue
		}
		if !bytes.Equal(src, out) {
			changed = append(changed, file{name, out})
		}
	}
	if failed {
		return ExitProblems
	}
	for _, f := range changed {
		if !check {
			if err := writeFileAtomic(root, f.name, f.data); err != nil {
				return c.errorf(ExitUsage, "writing %s: %v", f.name, err)
			}
		}
		fmt.Fprintf(c.stdout, "%s\n", f.name)
	}
	if check && len(changed) > 0 {
		return c.errorf(ExitProblems, "%s not formatted: run platc fmt", diag.Plural(len(changed), "file is", "files are"))
	}
	return ExitOK
}
