package emit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A scenario is a repository before a render (old) and the render to
// write into it: files that stay, change, appear in new folders and go
// (one leaving its folder empty), beside files platc does not own, and a
// spec file a release edits.
type scenario struct {
	old  map[string]string
	outs []Output
	also []Output
}

// foreignFiles are the files of the scenario platc does not own: no write
// or recovery may change them.
var foreignFiles = map[string]string{
	"README.md":           "the repository\n",
	".git/config":         "[core]\n",
	"sources/notes.txt":   "notes\n",
	"out/README.md":       "someone's notes in the output folder\n",
	"out/foreign.yaml":    "kind: ConfigMap # written by hand\n",
	"out/mixed/notes.txt": "a foreign file beside a stale one\n",
}

func newScenario() scenario {
	old := map[string]string{
		"sources/platform.cue":              "package platform\nrevision: \"v1.0.0\"\n",
		"out/keep.yaml":                     gen("keep\n"),
		"out/change.yaml":                   gen("old\n"),
		"out/deploy/clusters/dev/apps.yaml": gen("dev apps, old\n"),
		"out/stale/group/apps.yaml":         gen("a removed group\n"),
		"out/mixed/old.yaml":                gen("stale beside a foreign file\n"),
	}
	for p, data := range foreignFiles {
		old[p] = data
	}
	return scenario{
		old: old,
		outs: []Output{
			{Path: "out/change.yaml", Data: []byte(gen("new\n"))},
			{Path: "out/deploy/clusters/dev/apps.yaml", Data: []byte(gen("dev apps, new\n"))},
			{Path: "out/deploy/clusters/prod/apps.yaml", Data: []byte(gen("prod apps\n"))},
			{Path: "out/keep.yaml", Data: []byte(gen("keep\n"))},
			{Path: "out/stacks/a/b.yaml", Data: []byte(gen("in two new folders\n"))},
		},
		also: []Output{{Path: "sources/platform.cue", Data: []byte("package platform\nrevision: \"v1.1.0\"\n")}},
	}
}

// setUp writes the scenario's old repository into a new folder.
func (s scenario) setUp(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	makeTree(t, dir, s.old)
	return dir
}

// write writes the scenario's render into the repository at dir, as the
// CLI does: with the spec edit, after a scan.
func (s scenario) write(t testing.TB, dir string, opts Options) (*Result, error) {
	t.Helper()
	root := openRoot(t, dir)
	opts.Also = s.also
	return Write(root, "out", scan(t, root), s.outs, opts)
}

// want returns the repository before and after the scenario's write, made
// by a write that nothing disturbs.
func (s scenario) want(t testing.TB) (before, after map[string]string) {
	t.Helper()
	dir := s.setUp(t)
	before = tree(t, dir)
	if _, err := s.write(t, dir, Options{}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	after = tree(t, dir)
	for _, o := range s.also {
		if after[o.Path] != string(o.Data) {
			t.Fatalf("%s was not edited", o.Path)
		}
	}
	return before, after
}

// steps returns the steps of the scenario's write, in the order of the
// calls of the fault hook (the staged writes and renames run in
// parallel: their order among themselves varies, not the phases).
func (s scenario) steps(t testing.TB) []Step {
	t.Helper()
	var mu sync.Mutex
	var steps []Step
	dir := s.setUp(t)
	_, err := s.write(t, dir, Options{Fault: func(st Step) error {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, st)
		return nil
	}})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return steps
}

// beforeCommit reports whether a write stopped at a step of this kind,
// before the step, has not reached its commit point.
func beforeCommit(k StepKind) bool { return k <= StepCommit }

// recoverFresh recovers the repository at dir as a new process would.
func recoverFresh(t testing.TB, dir string, opts RecoverOptions) (Recovery, error) {
	t.Helper()
	return Recover(openRoot(t, dir), "out", opts)
}

// assertTree requires dir to hold exactly want, and says which state it
// should have been.
func assertTree(t testing.TB, dir string, want map[string]string, which string) {
	t.Helper()
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("the repository is not exactly the %s one (-want +got):\n%s", which, diff)
	}
}

