package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/diff"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/model"
	reportpage "github.com/platc/platc/compiler/report"
)

// reportFlags are the flags of platc report, and what runs it.
func reportFlags(fs *flag.FlagSet) func(*call) int {
	var envs stringList
	fs.Var(&envs, "env", "only this `environment` (repeatable)")
	tag := fs.String("tag", "", "the report of release `vX.Y.Z`: the pinned environments that pin it")
	since := fs.String("since", "", "also show what changed since an earlier render, object by object: a Git `revision` (a tag) or a folder, as platc diff reads it")
	rehearsal := fs.String("rehearsal", "", "also show a delivery rehearsal's verdicts: the JSON `file` of E2E_REPORT or make rehearse's -report")
	out := fs.String("o", "", "write the page to `file` (from the current folder, not -C's) instead of stdout")
	return func(c *call) int { return runReport(c, envs, *tag, *since, *rehearsal, *out) }
}

func runReport(c *call, envs []string, tag, since, rehearsal, out string) int {
	if tag != "" && !model.IsReleaseTag(tag) {
		return c.usagef("-tag %q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
	}
	if tag != "" && len(envs) > 0 {
		return c.usagef("-tag and -env both choose the environments: give one of them")
	}
	// The rehearsal's report is read first: a file that is not one
	// fails before the compilation's time is spent.
	var rehearsed *reportpage.Rehearsal
	if rehearsal != "" {
		data, err := readInput(rehearsal, maxInput)
		if err == nil {
			rehearsed, err = reportpage.ReadRehearsal(data)
		}
		if err != nil {
			return c.rep.failf(diag.IO, "-rehearsal %s: %v", rehearsal, err)
		}
	}
	c.keepFiles = true
	repo, code := c.compile(c.rep, false, false)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	names := model.EnvNames(res.Spec.Environments)
	for _, e := range envs {
		if msg := known("environment", e, names); msg != "" {
			return c.errorf(ExitUsage, "-env: %s", msg)
		}
	}
	if tag != "" {
		if envs = reportpage.Released(res.Spec, tag); len(envs) == 0 {
			return c.errorf(ExitProblems, "-tag %s: no pinned environment pins %s: run platc release %s first, or name the environments with -env", tag, tag, tag)
		}
	}
	in := reportpage.Input{Result: res, Repo: newRepoFS(repo.root), Envs: envs, Tag: tag, Rehearsal: rehearsed}
	if since != "" {
		s, err := sinceRender(c.dir, since, res.OutDir, res.Outputs)
		if err != nil {
			return c.errorf(ExitUsage, "-since %s: %v", since, err)
		}
		in.Since = s
	}
	var page bytes.Buffer
	if err := reportpage.Write(&page, in); err != nil {
		return c.errorf(ExitProblems, "%v", err)
	}
	if out == "" {
		if _, err := c.stdout.Write(page.Bytes()); err != nil {
			return c.rep.failf(diag.IO, "writing the page: %v", err)
		}
		return ExitOK
	}
	if inside(out, filepath.Join(c.dir, res.OutDir)) {
		return c.rep.failf(diag.OutDir, "-o %s is inside the output folder %s/ of the repository, which holds only what platc renders: write the page elsewhere", out, res.OutDir)
	}
	if msg := notAPage(out); msg != "" {
		return c.rep.failf(diag.IO, "-o %s %s", out, msg)
	}
	// -o may lie outside the repository (it is from the current folder).
	if err := writeFile(filepath.Dir(out), "."+filepath.Base(out)+".*.platc-tmp", out, page.Bytes(), 0o644); err != nil {
		return c.rep.failf(diag.IO, "writing the page: %v", err)
	}
	fmt.Fprintf(c.stdout, "platc: wrote %s\n", out)
	return ExitOK
}

// sinceRender is what platc diff says between the render of rev (a Git
// revision of the repository in dir, or a folder) and outputs, this
// render. Both sides are read as platc diff reads them, from their files:
// the earlier render exists only as files.
func sinceRender(dir, rev, outDir string, outputs []emit.Output) (*reportpage.Since, error) {
	oldFiles, err := readSide(dir, rev, outDir)
	if err != nil {
		return nil, err
	}
	old, err := diff.Objects(oldFiles, outDir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, o := range outputs {
		files[o.Path] = o.Data
	}
	now, err := diff.Objects(files, outDir)
	if err != nil {
		return nil, err
	}
	return &reportpage.Since{Rev: rev, Objects: diff.Diff(old, now, diff.Filter{}), Versions: diff.Versions(old, now, diff.Filter{})}, nil
}

// notAPage says why the page may not be written to the file name, or "":
// it makes a new file, or replaces one that platc report wrote (a regular
// file that names platc report its generator near its start), and
// nothing else: not a link (whose target the page would replace), not a
// device or a pipe, not someone's file.
func notAPage(name string) string {
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	switch {
	case err != nil:
		return fmt.Sprintf("cannot be read: %v", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link: name the file itself, or remove the link"
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("is not a regular file (%s): name a file", modeWord(fi.Mode()))
	}
	f, err := os.Open(name)
	if err != nil {
		return fmt.Sprintf("cannot be read: %v", err)
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte(`<meta name="generator" content="platc report">`)) {
		return "is a file platc report did not write: name a new file, or remove it first"
	}
	return ""
}

// modeWord names a file's type, for a message.
func modeWord(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "of mode " + m.Type().String()
}

// inside reports whether the path name lies in the folder dir (or is
// it), links resolved as far as both exist, so that out/../out, ./out
// and a link to out/ are out/.
func inside(name, dir string) bool {
	n, d := resolved(name), resolved(dir)
	rel, err := filepath.Rel(d, n)
	return err == nil && filepath.IsLocal(rel)
}

// resolved is the absolute, clean form of p, with the links of its
// longest part that exists resolved.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for cur := abs; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
