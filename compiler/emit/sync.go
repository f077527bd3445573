package emit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/platc/platc/compiler/object"
)

// State is what the output folder holds now: the files platc generated, by
// path, and the paths of the files it did not.
type State struct {
	Generated map[string][]byte
	Foreign   []string
}

// Scan reads the output folder outDir of fsys. A missing folder is an empty
// one.
//
// It descends folder by folder through fs.Sub and reads each file relative
// to its folder. Where fsys opens a sub-folder as a file system of its own
// (the CLI's repository does, with an os.Root), reading a file then costs
// one lookup instead of one per path element: a large platform's output has
// thousands of files, several folders deep.
func Scan(fsys fs.FS, outDir string) (*State, error) {
	st := &State{Generated: map[string][]byte{}}
	sub, err := fs.Sub(fsys, outDir)
	if err == nil {
		err = scanDir(sub, outDir, st)
		closeFS(sub)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := fs.Stat(fsys, outDir); errors.Is(statErr, fs.ErrNotExist) {
			return st, nil // no output folder yet
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the output folder: %w", err)
	}
	slices.Sort(st.Foreign)
	return st, nil
}

// scanDir reads the folder dirFS, at path dir, and its sub-folders into st.
func scanDir(dirFS fs.FS, dir string, st *State) error {
	entries, err := fs.ReadDir(dirFS, ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		switch {
		case e.IsDir():
			sub, err := fs.Sub(dirFS, e.Name())
			if err != nil {
				return err
			}
			err = scanDir(sub, p, st)
			closeFS(sub)
			if err != nil {
				return err
			}
		case !e.Type().IsRegular():
			st.Foreign = append(st.Foreign, p)
		default:
			data, err := fs.ReadFile(dirFS, e.Name())
			if err != nil {
				return err
			}
			if IsGenerated(data) {
				st.Generated[p] = data
			} else {
				st.Foreign = append(st.Foreign, p)
			}
		}
	}
	return nil
}

// closeFS closes a file system that holds an open folder.
func closeFS(fsys fs.FS) {
	if c, ok := fsys.(io.Closer); ok {
		c.Close()
	}
}

// DriftKind says how a file differs from the render.
type DriftKind int

const (
	// Changed files exist with other content than the render's.
	Changed DriftKind = iota
	// Missing files are rendered but not in the output folder.
	Missing
	// Extra files are generated files the render no longer produces.
	Extra
)

func (k DriftKind) String() string {
	return [...]string{"changed", "missing", "extra"}[k]
}

// Drift is one file that differs from the render, with a unified diff from
// what is on disk to what the render produces.
type Drift struct {
	Path string
	Kind DriftKind
	Diff string
	// EditedByHand marks a changed or extra file whose body no longer has
	// the digest platc wrote in its header: someone edited it.
	EditedByHand bool
	// Line is the first line of the file on disk that differs (1 for a
	// missing file).
	Line int
}

// Why says, for a person, how the file differs and what made it so.
func (d Drift) Why() string {
	switch {
	case d.Kind == Missing:
		return "missing: the spec renders it, but it is not there"
	case d.EditedByHand && d.Kind == Extra:
		return "extra, and edited by hand: the spec no longer renders it"
	case d.EditedByHand:
		return "edited by hand: the file no longer matches what its inputs produce"
	case d.Kind == Extra:
		return "extra: the spec no longer renders it"
	}
	return "stale: its inputs changed since it was rendered"
}

// Compare returns how the output folder differs from outs, sorted by path.
func Compare(st *State, outs []Output) []Drift {
	var drifts []Drift
	rendered := map[string]bool{}
	for _, o := range outs {
		rendered[o.Path] = true
		old, ok := st.Generated[o.Path]
		switch {
		case !ok:
			drifts = append(drifts, Drift{Path: o.Path, Kind: Missing, Diff: unified(o.Path, nil, o.Data), Line: 1})
		case !bytes.Equal(old, o.Data):
			drifts = append(drifts, Drift{Path: o.Path, Kind: Changed, Diff: unified(o.Path, old, o.Data), EditedByHand: EditedByHand(old), Line: firstDifference(old, o.Data)})
		}
	}
	for p, old := range st.Generated {
		if !rendered[p] {
			drifts = append(drifts, Drift{Path: p, Kind: Extra, Diff: unified(p, old, nil), EditedByHand: EditedByHand(old), Line: 1})
		}
	}
	slices.SortFunc(drifts, func(a, b Drift) int { return strings.Compare(a.Path, b.Path) })
	return drifts
}

// firstDifference returns the first line (from 1) of the bodies of two
// generated files that differs; the header's digest line differs whenever
// the bodies do, and says nothing.
func firstDifference(a, b []byte) int {
	_, a, _ = splitHeader(a)
	_, b, _ = splitHeader(b)
	line := headerLines + 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}

func unified(p string, old, new []byte) string {
	from, to := "a/"+p, "b/"+p
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	return udiff.Unified(from, to, string(old), string(new))
}

// Conflicts returns the rendered paths that platc may not write because a
// file it did not generate is there: it never overwrites a file it does not
// own.
func Conflicts(st *State, outs []Output) []string {
	var out []string
	for _, o := range outs {
		if slices.Contains(st.Foreign, o.Path) {
			out = append(out, o.Path)
		}
	}
	return out
}

// Result counts what Write did.
type Result struct {
	Written, Unchanged, Removed []string
}

// Write makes the output folder hold outs: it writes new and changed files,
// leaves unchanged ones alone, and removes generated files the render no
// longer produces. Every new file is first written beside its target and
// renamed into place only when all of them were written, so a failure leaves
// the folder as it was. Files platc did not generate are never touched;
// Write refuses to run if one is in the way.
func Write(root *os.Root, outDir string, st *State, outs []Output) (*Result, error) {
	if c := Conflicts(st, outs); len(c) > 0 {
		return nil, fmt.Errorf("%s: file exists and was not generated by platc: move it out of the output folder, platc does not overwrite it", c[0])
	}
	res := &Result{}
	var changed []Output
	for _, o := range outs {
		if old, ok := st.Generated[o.Path]; ok && bytes.Equal(old, o.Data) {
			res.Unchanged = append(res.Unchanged, o.Path)
			continue
		}
		changed = append(changed, o)
	}
	staged, err := Stage(root, changed)
	if err != nil {
		return nil, err
	}
	if err := staged.Commit(); err != nil {
		return nil, err
	}
	for _, o := range changed {
		res.Written = append(res.Written, o.Path)
	}
	rendered := map[string]bool{}
	for _, o := range outs {
		rendered[o.Path] = true
	}
	var stale []string
	for p := range st.Generated {
		if !rendered[p] {
			stale = append(stale, p)
		}
	}
	slices.Sort(stale)
	for _, p := range stale {
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("removing stale %s: %w", p, err)
		}
		res.Removed = append(res.Removed, p)
		removeEmptyParents(root, outDir, path.Dir(p))
	}
	return res, nil
}

