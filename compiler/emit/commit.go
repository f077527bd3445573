package emit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/object"
)

// Step is one step of a write of the output root or of its recovery: what
// a fault hook sees before each action (Options.Fault).
type Step struct {
	Kind StepKind
	Path string // the file or folder it acts on
}

func (s Step) String() string { return s.Kind.String() + " " + s.Path }

// StepKind is what a step does.
type StepKind int

const (
	// StepJournal writes the journal's intent.
	StepJournal StepKind = iota
	// StepMkdir makes a folder.
	StepMkdir
	// StepStage writes a staged file.
	StepStage
	// StepCommit appends the commit record: the commit point.
	StepCommit
	// StepRename renames a staged file into place.
	StepRename
	// StepRemove removes a stale generated file.
	StepRemove
	// StepRemoveFolder removes a folder left empty, or one the write made
	// when it is undone.
	StepRemoveFolder
	// StepUnstage removes a staged file, undoing a write.
	StepUnstage
	// StepDone removes the journal.
	StepDone
)

func (k StepKind) String() string {
	return [...]string{"journal", "mkdir", "stage", "commit", "rename", "remove", "remove-folder", "unstage", "done"}[k]
}

// ErrInterrupted is what Write returns when it was interrupted before its
// commit point: it has undone what it did.
var ErrInterrupted = errors.New("interrupted")

// op carries out a journal, or undoes it.
type op struct {
	root   *os.Root
	outDir string
	fault  func(Step) error
	// interrupt, while interruptible, stops the write before the
	// commit point.
	interrupt     <-chan struct{}
	interruptible bool

	// folders are the folders of the output root opened as roots of
	// their own (in): a file is then opened by its name in its folder,
	// one system call, where a path through the output root costs one
	// per element (a first render writes thousands, folders deep).
	mu      sync.Mutex
	folders map[string]*os.Root
}

// in returns the folder of p as a root, and p's name in it; each folder
// is opened once.
func (o *op) in(p string) (*os.Root, string, error) {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return o.root, name, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, ok := o.folders[dir]; ok {
		return r, name, nil
	}
	r, err := o.root.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	if o.folders == nil {
		o.folders = map[string]*os.Root{}
	}
	o.folders[dir] = r
	return r, name, nil
}

// close closes the folders in opened.
func (o *op) close() {
	for _, r := range o.folders {
		r.Close()
	}
	o.folders = nil
}

func (o *op) journalPath() string { return o.outDir + "/" + JournalName }

// step is called before each action: the fault hook may fail it, and an
// interrupt stops a write that has not reached its commit point.
func (o *op) step(kind StepKind, p string) error {
	if o.fault != nil {
		if err := o.fault(Step{kind, p}); err != nil {
			return err
		}
	}
	if o.interruptible && o.interrupt != nil {
		select {
		case <-o.interrupt:
			return ErrInterrupted
		default:
		}
	}
	return nil
}

