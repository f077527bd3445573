package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The journal lets a write of the output root survive being killed. A write
// first records its intent (folders to make, files to stage with the digests
// of their bytes, generated files to remove, existing files to back up). It
// then links a backup beside every file it will replace or remove, stages
// every file, and appends a commit record: the commit point. Only then does
// it rename staged files into place and remove stale ones; backups and the
// journal go last. Whoever later finds a journal completes the write if it
// is committed and every staged file is there, and otherwise undoes it:
// nothing was renamed before the commit point.
//
// A committed write that cannot complete (a rename refused: an immutable
// file, a read-only file system) is rolled back: a rollback record is
// appended and the backups renamed back, so the output folder again holds
// the previous render, whole. Linking the backup also checks, before the
// commit point, that a file can be replaced: link(2) refuses an immutable
// or append-only file as rename(2) would.
//
// The journal is text, a line per entry, paths quoted as Go strings:
//
//	platc journal 2
//	root "out"
//	mkdir "out/deploy/clusters/dev"
//	write "out/deploy/clusters/dev/apps.yaml" <sha256 of the new bytes>
//	edit "sources/platform.cue" <sha256 of the new bytes>
//	remove "out/stacks/old.yaml"
//	backup "out/deploy/clusters/dev/apps.yaml"
//	commit <sha256 of every line before>
//	rollback
//
// write: a file of the output root, staged as ".<name>.platc-tmp" beside
// its target. edit: a spec file a release edits, outside the output root,
// staged the same way. mkdir: a folder the write creates, parents first.
// backup: an existing target of a write, edit or remove, kept as
// ".<name>.platc-old". A version 1 journal has no backups and is never
// rolled back.

// JournalName is the journal's name in the output root.
const JournalName = ".platc-journal"

const (
	journalMagic   = "platc journal 2"
	journalMagicV1 = "platc journal 1"
	stagedSuffix   = ".platc-tmp"
	backupSuffix   = ".platc-old"
	rollbackRecord = "rollback\n"
)

// journal is a write's intent.
type journal struct {
	root    string   // the output root
	mkdirs  []string // folders to make, parents first
	writes  []entry  // files of the output root
	edits   []entry  // files outside it (release's spec edits)
	removes []string // stale generated files
	backups []string // targets of writes, edits and removes that exist

	// version 1 journals have no backups: they cannot be rolled back.
	version int
	// rollingBack: the journal has a rollback record.
	rollingBack bool
}

// entry is a file to stage and rename into place.
type entry struct {
	path   string
	digest string // hex SHA-256 of data
	data   []byte // nil when read back from a journal
}

func newEntry(p string, data []byte) entry {
	return entry{path: p, digest: fullDigest(data), data: data}
}

func fullDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// staged are the files the journal stages, output files first.
func (j *journal) staged() []entry {
	return append(append([]entry(nil), j.writes...), j.edits...)
}

func (j *journal) empty() bool {
	return len(j.writes) == 0 && len(j.edits) == 0 && len(j.removes) == 0
}

// stagedName is where the file p is staged: beside it, hidden.
func stagedName(p string) string {
	dir, name := path.Split(p)
	return dir + "." + name + stagedSuffix
}

// backupName is where the file p is backed up: beside it, hidden.
func backupName(p string) string {
	dir, name := path.Split(p)
	return dir + "." + name + backupSuffix
}

// isStagedName reports whether the base name of p is one a staged file has.
func isStagedName(p string) bool { return hasHiddenSuffix(p, stagedSuffix) }

// isBackupName reports whether the base name of p is one a backup has.
func isBackupName(p string) bool { return hasHiddenSuffix(p, backupSuffix) }

func hasHiddenSuffix(p, suffix string) bool {
	name := path.Base(p)
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, suffix) && len(name) > 1+len(suffix)
}

// intent is the journal without its commit record.
func (j *journal) intent() []byte {
	var b bytes.Buffer
	b.WriteString(journalMagic + "\n")
	fmt.Fprintf(&b, "root %s\n", strconv.Quote(j.root))
	for _, d := range j.mkdirs {
		fmt.Fprintf(&b, "mkdir %s\n", strconv.Quote(d))
	}
	for _, e := range j.writes {
		fmt.Fprintf(&b, "write %s %s\n", strconv.Quote(e.path), e.digest)
	}
	for _, e := range j.edits {
		fmt.Fprintf(&b, "edit %s %s\n", strconv.Quote(e.path), e.digest)
	}
	for _, p := range j.removes {
		fmt.Fprintf(&b, "remove %s\n", strconv.Quote(p))
	}
	for _, p := range j.backups {
		fmt.Fprintf(&b, "backup %s\n", strconv.Quote(p))
	}
	return b.Bytes()
}

// commitRecord is the line that commits the journal whose intent is intent.
func commitRecord(intent []byte) []byte {
	return []byte("commit " + fullDigest(intent) + "\n")
}

