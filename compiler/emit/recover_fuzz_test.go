package emit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenarioJournals returns the journal of the scenario's write as it is
// on disk before its commit point (its intent) and after (committed).
func scenarioJournals(t testing.TB) (intent, committed []byte) {
	s := newScenario()
	for _, stop := range []StepKind{StepCommit, StepRename} {
		dir := s.setUp(t)
		writeKilled(t, s, dir, func(st Step) error {
			if st.Kind == stop {
				panic(errKilled)
			}
			return nil
		})
		data, err := os.ReadFile(filepath.Join(dir, "out", JournalName))
		if err != nil {
			t.Fatal(err)
		}
		if stop == StepCommit {
			intent = data
		} else {
			committed = data
		}
	}
	return intent, committed
}

// Each staged file of the scenario, in a state a fuzzed input picks.
const (
	notStaged = iota // not staged (yet)
	staged           // staged, whole
	renamed          // renamed into place
	torn             // staged, but only half written
)

// FuzzRecover recovers a repository from a journal and a state of the
// staged files and targets, both fuzzed: the journal's bytes (sealed with
// a valid commit record when seal is set, so that what it says is acted
// on), and for each file of the scenario's write whether it is staged,
// renamed into place, or half written, and whether the stale files are
// gone. Recover must never panic, never change a file platc does not own,
// leave every file of the render either as it was or as the render has
// it, and leave no journal and no staged file in the output root (a
// staged spec edit, outside it, only goes when the journal names it). Where
// the state is one a killed write leaves (the journal is the write's own,
// torn, before or after its commit point, and the files are as the write
// leaves them there), the repository must be exactly the old one or
// exactly the new one.
func FuzzRecover(f *testing.F) {
	intent, committed := scenarioJournals(f)
	const allStaged = 0b01_01_01_01_01
	f.Add(committed, false, uint32(allStaged))
	f.Add(committed, false, uint32(0b10_01_10_01_10))
	f.Add(committed, false, uint32(0b10_10_10_10_10|1<<20))
	f.Add(intent, false, uint32(0))
	f.Add(intent, false, uint32(0b11_01_00_01_11))
	f.Add(intent, true, uint32(allStaged))
	f.Add(intent[:len(intent)/2], false, uint32(0))
	f.Add(intent[:bytes.LastIndexByte(intent[:len(intent)-1], '\n')+1], false, uint32(0))
	f.Add(committed, false, uint32(0b00_01_01_01_01))
	f.Add([]byte("garbage"), true, uint32(allStaged))
	f.Add([]byte(journalMagic+"\nroot \"out\"\nremove \"out/README.md\"\nremove \"out/keep.yaml\"\nmkdir \"out/deploy\"\n"), true, uint32(0))
	f.Add([]byte(journalMagic+"\nroot \"out\"\nwrite \"out/foreign.yaml\" "+fullDigest([]byte(gen("new\n")))+"\n"), true, uint32(allStaged))
	f.Add([]byte(journalMagic+"\nroot \"out\"\nedit \"sources/platform.cue\" "+fullDigest(newScenario().also[0].Data)+"\n"), true, uint32(allStaged))
	// Rolling back: the backups there, the files in any state.
	rollingBack := append(append([]byte(nil), committed...), rollbackRecord...)
	f.Add(rollingBack, false, uint32(0b10_01_10_01_10|1<<21))
	f.Add(rollingBack, false, uint32(0b10_10_10_10_10|1<<20|1<<21))
	f.Add(rollingBack, false, uint32(allStaged|1<<21))
	f.Add(committed, false, uint32(0b10_11_10_01_10|1<<21))
	f.Add(committed, false, uint32(0b10_00_10_10_10|1<<20|1<<21))
	cj, _, err := parseJournal(committed, "out")
	if err != nil {
		f.Fatal(err)
	}
	s := newScenario()
	before, after := s.want(f)
	f.Fuzz(func(t *testing.T, journal []byte, seal bool, mask uint32) {
		dir := s.setUp(t)
		if seal {
			body := journal
			if i := bytes.LastIndex(body, []byte("\ncommit ")); i >= 0 {
				body = body[:i+1]
			}
			journal = append(append([]byte(nil), body...), commitRecord(body)...)
		}
		write := func(p string, data []byte) {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, data, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		write("out/"+JournalName, journal)
		files := append(append([]Output(nil), s.outs...), s.also...)
		var states []int
		for _, o := range files {
			if before[o.Path] == string(o.Data) {
				continue // unchanged: not staged
			}
			state := int(mask>>(2*len(states))) & 3
			states = append(states, state)
			switch state {
			case staged:
				write(stagedName(o.Path), o.Data)
			case renamed:
				write(o.Path, o.Data)
			case torn:
				write(stagedName(o.Path), o.Data[:len(o.Data)/2])
			}
		}
		// The backups a write makes before its commit point, when the
		// journal is committed.
		backedUp := mask&(1<<21) != 0
		if backedUp {
			for _, p := range cj.backups {
				write(backupName(p), []byte(before[p]))
			}
		}
		staleGone := mask&(1<<20) != 0
		if staleGone {
			for p := range before {
				if _, ok := after[p]; !ok && !strings.HasSuffix(p, "/") {
					if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
						t.Fatal(err)
					}
				}
			}
		}

		rec, err := Recover(openRoot(t, dir), "out", RecoverOptions{})

		got := tree(t, dir)
		for p, data := range foreignFiles {
			if got[p] != data {
				t.Fatalf("Recover (%v, %v) changed %s, which platc does not own", rec, err, p)
			}
		}
		for p, data := range got {
			if strings.HasSuffix(p, "/") {
				continue
			}
			if _, foreign := foreignFiles[p]; !foreign && data != before[p] && data != after[p] && !(isStagedName(p) && err != nil) && p != stagedName(s.also[0].Path) {
				t.Fatalf("Recover (%v, %v) left %s holding %q: neither the old nor the new bytes", rec, err, p, data)
			}
		}
		if err != nil {
			return // a recovery that fails keeps its journal to try again
		}
		if _, ok := got["out/"+JournalName]; ok {
			t.Fatalf("Recover (%v) left the journal", rec)
		}
		fs.WalkDir(os.DirFS(dir), "out", func(p string, d fs.DirEntry, err error) error {
			if err == nil && (isStagedName(p) || isBackupName(p)) {
				t.Fatalf("Recover (%v) left the staged file or backup %s", rec, p)
			}
			return nil
		})

		all := func(ok func(int) bool) bool {
			for _, st := range states {
				if !ok(st) {
					return false
				}
			}
			return true
		}
		complete := all(func(s int) bool { return s == staged || s == renamed }) && (!staleGone || all(func(s int) bool { return s == renamed }))
		switch {
		case bytes.Equal(journal, committed) && complete:
			assertTree(t, dir, after, "new")
		case backedUp && (bytes.Equal(journal, rollingBack) || bytes.Equal(journal, committed) && !complete):
			// Being rolled back, or committed but not to be completed,
			// with every backup there: the old files, exactly.
			assertTree(t, dir, before, "old")
		case bytes.Equal(journal, intent) && all(func(s int) bool { return s != renamed }) && !staleGone,
			bytes.HasPrefix(intent, journal) && all(func(s int) bool { return s == notStaged }) && !staleGone:
			assertTree(t, dir, before, "old")
		}
	})
}