// do takes a step: the fault hook and the interrupt first, then action.
// An error of either is wrapped with doing, what the step does.
func (o *op) do(kind StepKind, p, doing string, action func() error) error {
	err := o.step(kind, p)
	if err == nil {
		err = action()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return nil
}

// ignoreMissing is err, unless it says the file is not there.
func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// run carries out j: everything up to the commit point, undone if any of
// it fails, and then the renames and removals, which a failure stops with
// the journal left for a recovery to complete.
func (o *op) run(j *journal) error {
	o.interruptible = true
	err := o.prepare(j)
	o.interruptible = false
	if err != nil {
		_, uerr := o.undo(j)
		if uerr == nil {
			uerr = o.done()
		}
		if uerr != nil {
			return fmt.Errorf("%w; undoing the write: %v: run platc again to clean up", err, uerr)
		}
		return err
	}
	_, err = o.finish(j, j.staged(), false)
	if err == nil {
		err = o.done()
	}
	if err != nil {
		return fmt.Errorf("%w: %s/ is committed but not complete; fix that, and the next platc command completes it", err, o.outDir)
	}
	return nil
}

// done removes the journal: the write is complete, or undone.
func (o *op) done() error {
	return o.do(StepDone, o.journalPath(), "removing the journal", func() error { return ignoreMissing(o.root.Remove(o.journalPath())) })
}

// prepare writes the journal's intent, makes the folders, stages the files
// and commits the journal.
func (o *op) prepare(j *journal) error {
	intent := j.intent()
	err := o.do(StepJournal, o.journalPath(), "writing the journal", func() error {
		if err := writeSynced(o.root, o.journalPath(), intent, false); err != nil {
			return err
		}
		return syncDir(o.root, o.outDir)
	})
	if err != nil {
		return err
	}
	for i, d := range j.mkdirs {
		if err := o.do(StepMkdir, d, "making "+d, func() error { return o.root.Mkdir(d, 0o777) }); err != nil {
			// Undoing removes the folders the write made, not this
			// one, which may have been there.
			j.mkdirs = j.mkdirs[:i]
			return err
		}
	}
	// In parallel: a first render of a large platform stages thousands.
	staged := j.staged()
	errs := make([]error, len(staged))
	object.Parallel(len(staged), func(i int) {
		e := staged[i]
		errs[i] = o.do(StepStage, stagedName(e.path), "writing "+e.path, func() error {
			r, name, err := o.in(stagedName(e.path))
			if err != nil {
				return err
			}
			return writeFile(r, name, e.data, stageSynced)
		})
	})
	if err := firstError(errs); err != nil {
		return err
	}
	return o.do(StepCommit, o.journalPath(), "committing the journal", func() error {
		// The staged files are on the disk before the record that
		// commits to them.
		if err := syncStaged(o.root, o.outDir); err != nil {
			return err
		}
		return writeSynced(o.root, o.journalPath(), commitRecord(intent), true)
	})
}

// finish renames the staged files of pending into place, and removes the
// stale files and the folders they leave empty. Each
// step may have been done already, by a write or a recovery that was
// interrupted. With owned, it removes a stale file only if platc
// generated it (a recovery reads the journal from disk, and checks). It
// returns how many files it removed.
func (o *op) finish(j *journal, pending []entry, owned bool) (int, error) {
	errs := make([]error, len(pending))
	object.Parallel(len(pending), func(i int) {
		p := pending[i].path
		errs[i] = o.do(StepRename, p, "writing "+p, func() error {
			r, name, err := o.in(p)
			if err != nil {
				return err
			}
			return r.Rename(stagedName(name), name)
		})
	})
	if err := firstError(errs); err != nil {
		return 0, err
	}
	removed := 0
	for _, p := range j.removes {
		if _, err := o.root.Lstat(p); owned && err == nil && !o.generated(p) {
			continue // not platc's, whatever the journal says
		}
		if err := o.do(StepRemove, p, "removing stale "+p, func() error { return ignoreMissing(o.root.Remove(p)) }); err != nil {
			return removed, err
		}
		removed++
		if err := o.removeEmptyParents(path.Dir(p)); err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// generated reports whether the file p is one platc generated.
func (o *op) generated(p string) bool {
	info, err := o.root.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	data, err := o.root.ReadFile(p)
	return err == nil && IsGenerated(data)
}

// removeEmptyParents removes dir and its parents below the output root
// while they are empty, so that a removed group leaves no empty folder
// behind.
func (o *op) removeEmptyParents(dir string) error {
	for strings.HasPrefix(dir, o.outDir+"/") {
		empty := true
		err := o.do(StepRemoveFolder, dir, "removing "+dir, func() error {
			// Remove fails on a folder that is not empty, which ends
			// the walk.
			empty = ignoreMissing(o.root.Remove(dir)) == nil
			return nil
		})
		if err != nil || !empty {
			return err
		}
		dir = path.Dir(dir)
	}
	return nil
}

// undo removes what a write of j staged and the folders it made; it
// leaves every other file as it is. It returns how many
// staged files it removed.
func (o *op) undo(j *journal) (int, error) {
	removed := 0
	for _, e := range j.staged() {
		tmp := stagedName(e.path)
		info, err := o.root.Lstat(tmp)
		if err != nil || !info.Mode().IsRegular() {
			continue // not staged, or not platc's
		}
		if err := o.do(StepUnstage, tmp, "removing "+tmp, func() error { return ignoreMissing(o.root.Remove(tmp)) }); err != nil {
			return removed, err
		}
		removed++
	}
	for _, d := range slices.Backward(j.mkdirs) {
		err := o.do(StepRemoveFolder, d, "removing "+d, func() error {
			err := ignoreMissing(o.root.Remove(d))
			if entries, rerr := fs.ReadDir(o.root.FS(), d); err != nil && rerr == nil && len(entries) > 0 {
				return nil // someone else's files are in it now: it stays
			}
			return err
		})
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// writeSynced writes data to name, or appends it, and syncs the file: a
// file the journal counts on must be on the disk before the commit point.
func writeSynced(root *os.Root, name string, data []byte, appendTo bool) error {
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_APPEND
	}
	return write(root, name, flag, data, true)
}

// writeFile writes data to a new file name, synced if sync is set (a
// staged file, where syncStaged does not sync them all at once).
func writeFile(root *os.Root, name string, data []byte, sync bool) error {
	return write(root, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, data, sync)
}

func write(root *os.Root, name string, flag int, data []byte, sync bool) error {
	f, err := root.OpenFile(name, flag, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