func TestWriteWithTheJournal(t *testing.T) {
	s := newScenario()
	dir := s.setUp(t)
	res, err := s.write(t, dir, Options{})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	wantRes := &Result{
		Written:   []string{"out/change.yaml", "out/deploy/clusters/dev/apps.yaml", "out/deploy/clusters/prod/apps.yaml", "out/stacks/a/b.yaml"},
		Unchanged: []string{"out/keep.yaml"},
		Removed:   []string{"out/mixed/old.yaml", "out/stale/group/apps.yaml"},
	}
	if diff := cmp.Diff(wantRes, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"out/":                               "",
		"out/keep.yaml":                      gen("keep\n"),
		"out/change.yaml":                    gen("new\n"),
		"out/deploy/":                        "",
		"out/deploy/clusters/":               "",
		"out/deploy/clusters/dev/":           "",
		"out/deploy/clusters/dev/apps.yaml":  gen("dev apps, new\n"),
		"out/deploy/clusters/prod/":          "",
		"out/deploy/clusters/prod/apps.yaml": gen("prod apps\n"),
		"out/stacks/":                        "",
		"out/stacks/a/":                      "",
		"out/stacks/a/b.yaml":                gen("in two new folders\n"),
		"out/mixed/":                         "",
		"sources/":                           "",
		"sources/platform.cue":               "package platform\nrevision: \"v1.1.0\"\n",
		".git/":                              "",
	}
	for p, data := range foreignFiles {
		want[p] = data
	}
	assertTree(t, dir, want, "new")
}

func TestWriteStepsInOrder(t *testing.T) {
	var kinds []string
	for _, st := range newScenario().steps(t) {
		if n := len(kinds); n == 0 || kinds[n-1] != st.Kind.String() {
			kinds = append(kinds, st.Kind.String())
		}
	}
	want := []string{"journal", "mkdir", "backup", "stage", "commit", "rename", "remove", "drop-backup", "remove-folder", "done"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("phases of a write (-want +got):\n%s", diff)
	}
}

func TestWriteOfNothingWritesNoJournal(t *testing.T) {
	s := newScenario()
	dir := s.setUp(t)
	if _, err := s.write(t, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	var steps []Step
	res, err := Write(root, "out", scan(t, root), s.outs, Options{Fault: func(st Step) error {
		steps = append(steps, st)
		return nil
	}})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if len(res.Written) != 0 || len(res.Removed) != 0 || len(steps) != 0 {
		t.Errorf("an up-to-date write wrote %v, removed %v, took the steps %v: want none", res.Written, res.Removed, steps)
	}
}

var errFault = errors.New("injected fault")

// TestWriteFailsAtEveryStep fails each step of a write in turn: a failure
// before the commit point leaves the repository exactly as it was, with
// nothing staged and no journal; after it, the journal stays and a
// recovery completes the write.
func TestWriteFailsAtEveryStep(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	for k, step := range s.steps(t) {
		t.Run(fmt.Sprintf("%d-%s", k, step.Kind), func(t *testing.T) {
			dir := s.setUp(t)
			var calls atomic.Int64
			var failed Step
			_, err := s.write(t, dir, Options{Fault: func(st Step) error {
				if calls.Add(1)-1 == int64(k) {
					failed = st
					return errFault
				}
				return nil
			}})
			if !errors.Is(err, errFault) {
				t.Fatalf("Write error = %v, want the injected fault", err)
			}
			if beforeCommit(failed.Kind) {
				assertTree(t, dir, before, "old")
				return
			}
			if applying(failed.Kind) {
				// A rename or remove failed: the write rolled back.
				if !strings.HasSuffix(err.Error(), ": rolled the write back, out/ is as it was") {
					t.Errorf("Write error = %q, want it rolled back", err)
				}
				assertTree(t, dir, before, "old")
				return
			}
			// Every file was in place: only the tidying failed.
			if !strings.HasSuffix(err.Error(), ": out/ holds the new render; the next platc command removes what the write left") {
				t.Errorf("Write error = %q, want it to say that the render is in place", err)
			}
			rec, err := recoverFresh(t, dir, RecoverOptions{})
			if err != nil || rec.Kind != Completed {
				t.Fatalf("Recover = %v, %v, want it completed", rec, err)
			}
			assertTree(t, dir, after, "new")
		})
	}
}

// applying reports whether a write at a step of kind k has passed its
// commit point and not yet put every file in place.
func applying(k StepKind) bool { return k == StepRename || k == StepRemove }

// errKilled is the panic of a write killed at a step.
var errKilled = errors.New("killed")

// killAt returns a fault hook that kills the process at its k-th call: it
// panics there and at every later call (of other goroutines), so that
// nothing is done after, and nothing undone.
func killAt(k int) (hook func(Step) error, killed func() (Step, bool)) {
	var calls atomic.Int64
	var mu sync.Mutex
	var at Step
	var dead bool
	hook = func(st Step) error {
		mu.Lock()
		if calls.Add(1)-1 == int64(k) {
			at, dead = st, true
		}
		isDead := dead
		mu.Unlock()
		if isDead {
			panic(errKilled)
		}
		return nil
	}
	return hook, func() (Step, bool) {
		mu.Lock()
		defer mu.Unlock()
		return at, dead
	}
}

// writeKilled runs the scenario's write in dir with the hook, which kills
// it; it requires the write to have died.
func writeKilled(t testing.TB, s scenario, dir string, hook func(Step) error) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("the write was not killed")
		}
	}()
	s.write(t, dir, Options{Fault: hook})
}

