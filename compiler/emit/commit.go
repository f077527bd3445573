package emit

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	// StepBackup links a file the write replaces or removes to its
	// backup, which also checks that it can be replaced.
	StepBackup
	// StepStage writes a staged file.
	StepStage
	// StepCommit appends the commit record: the commit point.
	StepCommit
	// StepRename renames a staged file into place.
	StepRename
	// StepRemove removes a stale generated file.
	StepRemove
	// StepDropBackup removes a backup once the write is complete or undone.
	StepDropBackup
	// StepRemoveFolder removes a folder left empty, or one the write made
	// when it is undone.
	StepRemoveFolder
	// StepUnstage removes a staged file, undoing a write.
	StepUnstage
	// StepRollback appends the rollback record: a committed write that
	// could not be completed is being rolled back.
	StepRollback
	// StepRestore puts a file back as it was before the write: its backup
	// renamed into place, or a file the write made removed.
	StepRestore
	// StepDone removes the journal.
	StepDone
)

func (k StepKind) String() string {
	return [...]string{"journal", "mkdir", "backup", "stage", "commit", "rename", "remove", "drop-backup", "remove-folder", "unstage", "rollback", "restore", "done"}[k]
}

// ErrInterrupted is what Write returns when it was interrupted before its
// commit point: it has undone what it did.
var ErrInterrupted = errors.New("interrupted")

// op carries out a journal, or undoes it.
type op struct {
	root   *os.Root
	outDir string
	fault  func(Step) error
	link   func(r *os.Root, oldname, newname string) error // nil: r.Link
	// syncAtOnce: staged files are synced together at the commit point.
	syncAtOnce bool
	// interrupt, while interruptible, stops the write before commit.
	interrupt     <-chan struct{}
	interruptible bool

	// folders are the output root's folders, opened as roots (in).
	mu      sync.Mutex
	folders map[string]*os.Root
}

// in returns the folder of p as a root, and p's name in it. Each folder is
// opened once, so opening a file costs one system call, not one per path
// element.
func (o *op) in(p string) (*os.Root, string, error) {
	dir, name := path.Split(p)
	r, err := o.folder(strings.TrimSuffix(dir, "/"))
	return r, name, err
}

// folder returns the folder dir of the repository as a root.
func (o *op) folder(dir string) (*os.Root, error) {
	if dir == "" {
		return o.root, nil
	}
	o.mu.Lock()
	r, ok := o.folders[dir]
	o.mu.Unlock()
	if ok {
		return r, nil
	}
	parent, name := path.Split(dir)
	pr, err := o.folder(strings.TrimSuffix(parent, "/"))
	if err != nil {
		return nil, err
	}
	if r, err = pr.OpenRoot(name); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if opened, ok := o.folders[dir]; ok {
		// another goroutine opened it meanwhile
		r.Close()
		return opened, nil
	}
	if o.folders == nil {
		o.folders = map[string]*os.Root{}
	}
	o.folders[dir] = r
	return r, nil
}

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

// do takes a step: the fault hook and the interrupt, then action. Errors
// are wrapped with doing.
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

// run carries out j: up to the commit point (undone on failure), then the
// renames and removals (rolled back on failure), then drops the backups.
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
	if _, err := o.apply(j, j.staged(), false); err != nil {
		if _, rerr := o.rollback(j); rerr != nil {
			return fmt.Errorf("%w; rolling it back: %v: %s/ is not whole until the next platc command completes the write or rolls it back", err, rerr, o.outDir)
		}
		if derr := o.done(); derr != nil {
			return fmt.Errorf("%w: rolled the write back, %s/ is as it was; %v: the next platc command removes it", err, o.outDir, derr)
		}
		return fmt.Errorf("%w: rolled the write back, %s/ is as it was", err, o.outDir)
	}
	err = o.tidy(j)
	if err == nil {
		err = o.done()
	}
	if err != nil {
		return fmt.Errorf("%w: %s/ holds the new render; the next platc command removes what the write left", err, o.outDir)
	}
	return nil
}

// done removes the journal: the write is complete, undone or rolled back.
func (o *op) done() error {
	return o.do(StepDone, o.journalPath(), "removing the journal", func() error { return ignoreMissing(o.root.Remove(o.journalPath())) })
}

