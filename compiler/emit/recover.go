package emit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// RecoverOptions configure Recover.
type RecoverOptions struct {
	// Fault, when set, is called before each step; an error fails it.
	Fault func(Step) error
}

// RecoveryKind says what Recover found and did.
type RecoveryKind int

const (
	// NoJournal: no write was interrupted.
	NoJournal RecoveryKind = iota
	// Completed: the write was committed; Recover finished it.
	Completed
	// Undone: the write had not reached its commit point; Recover
	// removed what it had staged, and the files are as they were.
	Undone
	// RolledBack: the write was committed but could not be completed (a
	// staged file missing or wrong, a foreign file in the way, a rename
	// refused), or was already rolling back; Recover restored the backups.
	RolledBack
	// Abandoned: as RolledBack, but a version 1 journal has no backups;
	// Recover removed the staged files.
	Abandoned
	// Discarded: the journal could not be read (torn, or not platc's);
	// Recover removed it and the staged files it found.
	Discarded
)

// Recovery is what Recover did.
type Recovery struct {
	Kind     RecoveryKind
	OutDir   string
	Written  int   // files renamed into place or found there (Completed)
	Edited   int   // of which spec files (Completed)
	Removed  int   // stale files removed (Completed), staged files and backups removed (otherwise)
	Restored int   // files put back as they were (RolledBack)
	Why      error // why it could not complete the write (RolledBack, when known; Abandoned, Discarded)
}

// String says in one line what Recover did, or "" when there was nothing
// to recover.
func (r Recovery) String() string {
	switch r.Kind {
	case NoJournal:
		return ""
	case Completed:
		s := fmt.Sprintf("%s/: completed a write that was interrupted after its commit point: %d files written, %d removed", r.OutDir, r.Written-r.Edited, r.Removed)
		if r.Edited > 0 {
			s += fmt.Sprintf(", %d spec files edited", r.Edited)
		}
		return s
	case Undone:
		return fmt.Sprintf("%s/: undid a write that was interrupted before its commit point (%d staged files removed): the files are as they were", r.OutDir, r.Removed)
	case RolledBack:
		why := "it could not be completed"
		if r.Why != nil {
			why = fmt.Sprintf("it could not be completed: %v", r.Why)
		}
		if r.Restored == 0 {
			return fmt.Sprintf("%s/: rolled back a write that was interrupted after its commit point (%s): it had replaced nothing yet, the files are as they were before it", r.OutDir, why)
		}
		return fmt.Sprintf("%s/: rolled back a write that was interrupted after its commit point (%s): %d files put back, the files are as they were before it", r.OutDir, why, r.Restored)
	case Abandoned:
		return fmt.Sprintf("%s/: could not complete a write that was interrupted after its commit point (%v): removed its %d staged files; run platc render", r.OutDir, r.Why, r.Removed)
	case Discarded:
		return fmt.Sprintf("%s/: removed a journal platc could not read (%v) and %d files it had staged or backed up; the other files are as they are: run platc check", r.OutDir, r.Why, r.Removed)
	}
	panic(fmt.Sprintf("unknown recovery kind %d", r.Kind))
}