// TestWriteKilledAtEveryStep kills a write at each step in turn (the
// process dies there: nothing after the step happens, nothing is
// cleaned), then recovers the repository as the next platc would, and
// requires it to be exactly the old one (killed before the commit point)
// or exactly the new one (after), with no staged file or journal left.
// It also kills recoveries at each of their steps and recovers again.
func TestWriteKilledAtEveryStep(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	steps := s.steps(t)
	for k := range steps {
		// A recovery is killed at each of its steps after the first kill
		// at each kind of step of the write.
		killRecovery := k == 0 || steps[k-1].Kind != steps[k].Kind
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			dir := s.setUp(t)
			hook, killed := killAt(k)
			writeKilled(t, s, dir, hook)
			at, _ := killed()
			want, which, kind := after, "new", Completed
			if beforeCommit(at.Kind) {
				want, which, kind = before, "old", Undone
				if at.Kind == StepJournal {
					kind = NoJournal
				}
			}
			crashed := tree(t, dir)
			rec, err := recoverFresh(t, dir, RecoverOptions{})
			if err != nil {
				t.Fatalf("Recover after a kill at %v: %v", at, err)
			}
			if rec.Kind != kind {
				t.Errorf("Recover after a kill at %v: %v, want kind %d", at, rec, kind)
			}
			assertTree(t, dir, want, which)
			if !killRecovery {
				return
			}

			// The recovery killed at each of its steps, and recovered
			// again.
			var recoverySteps atomic.Int64 // steps run on several goroutines
			dir2 := t.TempDir()
			makeFlatTree(t, dir2, crashed)
			recoverFresh(t, dir2, RecoverOptions{Fault: func(Step) error { recoverySteps.Add(1); return nil }})
			for m := range int(recoverySteps.Load()) {
				dir3 := t.TempDir()
				makeFlatTree(t, dir3, crashed)
				hook, _ := killAt(m)
				func() {
					defer func() { recover() }()
					recoverFresh(t, dir3, RecoverOptions{Fault: hook})
				}()
				if _, err := recoverFresh(t, dir3, RecoverOptions{}); err != nil {
					t.Fatalf("Recover after a recovery killed at its step %d: %v", m, err)
				}
				assertTree(t, dir3, want, which)
			}
		})
	}
}

// makeFlatTree writes a tree as tree returns it (folders as paths with a
// trailing slash) into dir.
func makeFlatTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o777); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteInterruptedAtEveryStep interrupts a write (SIGINT, SIGTERM) at
// each step: before the commit point it undoes what it did and says so;
// after, it finishes.
func TestWriteInterruptedAtEveryStep(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	for k := range s.steps(t) {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			dir := s.setUp(t)
			interrupt := make(chan struct{})
			var calls atomic.Int64
			var once sync.Once
			var at Step
			_, err := s.write(t, dir, Options{Interrupt: interrupt, Fault: func(st Step) error {
				if calls.Add(1)-1 == int64(k) {
					once.Do(func() { at = st; close(interrupt) })
				}
				return nil
			}})
			if beforeCommit(at.Kind) {
				if !errors.Is(err, ErrInterrupted) {
					t.Fatalf("Write interrupted at %v: error %v, want ErrInterrupted", at, err)
				}
				assertTree(t, dir, before, "old")
				return
			}
			if err != nil {
				t.Fatalf("Write interrupted at %v, after the commit point: %v, want it finished", at, err)
			}
			assertTree(t, dir, after, "new")
		})
	}
}

