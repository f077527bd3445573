package emit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchOutputs is an output folder shaped like a large platform's (50
// environments of 24 files, each in a folder of its own but two): 1,200
// files of about 2 KB in about 1,100 folders.
func benchOutputs(version string) []Output {
	var outs []Output
	body := strings.Repeat("  key: a value of some length for the bytes\n", 45)
	for e := range 50 {
		env := fmt.Sprintf("out/deploy/clusters/env-%02d", e)
		add := func(p string) {
			b := "# " + p + " " + version + "\n" + body
			outs = append(outs, Output{Path: p, Data: []byte(headerFor(b) + b)})
		}
		add(env + "/apps.yaml")
		add(env + "/appprojects.yaml")
		for m := range 22 {
			add(fmt.Sprintf("%s/module-%02d/stack.yaml", env, m))
		}
	}
	return outs
}

func benchRoot(b testing.TB) (string, *os.Root) {
	b.Helper()
	dir := b.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return dir, root
}

func benchWrite(b *testing.B, root *os.Root, st *State, outs []Output) *Result {
	b.Helper()
	res, err := Write(root, "out", st, outs, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkWrite measures the writes of a render: into an output folder
// that is up to date (the everyday render: nothing to write), with one file
// changed, with every file changed, and into an empty one.
func BenchmarkWrite(b *testing.B) {
	outs := benchOutputs("v1")
	b.Run("up-to-date", func(b *testing.B) {
		_, root := benchRoot(b)
		benchWrite(b, root, &State{Generated: map[string]File{}}, outs)
		st, err := Scan(root.FS(), "out")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if res := benchWrite(b, root, st, outs); len(res.Written) != 0 {
				b.Fatalf("wrote %d files", len(res.Written))
			}
		}
	})
	b.Run("scan+up-to-date", func(b *testing.B) {
		_, root := benchRoot(b)
		benchWrite(b, root, &State{Generated: map[string]File{}}, outs)
		b.ReportAllocs()
		for b.Loop() {
			st, err := Scan(root.FS(), "out")
			if err != nil {
				b.Fatal(err)
			}
			benchWrite(b, root, st, outs)
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		_, root := benchRoot(b)
		benchWrite(b, root, &State{Generated: map[string]File{}}, outs)
		st, err := Scan(root.FS(), "out")
		if err != nil {
			b.Fatal(err)
		}
		versions := [2][]Output{append([]Output(nil), outs...), outs}
		changed := benchOutputs("v2")[7]
		versions[0][7] = changed
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			next := versions[i%2]
			if res := benchWrite(b, root, st, next); len(res.Written) != 1 {
				b.Fatalf("wrote %d files", len(res.Written))
			}
			st.Generated[next[7].Path] = fileOf(next[7].Data)
			i++
		}
	})
	b.Run("all-changed", func(b *testing.B) {
		// Every file replaced (a revision every Application names,
		// bumped): each one is backed up before the commit point.
		_, root := benchRoot(b)
		benchWrite(b, root, &State{Generated: map[string]File{}}, outs)
		versions := [2][]Output{benchOutputs("v2"), outs}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			b.StopTimer()
			st, err := Scan(root.FS(), "out")
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if res := benchWrite(b, root, st, versions[i%2]); len(res.Written) != len(outs) {
				b.Fatalf("wrote %d files", len(res.Written))
			}
			i++
		}
	})
	b.Run("fresh", func(b *testing.B) {
		dir, root := benchRoot(b)
		b.ReportAllocs()
		for b.Loop() {
			benchWrite(b, root, &State{Generated: map[string]File{}}, outs)
			b.StopTimer()
			if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}

// BenchmarkLock measures what a command adds to an up-to-date render
// before it reads the output folder: the lock, taken and released, and the
// look for a journal.
func BenchmarkLock(b *testing.B) {
	_, root := benchRoot(b)
	benchWrite(b, root, &State{Generated: map[string]File{}}, benchOutputs("v1"))
	b.ReportAllocs()
	for b.Loop() {
		l, err := LockOutput(root, "out", LockOptions{Holder: "platc render"})
		if err != nil || l == nil {
			b.Fatal(l, err)
		}
		if rec, err := Recover(root, "out", RecoverOptions{}); err != nil || rec.Kind != NoJournal {
			b.Fatal(rec, err)
		}
		l.Unlock()
	}
}