// Recover finishes an interrupted write of the output root outDir as its
// journal says: it completes a committed write whose staged files are all
// there, rolls back a committed write it cannot complete, and otherwise
// removes the staged files. It never overwrites or removes a file platc did
// not generate, except the spec files a committed release edits. Call it
// under the output root's lock, before reading the root; an interrupted
// recovery is completed by the next.
func Recover(root *os.Root, outDir string, opts RecoverOptions) (Recovery, error) {
	rec := Recovery{OutDir: outDir}
	o := &op{root: root, outDir: outDir, fault: opts.Fault}
	defer o.close()
	data, err := root.ReadFile(o.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("reading the journal: %w", err)
	}
	j, committed, perr := parseJournal(data, outDir)
	switch {
	case perr != nil:
		rec.Kind, rec.Why = Discarded, perr
	case !committed:
		rec.Kind = Undone
		rec.Removed, err = o.undo(j)
	case j.rollingBack:
		rec.Kind = RolledBack
		rec.Restored, err = o.rollback(j)
	default:
		pending, why := o.pending(j)
		if why == nil {
			var removed int
			if removed, why = o.apply(j, pending, true); why == nil {
				rec.Kind, rec.Written, rec.Edited, rec.Removed = Completed, len(j.writes)+len(j.edits), len(j.edits), removed
				err = o.tidy(j)
				break
			}
			if j.version < 2 {
				// Renamed in part, with nothing to roll back to: the
				// journal stays, and the next recovery tries again.
				return rec, why
			}
		}
		rec.Why = why
		if j.version < 2 {
			rec.Kind = Abandoned
			rec.Removed, err = o.undo(j)
			break
		}
		rec.Kind = RolledBack
		rec.Restored, err = o.rollback(j)
	}
	if err != nil {
		return rec, err
	}
	// Under the lock, no other write is staging: a staged file the journal
	// does not name is left from a write nobody completes.
	swept, err := o.sweep(rec.Kind == Discarded)
	if rec.Kind != Completed && rec.Kind != RolledBack {
		rec.Removed += swept
	}
	if err == nil {
		err = o.done()
	}
	return rec, err
}

// pending returns the staged files of committed j still to rename, or why
// the write cannot complete: each staged file (or its target) must have
// the recorded bytes, and no foreign file may be in the way.
func (o *op) pending(j *journal) ([]entry, error) {
	var pending []entry
	for _, e := range j.staged() {
		edit := !strings.HasPrefix(e.path, o.outDir+"/")
		target, terr := o.regularFile(e.path)
		switch {
		case terr != nil && !errors.Is(terr, fs.ErrNotExist):
			return nil, fmt.Errorf("%s: %w", e.path, terr)
		case terr == nil && !edit && !IsGenerated(target) && fullDigest(target) != e.digest:
			return nil, fmt.Errorf("%s: a file platc did not generate is in the way", e.path)
		}
		staged, serr := o.regularFile(stagedName(e.path))
		switch {
		case serr == nil && fullDigest(staged) == e.digest && (edit || IsGenerated(staged)):
			pending = append(pending, e)
		case serr == nil:
			return nil, fmt.Errorf("%s: its staged file is not what the journal says", e.path)
		case terr == nil && fullDigest(target) == e.digest:
			// renamed into place before the interruption
		default:
			return nil, fmt.Errorf("%s: its staged file is missing", e.path)
		}
	}
	return pending, nil
}

// regularFile reads p if it is a regular file.
func (o *op) regularFile(p string) ([]byte, error) {
	info, err := o.root.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return o.root.ReadFile(p)
}

// sweep removes platc's staged files and backups under the output root,
// and with emptyFolders every empty folder: the recovery for an unreadable
// journal.
func (o *op) sweep(emptyFolders bool) (int, error) {
	var staged, folders []string
	err := fs.WalkDir(o.root.FS(), o.outDir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != o.outDir:
			folders = append(folders, p)
		case d.Type().IsRegular() && (isStagedName(p) || isBackupName(p)) && o.generated(p):
			staged = append(staged, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading the output folder: %w", err)
	}
	removed := 0
	for _, p := range staged {
		if err := o.do(StepUnstage, p, "removing "+p, func() error { return ignoreMissing(o.root.Remove(p)) }); err != nil {
			return removed, err
		}
		removed++
	}
	// The folders the write made are not known either; a render leaves no
	// empty folder in the output root, so every empty one goes.
	for _, d := range slices.Backward(folders) {
		if !emptyFolders {
			break
		}
		err := o.do(StepRemoveFolder, d, "removing "+d, func() error {
			o.root.Remove(d) // fails on a folder that is not empty
			return nil
		})
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}