func TestWriteUndoesAFailedStagingIntoANewOutputRoot(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"sources/platform.cue": "package platform\n"})
	root := openRoot(t, dir)
	outs := []Output{{Path: "out/a/b.yaml", Data: []byte(gen("b\n"))}, {Path: "out/c.yaml", Data: []byte(gen("c\n"))}}
	_, err := Write(root, "out", scan(t, root), outs, Options{Fault: func(st Step) error {
		if st.Kind == StepStage && st.Path == "out/.c.yaml.platc-tmp" {
			return errFault
		}
		return nil
	}})
	if !errors.Is(err, errFault) {
		t.Fatalf("Write error = %v, want the fault", err)
	}
	// The output root itself stays, empty: there is no folder to find the
	// journal in before it.
	assertTree(t, dir, map[string]string{"out/": "", "sources/": "", "sources/platform.cue": "package platform\n"}, "old")
}

func TestWriteRollsBackARenameThatFailed(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	dir := s.setUp(t)
	// A rename fails after the commit point (a file system gone read-only,
	// say): the write puts back what it had renamed and removed, and the
	// output folder holds the previous render, whole, with no journal.
	failing := true
	fault := func(st Step) error {
		if failing && st.Kind == StepRename && st.Path == "out/deploy/clusters/prod/apps.yaml" {
			return errFault
		}
		return nil
	}
	_, err := s.write(t, dir, Options{Fault: fault})
	if !errors.Is(err, errFault) || !strings.HasSuffix(err.Error(), ": rolled the write back, out/ is as it was") {
		t.Fatalf("Write error = %v, want the fault, rolled back", err)
	}
	assertTree(t, dir, before, "old")
	// Once the cause is gone, the next write writes.
	failing = false
	if _, err := s.write(t, dir, Options{Fault: fault}); err != nil {
		t.Fatal(err)
	}
	assertTree(t, dir, after, "new")
}

// stageOnly runs the scenario's write up to its commit point, and kills
// it there: the journal's intent and every staged file are on disk.
func stageOnly(t *testing.T, s scenario, dir string) {
	t.Helper()
	hook := func(st Step) error {
		if st.Kind == StepCommit {
			panic(errKilled)
		}
		return nil
	}
	writeKilled(t, s, dir, hook)
}

// commitOnly runs the scenario's write through its commit point, and kills
// it before the first rename.
func commitOnly(t *testing.T, s scenario, dir string) {
	t.Helper()
	hook := func(st Step) error {
		if st.Kind == StepRename {
			panic(errKilled)
		}
		return nil
	}
	writeKilled(t, s, dir, hook)
}