// parseJournal reads a journal of the output root outDir. committed says
// whether its commit record is there and matches. The error says why it
// cannot be read: torn, or not what platc writes. It refuses anything a
// write of outDir would not write: an unknown line, a path out of place (a
// write, mkdir or remove outside the output root; an edit inside it or of
// a non-.cue file), a path twice, platc's own files as targets, a backup of
// a path not written, edited or removed, or a rollback in a version 1
// journal. j.rollingBack says whether a committed journal has its rollback
// record.
func parseJournal(data []byte, outDir string) (j *journal, committed bool, err error) {
	j = &journal{}
	rest := data
	line := func() (string, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", false
		}
		l := string(rest[:i])
		rest = rest[i+1:]
		return l, true
	}
	bad := func(format string, args ...any) (*journal, bool, error) {
		return nil, false, fmt.Errorf(format, args...)
	}
	switch l, _ := line(); l {
	case journalMagic:
		j.version = 2
	case journalMagicV1:
		j.version = 1
	default:
		return bad("it does not start with %q", journalMagic)
	}
	l, ok := line()
	if !ok {
		return bad("no root")
	}
	root, tail, err := quotedField(l, "root")
	if err != nil || tail != "" || root != outDir {
		return bad("its root is not %q", outDir)
	}
	j.root = root
	seen, backedUp := map[string]bool{}, map[string]bool{}
	inRoot := func(p string) bool { return strings.HasPrefix(p, outDir+"/") }
	for {
		start := len(data) - len(rest)
		l, ok := line()
		if !ok {
			if len(rest) > 0 {
				return bad("a torn last line")
			}
			return j, false, nil
		}
		kind, _, _ := strings.Cut(l, " ")
		if kind == "commit" {
			if l != strings.TrimSuffix(string(commitRecord(data[:start])), "\n") {
				return bad("its commit record does not match it")
			}
			switch {
			case len(rest) == 0:
			case j.version >= 2 && string(rest) == rollbackRecord:
				j.rollingBack = true
			case j.version >= 2 && strings.HasPrefix(rollbackRecord, string(rest)):
				// a torn rollback record: the rollback had not started
			default:
				return bad("lines after its commit record")
			}
			return j, true, nil
		}
		p, tail, err := quotedField(l, kind)
		if err != nil || !cleanPath(p) {
			return bad("line %q", l)
		}
		if kind == "backup" {
			// after the entries it backs up, once each
			if tail != "" || !seen[p] || backedUp[p] || j.version < 2 || slices.Contains(j.mkdirs, p) {
				return bad("line %q", l)
			}
			backedUp[p] = true
			j.backups = append(j.backups, p)
			continue
		}
		if seen[p] || len(j.backups) > 0 {
			return bad("line %q", l)
		}
		seen[p] = true
		reserved := isStagedName(p) || isBackupName(p) || p == outDir+"/"+JournalName || p == outDir+"/"+LockName
		switch kind {
		case "mkdir":
			if tail != "" || !inRoot(p) || reserved {
				return bad("line %q", l)
			}
			j.mkdirs = append(j.mkdirs, p)
		case "write":
			if !isDigest(tail) || !inRoot(p) || reserved {
				return bad("line %q", l)
			}
			j.writes = append(j.writes, entry{path: p, digest: tail})
		case "edit":
			if !isDigest(tail) || inRoot(p) || !isSpecFile(p) || reserved {
				return bad("line %q", l)
			}
			j.edits = append(j.edits, entry{path: p, digest: tail})
		case "remove":
			// A stale file may be a staged file an older platc left:
			// Scan takes it for a generated file.
			if tail != "" || !inRoot(p) || p == outDir+"/"+JournalName || p == outDir+"/"+LockName {
				return bad("line %q", l)
			}
			j.removes = append(j.removes, p)
		default:
			return bad("line %q", l)
		}
	}
}

// isSpecFile reports whether p can be a spec file, which a release edits.
func isSpecFile(p string) bool { return path.Ext(p) == ".cue" }

// quotedField reads `kind "quoted" tail` and returns the unquoted string
// and the tail.
func quotedField(l, kind string) (string, string, error) {
	rest, ok := strings.CutPrefix(l, kind+" ")
	if !ok {
		return "", "", errors.New("no such field")
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", err
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		return "", "", err
	}
	tail := rest[len(q):]
	if tail != "" && !strings.HasPrefix(tail, " ") {
		return "", "", errors.New("no space after the path")
	}
	return s, strings.TrimPrefix(tail, " "), nil
}

// cleanPath reports whether p is a clean slash-separated path inside the
// repository.
func cleanPath(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../") &&
		!strings.ContainsAny(p, "\\\x00")
}

// isDigest reports whether s is a hex SHA-256, as fullDigest writes it.
func isDigest(s string) bool { return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "" }