// prepare does everything up to and including the commit point.
func (o *op) prepare(j *journal) error {
	intent := j.intent()
	o.syncAtOnce = syncAtOnce(len(j.writes) + len(j.edits))
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
		err := o.do(StepMkdir, d, "making "+d, func() error {
			r, name, err := o.in(d)
			if err != nil {
				return err
			}
			return r.Mkdir(name, 0o777)
		})
		if err != nil {
			// Undoing removes the folders the write made, not this
			// one, which may have been there.
			j.mkdirs = j.mkdirs[:i]
			return err
		}
	}
	// In parallel: a render may back up thousands of files.
	err = parallel(len(j.backups), func(i int) error {
		p := j.backups[i]
		return o.do(StepBackup, p, "replacing "+p, func() error { return o.backup(p) })
	})
	if err != nil {
		return err
	}
	// In parallel: a first render of a large platform stages thousands.
	staged := j.staged()
	err = parallel(len(staged), func(i int) error {
		e := staged[i]
		return o.do(StepStage, stagedName(e.path), "writing "+e.path, func() error {
			r, name, err := o.in(stagedName(e.path))
			if err != nil {
				return err
			}
			return writeFile(r, name, e.data, !o.syncAtOnce)
		})
	})
	if err != nil {
		return err
	}
	return o.do(StepCommit, o.journalPath(), "committing the journal", func() error {
		// The staged files and the backups are on the disk before the
		// record that commits to them.
		if o.syncAtOnce {
			if err := syncStaged(o.root, o.outDir); err != nil {
				return err
			}
		} else if err := o.syncFolders(j); err != nil {
			return err
		}
		return writeSynced(o.root, o.journalPath(), commitRecord(intent), true)
	})
}

// syncFolders makes durable the names a write made before its commit
// point: the folders holding its staged files and backups, and those it
// made.
func (o *op) syncFolders(j *journal) error {
	dirs := map[string]bool{}
	for _, e := range j.staged() {
		dirs[path.Dir(e.path)] = true
	}
	for _, p := range j.backups {
		dirs[path.Dir(p)] = true
	}
	for _, d := range j.mkdirs {
		dirs[path.Dir(d)] = true
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := syncDir(o.root, d); err != nil {
			return err
		}
	}
	return nil
}

// backup links the file p to its backup, or copies it where there are no
// hard links. An immutable or append-only file fails here, before the
// commit point, since the write could not replace it.
func (o *op) backup(p string) error {
	r, name, err := o.in(p)
	if err != nil {
		return err
	}
	b := path.Base(backupName(name))
	link := (*os.Root).Link
	if o.link != nil {
		link = o.link
	}
	lerr := link(r, name, b)
	if errors.Is(lerr, fs.ErrExist) {
		// A backup left by another copy of the folder is not ours.
		if err := r.Remove(b); err != nil {
			return err
		}
		lerr = link(r, name, b)
	}
	if lerr == nil {
		return nil
	}
	if cannotReplace(r, name) {
		return fmt.Errorf("it is immutable or append-only (lsattr %s shows it; chattr -i or chattr -a clears it): the files are as they were", p)
	}
	data, err := r.ReadFile(name)
	if err != nil {
		return fmt.Errorf("%v; reading it: %w", lerr, err)
	}
	return writeFile(r, b, data, !o.syncAtOnce)
}

// apply renames the staged files of pending into place and removes the
// stale ones; an interrupted run may have done any step already. With
// owned (a recovery, which cannot trust the journal on disk), it removes
// only files platc generated. It returns how many it removed.
func (o *op) apply(j *journal, pending []entry, owned bool) (int, error) {
	err := parallel(len(pending), func(i int) error {
		p := pending[i].path
		return o.do(StepRename, p, "writing "+p, func() error {
			r, name, err := o.in(p)
			if err != nil {
				return err
			}
			return r.Rename(stagedName(name), name)
		})
	})
	if err != nil {
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
	}
	return removed, nil
}

// tidy removes the backups of a complete write, and then the folders its
// removals left empty (a backup keeps its folder until then).
func (o *op) tidy(j *journal) error {
	if err := o.dropBackups(j); err != nil {
		return err
	}
	for _, p := range j.removes {
		if err := o.removeEmptyParents(path.Dir(p)); err != nil {
			return err
		}
	}
	return nil
}

func (o *op) dropBackups(j *journal) error {
	return parallel(len(j.backups), func(i int) error {
		b := backupName(j.backups[i])
		return o.do(StepDropBackup, b, "removing "+b, func() error {
			if !o.isRegular(b) {
				return nil // dropped already, or not platc's
			}
			return ignoreMissing(o.root.Remove(b))
		})
	})
}

