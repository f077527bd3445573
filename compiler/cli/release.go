package cli

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/release"
)

func runRelease(proc *process, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("release", "[flags] vMAJOR.MINOR.PATCH", `Release moves the pinned environments (the customers') to a new release tag:
it edits the revision in the spec files in place (formatting and comments
stay), checks the release (a valid tag newer than the current pin, every
source in this repository at the tag, no branch or HEAD), and renders. On any
problem it writes nothing.`, stderr)
	c.compileFlags(fs)
	var envs stringList
	fs.Var(&envs, "env", "release only this pinned `environment` (repeatable)")
	positional, code, stop := parse(fs, args, 1)
	if stop {
		return code
	}
	if len(positional) != 1 {
		fmt.Fprintln(stderr, "platc release: name the tag, such as v1.2.3")
		fs.Usage()
		return ExitUsage
	}
	tag := positional[0]
	// The spec as it is: its warnings are the release's too, which the
	// compilation of the release prints, so they are printed once.
	var now strings.Builder
	c.proc = proc
	repo, code := c.compile(&now, false, true)
	if repo == nil {
		fmt.Fprint(stderr, now.String())
		return code
	}
	defer repo.close()
	root := repo.root

	log := &diag.Log{}
	edits, moves := release.Pin(root.FS(), repo.res.Spec, tag, envs, log)
	if log.HasErrors() {
		fmt.Fprint(stderr, log.String())
		return ExitProblems
	}
	// The release as it will be: the edited spec, compiled and checked
	// before anything is written.
	next := compiler.Compile(overlay{root.FS(), edits}, repo.opts)
	fmt.Fprint(stderr, next.Log.String())
	if next.Log.HasErrors() {
		return ExitProblems
	}
	st, err := emit.Scan(root.FS(), next.OutDir)
	if err != nil {
		fmt.Fprintf(stderr, "platc: %v\n", err)
		return ExitUsage
	}
	if conflicts := emit.Conflicts(st, next.Outputs); len(conflicts) > 0 {
		fmt.Fprintf(stderr, "%s: %s: move it out of %s/\n", conflicts[0].Path, conflicts[0].Problem, next.OutDir)
		return ExitProblems
	}
	// The spec edits are written with the render, in its journal: both or
	// neither, even if platc is killed.
	var specEdits []emit.Output
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		specEdits = append(specEdits, emit.Output{Path: name, Data: edits[name]})
	}
	w, err := repo.out.write(next.OutDir, st, next.Outputs, specEdits)
	if err != nil {
		return writeFailed(stderr, next.OutDir, err)
	}
	for _, m := range moves {
		fmt.Fprintf(stdout, "platc: %s: %s -> %s (%s)\n", m.Env, m.From, m.To, m.Pos)
	}
	fmt.Fprintf(stdout, "platc: %s/: %d files, %d written, %d unchanged, %d removed\n",
		next.OutDir, len(next.Outputs), len(w.Written), len(w.Unchanged), len(w.Removed))
	if interrupted(repo.ctx, stderr, "the release was committed: it was finished") {
		return ExitUsage
	}
	return ExitOK
}

// overlay is a repository with some files replaced: the spec as a release
// will leave it.
type overlay struct {
	fs.FS
	files map[string][]byte
}

func (o overlay) Open(name string) (fs.File, error) {
	if data, ok := o.files[name]; ok {
		return fstest.MapFS{name: &fstest.MapFile{Data: data, Mode: 0o644}}.Open(name)
	}
	return o.FS.Open(name)
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