// Staged are files written beside their places (".name.platc-tmp"), to be
// renamed there together by Commit, or removed by Abort.
type Staged struct {
	root  *os.Root
	files []Output // by the path they go to
}

func stagedName(p string) string {
	dir, name := path.Split(p)
	return dir + "." + name + ".platc-tmp"
}

// Stage writes each file beside its place in root, making the folders it
// needs, in parallel: a first render of a large platform writes thousands.
// On an error nothing is left staged.
func Stage(root *os.Root, files []Output) (*Staged, error) {
	made := map[string]bool{}
	for _, f := range files {
		dir := path.Dir(f.Path)
		if dir == "." || made[dir] {
			continue
		}
		if err := root.MkdirAll(dir, 0o777); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		made[dir] = true
	}
	s := &Staged{root: root, files: files}
	errs := make([]error, len(files))
	object.Parallel(len(files), func(i int) {
		if err := writeFile(root, stagedName(files[i].Path), files[i].Data); err != nil {
			errs[i] = fmt.Errorf("writing %s: %w", files[i].Path, err)
		}
	})
	if err := firstError(errs); err != nil {
		s.Abort()
		return nil, err
	}
	return s, nil
}

// Commit renames the staged files into place. A file that cannot be
// renamed is removed, and the first such error returned.
func (s *Staged) Commit() error {
	errs := make([]error, len(s.files))
	object.Parallel(len(s.files), func(i int) {
		if err := s.root.Rename(stagedName(s.files[i].Path), s.files[i].Path); err != nil {
			errs[i] = fmt.Errorf("writing %s: %w", s.files[i].Path, err)
			s.root.Remove(stagedName(s.files[i].Path))
		}
	})
	s.files = nil
	return firstError(errs)
}

// Abort removes the staged files.
func (s *Staged) Abort() {
	for _, f := range s.files {
		s.root.Remove(stagedName(f.Path))
	}
	s.files = nil
}

// firstError is the first error of errs that is not nil, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func writeFile(root *os.Root, name string, data []byte) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeEmptyParents removes dir and its parents below outDir while they are
// empty, so that a removed group leaves no empty folder behind. Remove fails
// on a folder that is not empty, which stops the walk.
func removeEmptyParents(root *os.Root, outDir, dir string) {
	for strings.HasPrefix(dir, outDir+"/") {
		if err := root.Remove(dir); err != nil {
			return
		}
		dir = path.Dir(dir)
	}
}