// rollback undoes a committed write of j: it appends the rollback record
// (so a killed rollback is resumed), renames the backups into place, and
// removes the files and folders the write made; the caller removes the
// journal. Any step may be done already. A file someone else put in place
// is left alone. It returns how many files it restored.
func (o *op) rollback(j *journal) (int, error) {
	if !j.rollingBack {
		err := o.do(StepRollback, o.journalPath(), "recording the rollback in the journal", func() error {
			return writeSynced(o.root, o.journalPath(), []byte(rollbackRecord), true)
		})
		if err != nil {
			return 0, err
		}
		j.rollingBack = true
	}
	backedUp := make(map[string]bool, len(j.backups))
	for _, p := range j.backups {
		backedUp[p] = true
	}
	restored := 0
	restore := func(p, digest string) error {
		return o.do(StepRestore, p, "restoring "+p, func() error {
			b := backupName(p)
			target, terr := o.regularFile(p)
			mine := errors.Is(terr, fs.ErrNotExist) || terr == nil && digest != "" && fullDigest(target) == digest
			var err error
			switch {
			case backedUp[p] && o.isRegular(b):
				if terr == nil && o.sameFile(p, b) || !mine {
					// not replaced yet, or someone else's file is
					// there now: the backup goes
					return ignoreMissing(o.root.Remove(b))
				}
				err = o.root.Rename(b, p)
			case !backedUp[p] && terr == nil && mine:
				err = ignoreMissing(o.root.Remove(p)) // a file the write made
			default:
				return nil // restored already
			}
			if err == nil {
				restored++
			}
			return err
		})
	}
	for _, e := range j.staged() {
		if err := restore(e.path, e.digest); err != nil {
			return restored, err
		}
		tmp := stagedName(e.path)
		if o.isRegular(tmp) {
			if err := o.do(StepUnstage, tmp, "removing "+tmp, func() error { return ignoreMissing(o.root.Remove(tmp)) }); err != nil {
				return restored, err
			}
		}
	}
	for _, p := range j.removes {
		if err := restore(p, ""); err != nil {
			return restored, err
		}
	}
	return restored, o.removeMadeFolders(j)
}

func (o *op) isRegular(p string) bool {
	info, err := o.root.Lstat(p)
	return err == nil && info.Mode().IsRegular()
}

// sameFile reports whether a and b are links to one file.
func (o *op) sameFile(a, b string) bool {
	ia, erra := o.root.Lstat(a)
	ib, errb := o.root.Lstat(b)
	return erra == nil && errb == nil && os.SameFile(ia, ib)
}

// generated reports whether the file p is one platc generated.
func (o *op) generated(p string) bool {
	data, err := o.regularFile(p)
	return err == nil && IsGenerated(data)
}

// removeEmptyParents removes dir and its parents below the output root
// while they are empty.
func (o *op) removeEmptyParents(dir string) error {
	for strings.HasPrefix(dir, o.outDir+"/") {
		empty := true
		err := o.do(StepRemoveFolder, dir, "removing "+dir, func() error {
			// Remove fails on a non-empty folder: the walk ends.
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

// undo removes the staged files, backups and folders a write of j made,
// and nothing else. It returns how many staged files it removed.
func (o *op) undo(j *journal) (int, error) {
	removed := 0
	for _, e := range j.staged() {
		tmp := stagedName(e.path)
		if !o.isRegular(tmp) {
			continue // not staged, or not platc's
		}
		if err := o.do(StepUnstage, tmp, "removing "+tmp, func() error { return ignoreMissing(o.root.Remove(tmp)) }); err != nil {
			return removed, err
		}
		removed++
	}
	if err := o.dropBackups(j); err != nil {
		return removed, err
	}
	return removed, o.removeMadeFolders(j)
}

// removeMadeFolders removes the folders a write of j made, deepest first,
// unless someone else's files are in them now.
func (o *op) removeMadeFolders(j *journal) error {
	for _, d := range slices.Backward(j.mkdirs) {
		err := o.do(StepRemoveFolder, d, "removing "+d, func() error {
			err := ignoreMissing(o.root.Remove(d))
			if entries, rerr := fs.ReadDir(o.root.FS(), d); err != nil && rerr == nil && len(entries) > 0 {
				return nil // someone else's files are in it now: it stays
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
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

// writeFile writes data to a new file name, synced if sync is set.
func writeFile(root *os.Root, name string, data []byte, sync bool) error {
	return write(root, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, data, sync)
}

// write opens name with OpenNonblock and writes data to it.
func write(root *os.Root, name string, flag int, data []byte, sync bool) error {
	f, err := root.OpenFile(name, flag|OpenNonblock, 0o666)
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

// parallel calls step for 0..n-1 in parallel and returns the first error
// by index.
func parallel(n int, step func(i int) error) error {
	errs := make([]error, n)
	object.Parallel(n, func(i int) { errs[i] = step(i) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