func TestRecoverUndoesAWriteBeforeItsCommitPoint(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	dir := s.setUp(t)
	stageOnly(t, s, dir)
	rec, err := recoverFresh(t, dir, RecoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "out/: undid a write that was interrupted before its commit point (5 staged files removed): the files are as they were"
	if rec.String() != want {
		t.Errorf("Recovery = %q, want %q", rec, want)
	}
	assertTree(t, dir, before, "old")
	if rec, err := recoverFresh(t, dir, RecoverOptions{}); rec.Kind != NoJournal || err != nil || rec.String() != "" {
		t.Errorf("a second Recover = %v, %v, want nothing to do", rec, err)
	}
}

func TestRecoverRollsBackACommittedWriteWithAStagedFileMissing(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	dir := s.setUp(t)
	commitOnly(t, s, dir)
	if err := os.Remove(filepath.Join(dir, "out", ".change.yaml.platc-tmp")); err != nil {
		t.Fatal(err)
	}
	rec, err := recoverFresh(t, dir, RecoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "out/: rolled back a write that was interrupted after its commit point (it could not be completed: out/change.yaml: its staged file is missing): it had replaced nothing yet, the files are as they were before it"
	if rec.String() != want {
		t.Errorf("Recovery = %q, want %q", rec, want)
	}
	// Nothing was renamed yet: the files are the old ones.
	assertTree(t, dir, before, "old")
}

func TestRecoverNeverWritesOverAFileItDidNotGenerate(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	dir := s.setUp(t)
	commitOnly(t, s, dir)
	// Someone put a file of their own where the render goes.
	mine := "mine, not platc's\n"
	if err := os.WriteFile(filepath.Join(dir, "out", "change.yaml"), []byte(mine), 0o666); err != nil {
		t.Fatal(err)
	}
	rec, err := recoverFresh(t, dir, RecoverOptions{})
	if err != nil || rec.Kind != RolledBack || !strings.Contains(rec.String(), "out/change.yaml: a file platc did not generate is in the way") {
		t.Fatalf("Recover = %q, %v, want it rolled back for the file in the way", rec, err)
	}
	before["out/change.yaml"] = mine
	assertTree(t, dir, before, "old")
}

func TestRecoverDiscardsAnUnreadableJournal(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	for name, journal := range map[string]func(valid []byte) []byte{
		"garbage": func([]byte) []byte { return []byte("\x00\xff not a journal\n") },
		"empty":   func([]byte) []byte { return nil },
		"tampered": func(valid []byte) []byte {
			return []byte(strings.Replace(string(valid), "change.yaml", "chance.yaml", 1))
		},
		"foreign root": func(valid []byte) []byte {
			return []byte(strings.Replace(string(valid), `root "out"`, `root "sources"`, 1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := s.setUp(t)
			commitOnly(t, s, dir)
			jpath := filepath.Join(dir, "out", JournalName)
			valid, err := os.ReadFile(jpath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(jpath, journal(valid), 0o666); err != nil {
				t.Fatal(err)
			}
			rec, err := recoverFresh(t, dir, RecoverOptions{})
			if err != nil || rec.Kind != Discarded {
				t.Fatalf("Recover = %q, %v, want the journal discarded", rec, err)
			}
			if !strings.Contains(rec.String(), "out/: removed a journal platc could not read (") || !strings.HasSuffix(rec.String(), ") and 8 files it had staged or backed up; the other files are as they are: run platc check") {
				t.Errorf("Recovery = %q", rec)
			}
			// The staged spec edit and its backup are outside the
			// output root: an unreadable journal does not say where
			// they are.
			want := merged(before, map[string]string{
				"sources/.platform.cue.platc-tmp": string(s.also[0].Data),
				"sources/.platform.cue.platc-old": before["sources/platform.cue"],
			})
			assertTree(t, dir, want, "old")
		})
	}
}

// merged returns a merged with b.
func merged(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestJournalRoundTrip(t *testing.T) {
	j := &journal{
		root:    "out",
		mkdirs:  []string{"out/a", "out/a/b c"},
		writes:  []entry{newEntry("out/a/b c/x.yaml", []byte("x")), newEntry("out/\"quoted\"\n.yaml", []byte("y"))},
		edits:   []entry{newEntry("sources/platform.cue", []byte("z"))},
		removes: []string{"out/old.yaml", "out/.left-by-an-old-platc.yaml.platc-tmp"},
		backups: []string{"out/a/b c/x.yaml", "sources/platform.cue", "out/old.yaml"},
		version: 2,
	}
	intent := j.intent()
	for _, committed := range []bool{false, true} {
		data := intent
		if committed {
			data = append(append([]byte(nil), intent...), commitRecord(intent)...)
		}
		got, gotCommitted, err := parseJournal(data, "out")
		if err != nil {
			t.Fatalf("parseJournal: %v\n%s", err, data)
		}
		if gotCommitted != committed {
			t.Errorf("committed = %v, want %v", gotCommitted, committed)
		}
		want := *j
		for _, es := range []*[]entry{&want.writes, &want.edits} {
			*es = append([]entry(nil), *es...)
			for i := range *es {
				(*es)[i].data = nil
			}
		}
		if diff := cmp.Diff(&want, got, cmp.AllowUnexported(journal{}, entry{})); diff != "" {
			t.Errorf("parseJournal (-want +got):\n%s", diff)
		}
	}
}

func TestParseJournalRefuses(t *testing.T) {
	d := fullDigest([]byte("x"))
	head := journalMagic + "\nroot \"out\"\n"
	for name, body := range map[string]string{
		"a write outside the output root": `write "sources/x.yaml" ` + d,
		"a write that escapes":            `write "out/../../etc/passwd" ` + d,
		"an absolute write":               `write "/etc/passwd" ` + d,
		"an edit inside the output root":  `edit "out/x.cue" ` + d,
		"an edit of a file not .cue":      `edit "README.md" ` + d,
		"a remove outside":                `remove "sources/platform.cue"`,
		"a remove of the lock's file":     `remove "out/.platc-lock"`,
		"a write of the journal":          `write "out/.platc-journal" ` + d,
		"a write of a staged file":        `write "out/.x.yaml.platc-tmp" ` + d,
		"a mkdir outside":                 `mkdir "sources/x"`,
		"a mkdir of the output root":      `mkdir "out"`,
		"a path twice":                    `write "out/x.yaml" ` + d + "\nremove \"out/x.yaml\"",
		"a short digest":                  `write "out/x.yaml" abc`,
		"an unknown line":                 `chmod "out/x.yaml"`,
		"an unquoted path":                `remove out/x.yaml`,
		"a backslash":                     `remove "out\\x.yaml"`,
		"a NUL":                           `remove "out/x\x00.yaml"`,
		"a backup of a path not written":  `write "out/x.yaml" ` + d + "\nbackup \"out/y.yaml\"",
		"a backup of a folder made":       `mkdir "out/a"` + "\nbackup \"out/a\"",
		"a backup twice":                  `remove "out/x.yaml"` + "\nbackup \"out/x.yaml\"\nbackup \"out/x.yaml\"",
		"an entry after a backup":         `remove "out/x.yaml"` + "\nbackup \"out/x.yaml\"\nremove \"out/y.yaml\"",
		"a backup with a tail":            `remove "out/x.yaml"` + "\nbackup \"out/x.yaml\" " + d,
	} {
		t.Run(name, func(t *testing.T) {
			intent := []byte(head + body + "\n")
			data := append(intent, commitRecord(intent)...)
			if _, _, err := parseJournal(data, "out"); err == nil {
				t.Errorf("parseJournal accepted\n%s", data)
			}
		})
	}
	valid := []byte(head + `remove "out/x.yaml"` + "\n")
	for name, data := range map[string][]byte{
		"a torn line":                 valid[:len(valid)-3],
		"a line after a commit":       append(append(append([]byte(nil), valid...), commitRecord(valid)...), "remove \"out/y.yaml\"\n"...),
		"a wrong commit":              append(append([]byte(nil), valid...), commitRecord([]byte("other"))...),
		"another root":                []byte(journalMagic + "\nroot \"build\"\n"),
		"another version":             []byte("platc journal 3\nroot \"out\"\n"),
		"a rollback without a commit": append(append([]byte(nil), valid...), rollbackRecord...),
		"a line after a rollback":     append(append(append([]byte(nil), valid...), commitRecord(valid)...), rollbackRecord+"rollback\n"...),
		"a backup in version 1": func() []byte {
			v1 := []byte(journalMagicV1 + "\nroot \"out\"\nremove \"out/x.yaml\"\nbackup \"out/x.yaml\"\n")
			return append(v1, commitRecord(v1)...)
		}(),
		"a rollback in version 1": func() []byte {
			v1 := []byte(journalMagicV1 + "\nroot \"out\"\nremove \"out/x.yaml\"\n")
			return append(append(v1, commitRecord(v1)...), rollbackRecord...)
		}(),
		"a torn commit":          append(append([]byte(nil), valid...), commitRecord(valid)[:20]...),
		"a commit without a cut": append(append([]byte(nil), valid...), strings.TrimSuffix(string(commitRecord(valid)), "\n")...),
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := parseJournal(data, "out"); err == nil {
				t.Errorf("parseJournal accepted\n%s", data)
			}
		})
	}
}

func TestScanSkipsPlatcOwnFiles(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{
		"out/" + JournalName:        "platc journal 1\n",
		"out/" + LockName:           "1 platc render\n",
		"out/a.yaml":                gen("a\n"),
		"out/sub/" + LockName:       "not at the root: a foreign file\n",
		"out/sub/.b.yaml.platc-tmp": gen("an old platc's staged file\n"),
	})
	st := scan(t, openRoot(t, dir))
	want := &State{
		Generated: files(map[string][]byte{"out/a.yaml": []byte(gen("a\n")), "out/sub/.b.yaml.platc-tmp": []byte(gen("an old platc's staged file\n"))}),
		Foreign:   []string{"out/sub/" + LockName},
		Folders:   map[string]bool{"out": true, "out/sub": true},
	}
	if diff := cmp.Diff(want, st, ignoreRead); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
}

func TestParseJournalReadsItsRollbackRecord(t *testing.T) {
	intent := []byte(journalMagic + "\nroot \"out\"\nremove \"out/x.yaml\"\nbackup \"out/x.yaml\"\n")
	committed := append(append([]byte(nil), intent...), commitRecord(intent)...)
	for name, tc := range map[string]struct {
		data        []byte
		rollingBack bool
	}{
		"committed":          {committed, false},
		"rolling back":       {append(append([]byte(nil), committed...), rollbackRecord...), true},
		"a torn rollback":    {append(append([]byte(nil), committed...), rollbackRecord[:3]...), false},
		"no newline at last": {append(append([]byte(nil), committed...), strings.TrimSuffix(rollbackRecord, "\n")...), false},
	} {
		t.Run(name, func(t *testing.T) {
			j, ok, err := parseJournal(tc.data, "out")
			if err != nil || !ok {
				t.Fatalf("parseJournal = %v, %v", ok, err)
			}
			if j.rollingBack != tc.rollingBack {
				t.Errorf("rollingBack = %v, want %v", j.rollingBack, tc.rollingBack)
			}
			if !slices.Equal(j.backups, []string{"out/x.yaml"}) {
				t.Errorf("backups = %q", j.backups)
			}
		})
	}
}

// TestWriteRollbackFailsOrIsKilledAtEveryStep fails the last rename of a
// write, and then fails or kills the rollback that follows at each of its
// steps: the next recovery leaves the old files, whole (or the new ones,
// when the rollback had not recorded itself and the cause is gone).
func TestWriteRollbackFailsOrIsKilledAtEveryStep(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	steps := s.steps(t)
	last := -1
	for k, st := range steps {
		if st.Kind == StepRename {
			last = k
		}
	}
	var rollback []Step
	var calls atomic.Int64
	_, err := s.write(t, s.setUp(t), Options{Fault: func(st Step) error {
		switch n := calls.Add(1) - 1; {
		case n == int64(last):
			return errFault
		case n > int64(last):
			rollback = append(rollback, st)
		}
		return nil
	}})
	if !errors.Is(err, errFault) {
		t.Fatalf("Write error = %v, want the fault", err)
	}
	var kinds []string
	for _, st := range rollback {
		if n := len(kinds); n == 0 || kinds[n-1] != st.Kind.String() {
			kinds = append(kinds, st.Kind.String())
		}
	}
	if diff := cmp.Diff([]string{"rollback", "restore", "unstage", "restore", "remove-folder", "done"}, kinds); diff != "" {
		t.Errorf("phases of a rollback (-want +got):\n%s", diff)
	}
	for m, st := range rollback {
		// Had the rollback not recorded itself, the next recovery
		// completes the write: nothing is in its way any more.
		want, which, kind := before, "old", RolledBack
		if st.Kind == StepRollback {
			want, which, kind = after, "new", Completed
		}
		t.Run(fmt.Sprintf("fail-%d-%s", m, st.Kind), func(t *testing.T) {
			dir := s.setUp(t)
			var calls atomic.Int64
			_, err := s.write(t, dir, Options{Fault: func(Step) error {
				if n := calls.Add(1) - 1; n == int64(last) || n == int64(last+1+m) {
					return errFault
				}
				return nil
			}})
			if st.Kind == StepDone {
				// Everything is back; only the journal is left.
				if !errors.Is(err, errFault) || !strings.HasSuffix(err.Error(), ": rolled the write back, out/ is as it was; removing the journal: injected fault: the next platc command removes it") {
					t.Fatalf("Write error = %v", err)
				}
			} else if !errors.Is(err, errFault) || !strings.HasSuffix(err.Error(), ": out/ is not whole until the next platc command completes the write or rolls it back") {
				t.Fatalf("Write error = %v, want the rollback to have failed", err)
			}
			rec, err := recoverFresh(t, dir, RecoverOptions{})
			if err != nil || rec.Kind != kind {
				t.Fatalf("Recover = %v, %v, want %v", rec, err, kind)
			}
			assertTree(t, dir, want, which)
		})
		t.Run(fmt.Sprintf("kill-%d-%s", m, st.Kind), func(t *testing.T) {
			dir := s.setUp(t)
			var calls atomic.Int64
			writeKilled(t, s, dir, func(Step) error {
				switch n := calls.Add(1) - 1; {
				case n == int64(last):
					return errFault
				case n >= int64(last+1+m):
					panic(errKilled)
				}
				return nil
			})
			rec, err := recoverFresh(t, dir, RecoverOptions{})
			if err != nil || rec.Kind != kind {
				t.Fatalf("Recover = %v, %v, want %v", rec, err, kind)
			}
			assertTree(t, dir, want, which)
		})
	}
}

// asVersion1 turns the committed journal of dir into the one a platc of
// journal version 1 wrote (no backups) and removes the backups, as that
// platc made none.
func asVersion1(t *testing.T, dir string) {
	t.Helper()
	jpath := filepath.Join(dir, "out", JournalName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	j, committed, err := parseJournal(data, "out")
	if err != nil || !committed {
		t.Fatalf("parseJournal = %v, %v", committed, err)
	}
	var intent strings.Builder
	for _, l := range strings.SplitAfter(string(j.intent()), "\n") {
		switch {
		case l == journalMagic+"\n":
			intent.WriteString(journalMagicV1 + "\n")
		case strings.HasPrefix(l, "backup "):
			p, _, _ := quotedField(strings.TrimSuffix(l, "\n"), "backup")
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(backupName(p)))); err != nil {
				t.Fatal(err)
			}
		default:
			intent.WriteString(l)
		}
	}
	v1 := []byte(intent.String())
	if err := os.WriteFile(jpath, append(v1, commitRecord(v1)...), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestRecoverReadsAJournalOfVersion1 recovers what a platc before backups
// left: a committed write is completed, and one that cannot be is
// abandoned (there is nothing to roll back to), as that platc did.
func TestRecoverReadsAJournalOfVersion1(t *testing.T) {
	s := newScenario()
	before, after := s.want(t)
	t.Run("completed", func(t *testing.T) {
		dir := s.setUp(t)
		commitOnly(t, s, dir)
		asVersion1(t, dir)
		rec, err := recoverFresh(t, dir, RecoverOptions{})
		if err != nil || rec.Kind != Completed {
			t.Fatalf("Recover = %v, %v, want it completed", rec, err)
		}
		assertTree(t, dir, after, "new")
	})
	t.Run("a rename refused", func(t *testing.T) {
		// Nothing to roll back to: the journal stays, and the next
		// recovery completes the write.
		dir := s.setUp(t)
		commitOnly(t, s, dir)
		asVersion1(t, dir)
		fault := func(st Step) error {
			if st.Kind == StepRename && st.Path == "out/change.yaml" {
				return errFault
			}
			return nil
		}
		if _, err := recoverFresh(t, dir, RecoverOptions{Fault: fault}); !errors.Is(err, errFault) {
			t.Fatalf("Recover error = %v, want the fault", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "out", JournalName)); err != nil {
			t.Fatalf("the journal is gone: %v", err)
		}
		rec, err := recoverFresh(t, dir, RecoverOptions{})
		if err != nil || rec.Kind != Completed {
			t.Fatalf("Recover = %v, %v, want it completed", rec, err)
		}
		assertTree(t, dir, after, "new")
	})
	t.Run("abandoned", func(t *testing.T) {
		dir := s.setUp(t)
		commitOnly(t, s, dir)
		asVersion1(t, dir)
		if err := os.Remove(filepath.Join(dir, "out", ".change.yaml.platc-tmp")); err != nil {
			t.Fatal(err)
		}
		rec, err := recoverFresh(t, dir, RecoverOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := "out/: could not complete a write that was interrupted after its commit point (out/change.yaml: its staged file is missing): removed its 4 staged files; run platc render"
		if rec.Kind != Abandoned || rec.String() != want {
			t.Errorf("Recovery = %q, want %q", rec, want)
		}
		// Nothing was renamed yet: the files are the old ones.
		assertTree(t, dir, before, "old")
	})
}

// TestWriteReplacesAStaleBackup finds a file where a backup goes (left by
// a copy of the folder): the write backs up over it, and a rollback puts
// the file it replaced back.
func TestWriteReplacesAStaleBackup(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	dir := s.setUp(t)
	if err := os.WriteFile(filepath.Join(dir, "out", ".change.yaml.platc-old"), []byte("stale\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := s.write(t, dir, Options{Fault: func(st Step) error {
		if st.Kind == StepRename && st.Path == "out/deploy/clusters/prod/apps.yaml" {
			return errFault
		}
		return nil
	}})
	if !errors.Is(err, errFault) {
		t.Fatalf("Write error = %v, want the fault", err)
	}
	assertTree(t, dir, before, "old")
}
