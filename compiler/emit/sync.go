package emit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// State is what the output folder holds now: platc's generated files by
// path, the paths of foreign files, and the folders (the output folder
// included). The journal and lock file are left out.
type State struct {
	Generated map[string]File
	Foreign   []string
	Folders   map[string]bool
	// read rereads a file for a drift's diff: Scan keeps no bytes.
	read func(p string) ([]byte, error)
}

// bytesOf reads the generated file p again, or gives nil where it cannot
// (a diff then shows the whole file, as for a file that is not there).
func (st *State) bytesOf(p string) []byte {
	if st.read == nil {
		return nil
	}
	data, err := st.read(p)
	if err != nil {
		return nil
	}
	return data
}

// Scan reads the output folder outDir of fsys; a missing folder is empty.
// It descends through fs.Sub and reads each file relative to its folder,
// so an fsys backed by os.Root looks up one name per file, not the whole
// path. Where fsys is a FolderOpener, scanFolder reads below the folder's
// descriptor instead.
func Scan(fsys fs.FS, outDir string) (*State, error) {
	st, fast, err := scanBelow(fsys, outDir)
	if !fast && err == nil {
		st = newState()
		var sub fs.FS
		if sub, err = fs.Sub(fsys, outDir); err == nil {
			st.Folders[outDir] = true
			err = scanDir(sub, outDir, outDir, st)
			closeFS(sub)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := fs.Stat(fsys, outDir); errors.Is(statErr, fs.ErrNotExist) {
			st, err = newState(), nil // no output folder yet
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the output folder: %w", err)
	}
	slices.Sort(st.Foreign)
	st.read = func(p string) ([]byte, error) { return fs.ReadFile(fsys, p) }
	return st, nil
}

// scanBelow is Scan below outDir's descriptor; fast is false where fsys is
// no FolderOpener or the system cannot, and Scan uses fs.Sub.
func scanBelow(fsys fs.FS, outDir string) (st *State, fast bool, err error) {
	fo, ok := fsys.(FolderOpener)
	if !ok {
		return nil, false, nil
	}
	f, err := fo.OpenFolder(outDir)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st = newState()
	st.Folders[outDir] = true
	fast, err = scanFolder(f, outDir, outDir, st)
	return st, fast, err
}

func newState() *State {
	return &State{Generated: map[string]File{}, Folders: map[string]bool{}}
}

// A FolderOpener opens its folder name as an os.File, whose descriptor
// Scan may read below.
type FolderOpener interface {
	OpenFolder(name string) (*os.File, error)
}

// scanDir reads the folder dirFS, at path dir, and its sub-folders into st.
func scanDir(dirFS fs.FS, outDir, dir string, st *State) error {
	entries, err := fs.ReadDir(dirFS, ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		switch {
		case dir == outDir && (e.Name() == JournalName || e.Name() == LockName):
			// platc's own: Recover reads the journal, and LockOutput
			// the lock's file.
		case e.IsDir():
			st.Folders[p] = true
			sub, err := fs.Sub(dirFS, e.Name())
			if err != nil {
				return err
			}
			err = scanDir(sub, outDir, p, st)
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
			st.addFile(p, data)
		}
	}
	return nil
}

// addFile records the file at p, platc's or foreign. It keeps nothing of
// data, which the caller may reuse.
func (st *State) addFile(p string, data []byte) {
	if IsGenerated(data) {
		st.Generated[p] = fileOf(data)
	} else {
		st.Foreign = append(st.Foreign, p)
	}
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
// The bytes of a file that differs are read again for its diff.
func Compare(st *State, outs []Output) []Drift {
	var drifts []Drift
	rendered := map[string]bool{}
	for _, o := range outs {
		rendered[o.Path] = true
		f, ok := st.Generated[o.Path]
		switch {
		case o.Kept != nil && ok && f == *o.Kept:
		case o.Kept != nil:
			// Kept against another State than st: a caller's mistake.
			drifts = append(drifts, Drift{Path: o.Path, Kind: Changed, Diff: "changed since platc read it: run platc again\n", Line: 1})
		case !ok:
			drifts = append(drifts, Drift{Path: o.Path, Kind: Missing, Diff: unified(o.Path, nil, o.Data), Line: 1})
		case !f.holdsData(o.Data):
			old := st.bytesOf(o.Path)
			drifts = append(drifts, Drift{Path: o.Path, Kind: Changed, Diff: unified(o.Path, old, o.Data), EditedByHand: f.EditedByHand, Line: firstDifference(old, o.Data)})
		}
	}
	for p, f := range st.Generated {
		if !rendered[p] {
			drifts = append(drifts, Drift{Path: p, Kind: Extra, Diff: unified(p, st.bytesOf(p), nil), EditedByHand: f.EditedByHand, Line: 1})
		}
	}
	slices.SortFunc(drifts, func(a, b Drift) int { return strings.Compare(a.Path, b.Path) })
	return drifts
}

// firstDifference returns the first differing line (from 1) of the bodies
// of two generated files; the header's digest line would always differ.
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

// Conflict is a rendered path that platc may not write: it never
// overwrites a file it does not own, nor writes through one.
type Conflict struct {
	Path    string
	Problem string // what is in the way
}

// Conflicts returns the rendered paths blocked by a foreign file or a
// folder at the path, or by a foreign file where a parent folder must be.
func Conflicts(st *State, outs []Output) []Conflict {
	if len(st.Foreign) == 0 && len(st.Folders) == 0 {
		return nil
	}
	foreign := make(map[string]bool, len(st.Foreign))
	for _, p := range st.Foreign {
		foreign[p] = true
	}
	var out []Conflict
	for _, o := range outs {
		switch {
		case foreign[o.Path]:
			out = append(out, Conflict{o.Path, "file exists and was not generated by platc"})
		case st.Folders[o.Path]:
			out = append(out, Conflict{o.Path, "a folder is where platc writes this file"})
		case len(foreign) > 0:
			for i := strings.LastIndexByte(o.Path, '/'); i > 0; i = strings.LastIndexByte(o.Path[:i], '/') {
				if d := o.Path[:i]; foreign[d] {
					out = append(out, Conflict{o.Path, d + " is not a folder platc can write in (a file, or a link, it did not generate)"})
					break
				}
			}
		}
	}
	return out
}

// Result counts what Write did.
type Result struct {
	Written, Unchanged, Removed []string
}

// Options configure Write.
type Options struct {
	// Also are files outside the output root that the write replaces with
	// the render, all or nothing together: the spec files a release edits.
	Also []Output
	// Interrupt, closed before the commit point, undoes the write and
	// returns ErrInterrupted; after it, the write finishes.
	Interrupt <-chan struct{}
	// Fault, when set, is called before each step; an error fails it.
	Fault func(Step) error

	// link, when set, replaces os.Root.Link (tests fake no hard links).
	link func(r *os.Root, oldname, newname string) error
}

// Write makes the output folder hold outs: it writes new and changed files
// and removes generated files no longer rendered, all or nothing through
// the journal (journal.go), even if killed. When nothing changes it writes
// nothing, not even a journal. Foreign files are never touched; Write
// refuses if one is in the way. The caller holds the lock (LockOutput), has
// run Recover, and st is what Scan read since.
func Write(root *os.Root, outDir string, st *State, outs []Output, opts Options) (*Result, error) {
	if c := Conflicts(st, outs); len(c) > 0 {
		return nil, fmt.Errorf("%s: %s: move it out of the output folder, platc does not overwrite it", c[0].Path, c[0].Problem)
	}
	res := &Result{}
	j := &journal{root: outDir, version: 2}
	for _, o := range outs {
		f, ok := st.Generated[o.Path]
		if o.Kept != nil {
			if !ok || f != *o.Kept {
				return nil, fmt.Errorf("%s: changed since platc read it: run platc again", o.Path)
			}
			res.Unchanged = append(res.Unchanged, o.Path)
			continue
		}
		if ok && f.holdsData(o.Data) {
			res.Unchanged = append(res.Unchanged, o.Path)
			continue
		}
		j.writes = append(j.writes, newEntry(o.Path, o.Data))
		res.Written = append(res.Written, o.Path)
	}
	for _, o := range opts.Also {
		if strings.HasPrefix(o.Path, outDir+"/") || !isSpecFile(o.Path) || !cleanPath(o.Path) {
			return nil, fmt.Errorf("%s: not a spec file outside the output folder", o.Path)
		}
		j.edits = append(j.edits, newEntry(o.Path, o.Data))
	}
	rendered := make(map[string]bool, len(outs))
	for _, o := range outs {
		rendered[o.Path] = true
	}
	for p := range st.Generated {
		if !rendered[p] {
			j.removes = append(j.removes, p)
		}
	}
	slices.Sort(j.removes)
	if j.empty() {
		return res, nil
	}
	// Back up what is replaced or removed, for a rollback.
	for _, e := range j.writes {
		if _, ok := st.Generated[e.path]; ok {
			j.backups = append(j.backups, e.path)
		}
	}
	for _, e := range j.edits {
		if info, err := root.Lstat(e.path); err == nil && info.Mode().IsRegular() {
			j.backups = append(j.backups, e.path)
		}
	}
	j.backups = append(j.backups, j.removes...)
	if !st.Folders[outDir] {
		if err := root.MkdirAll(outDir, 0o777); err != nil {
			return nil, fmt.Errorf("making the output folder: %w", err)
		}
	}
	j.mkdirs = missingFolders(st, outDir, j.writes)
	o := &op{root: root, outDir: outDir, fault: opts.Fault, interrupt: opts.Interrupt, link: opts.link}
	defer o.close()
	if err := o.run(j); err != nil {
		return nil, err
	}
	res.Removed = j.removes
	return res, nil
}

// missingFolders are the folders below outDir that writes need and that
// are missing, parents first.
func missingFolders(st *State, outDir string, writes []entry) []string {
	var missing []string
	seen := map[string]bool{}
	for _, e := range writes {
		for d := path.Dir(e.path); strings.HasPrefix(d, outDir+"/") && !st.Folders[d] && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			missing = append(missing, d)
		}
	}
	// A folder sorts before what is in it.
	slices.Sort(missing)
	return missing
}
