package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/emit"
)

// memoRun is one platc check of dir: its result, and whether its memo
// answered.
type memoRun struct {
	code           int
	stdout, stderr string
	hit            bool
}

func checkWithMemo(t *testing.T, p cli.Process, dir string, args ...string) memoRun {
	t.Helper()
	var r memoRun
	p.MemoHit = func() { r.hit = true }
	r.code, r.stdout, r.stderr = run(t, p, append([]string{"check", "-C", dir}, args...)...)
	return r
}

// compiledCheck is the check of dir with the memo off, in the cache
// folder cache: what a check that compiles says.
func compiledCheck(t *testing.T, cache, dir string, args ...string) memoRun {
	t.Helper()
	t.Setenv(cli.CacheEnv, cache)
	t.Setenv(cli.MemoEnv, "off")
	defer os.Unsetenv(cli.MemoEnv)
	r := checkWithMemo(t, cli.Process{NoMemoSettle: true}, dir, args...)
	if r.hit {
		t.Fatal("a check that keeps no memo was answered from one")
	}
	return r
}

// TestCheckMemo: a check that passed is answered from its memo when
// nothing it read changed, saying exactly what the check that compiles
// says, in every format, and with each flag a memo of its own; any change
// to what it read or to the output folder makes the next check compile
// again (the chart cache's part: TestMemoArchives).
func TestCheckMemo(t *testing.T) {
	// A golden case whose check warns, so that the memo's problems are
	// seen in every format too.
	warns := t.TempDir()
	if err := os.CopyFS(warns, os.DirFS("../../golden/argocd-fields")); err != nil {
		t.Fatal(err)
	}
	dir := sample(t)
	cache, refCache := t.TempDir(), t.TempDir()
	p := cli.Process{NoMemoSettle: true}
	for _, repo := range []string{warns, dir} {
		for i, format := range []string{"text", "github", "json"} {
			want := compiledCheck(t, refCache, repo, "-format", format)
			if want.code != cli.ExitOK {
				t.Fatalf("the check of %s: exit %d\n%s%s", repo, want.code, want.stdout, want.stderr)
			}
			t.Setenv(cli.CacheEnv, cache)
			first := checkWithMemo(t, p, repo, "-format", format)
			second := checkWithMemo(t, p, repo, "-format", format)
			if i == 0 && first.hit {
				t.Error("the first check was answered from a memo")
			}
			if !second.hit {
				t.Errorf("-format %s: the second check of unchanged inputs compiled", format)
			}
			for _, got := range []memoRun{first, second} {
				if got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr {
					t.Errorf("-format %s (memo %v): exit %d\n%s%s\nwant exit %d\n%s%s", format, got.hit, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
				}
			}
		}
	}
	if want := compiledCheck(t, refCache, warns); !strings.Contains(want.stderr, "warning: ") {
		t.Fatalf("the check of golden/argocd-fields has no warning:\n%s", want.stderr)
	}

	// Other flags, another memo: -strict, and a client checkout named
	// another way (its files are named as written).
	stacks := t.TempDir()
	if err := os.CopyFS(stacks, os.DirFS("../../golden/stacks")); err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(stacks, "checkout")
	writeFile(t, checkout, "teams/green/cache/redis.yaml", "replica:\n  replicaCount: 5\n")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relative, err := filepath.Rel(wd, checkout)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-strict"}, {"-client-repo", "green=" + checkout}, {"-client-repo", "green=" + relative}} {
		repo := stacks
		if args[0] == "-strict" {
			repo = dir
		}
		want := compiledCheck(t, refCache, repo, args...)
		t.Setenv(cli.CacheEnv, cache)
		for i, wantHit := range []bool{false, true} {
			got := checkWithMemo(t, p, repo, args...)
			if got.hit != wantHit {
				t.Errorf("check %v, run %d: answered from a memo: %v", args, i, got.hit)
			}
			if got.code != cli.ExitOK || got.stdout != want.stdout || got.stderr != want.stderr {
				t.Errorf("check %v (memo %v): exit %d\n%s%s\nwant exit %d\n%s%s", args, got.hit, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			}
		}
	}

	changes := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"a spec file's bytes", func(t *testing.T) { appendTo(t, dir, "sources/platform.cue", "\n// a comment\n") }},
		{"a spec file touched", func(t *testing.T) { touch(t, dir, "sources/stacks.cue", time.Now()) }},
		{"a file replaced by one of the same size and time", func(t *testing.T) {
			name := filepath.Join(dir, "sources", "customer.cue")
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			// Same length, other bytes: a space where the first newline was.
			i := strings.IndexByte(string(data), '\n')
			data[i] = ' '
			data = append(data[:len(data)-1], '\n')
			writeFile(t, dir, "sources/customer.cue", string(data))
			touch(t, dir, "sources/customer.cue", info.ModTime()) // as cp -p, tar and rsync -a do
		}},
		{"a file added to the spec's folder", func(t *testing.T) { writeFile(t, dir, "sources/notes.txt", "not CUE\n") }},
		{"a missing file made (the lock)", func(t *testing.T) { writeFile(t, dir, "sources/charts.lock", "") }},
		{"a client's values file", func(t *testing.T) { appendTo(t, dir, "clients/payments/observability/loki.yaml", "\n# a comment\n") }},
		{"a kustomization's resource", func(t *testing.T) {
			appendTo(t, dir, "sources/manifests/budget-redis/service.yaml", "\n# a comment\n")
		}},
		{"a chart template of the repository", func(t *testing.T) {
			appendTo(t, dir, "sources/charts/rag-service/templates/service.yaml", "\n# a comment\n")
		}},
		{"an output file", func(t *testing.T) { appendTo(t, dir, "out/deploy/clusters/local/apps.yaml", "# edited\n") }},
		{"an output file removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "out/deploy/clusters/local/apps.yaml")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file of someone else's in the output folder", func(t *testing.T) { writeFile(t, dir, "out/README.md", "mine\n") }},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			before := tree(t, dir)
			ch.change(t)
			want := compiledCheck(t, refCache, dir)
			t.Setenv(cli.CacheEnv, cache)
			got := checkWithMemo(t, p, dir)
			if got.hit {
				t.Fatalf("after %s, the check was answered from the memo", ch.name)
			}
			if got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr {
				t.Errorf("exit %d\n%s%s\nwant exit %d\n%s%s", got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			}
			if again := checkWithMemo(t, p, dir); again.hit != (want.code == cli.ExitOK) {
				t.Errorf("the check after it (exit %d) answered from its memo: %v", want.code, again.hit)
			}
			// Back as it was (what was only touched stays touched: the memo
			// of the check above may answer): the check passes and keeps
			// its memo.
			restore(t, dir, before)
			if r := checkWithMemo(t, p, dir); r.code != cli.ExitOK {
				t.Fatalf("the check of the sample restored: exit %d, memo %v\n%s", r.code, r.hit, r.stderr)
			}
			if r := checkWithMemo(t, p, dir); !r.hit {
				t.Fatal("the second check of the sample restored compiled")
			}
		})
	}
}

// restore makes dir hold exactly the files of snapshot (tree's).
func restore(t *testing.T, dir string, snapshot map[string]string) {
	t.Helper()
	for name, data := range tree(t, dir) {
		if want, ok := snapshot[name]; !ok {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
		} else if want != data {
			writeFile(t, dir, name, want)
		}
	}
	for name, data := range snapshot {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			writeFile(t, dir, name, data)
		}
	}
}

// TestCheckMemoSettles: a check that read a file changed just before it
// keeps no memo, since a write within the file system's clock resolution
// would not show; with the cache or the memo off there is none either.
func TestCheckMemoSettles(t *testing.T) {
	dir := sample(t)
	t.Setenv(cli.CacheEnv, t.TempDir())
	p := cli.Process{MemoSettle: 24 * time.Hour} // every file of the copy is new
	for i := range 2 {
		if r := checkWithMemo(t, p, dir); r.code != cli.ExitOK || r.hit {
			t.Fatalf("check %d: exit %d, memo %v\n%s", i, r.code, r.hit, r.stderr)
		}
	}
	p = cli.Process{NoMemoSettle: true}
	for _, env := range []string{cli.CacheEnv, cli.MemoEnv} {
		t.Setenv(cli.CacheEnv, t.TempDir())
		t.Setenv(env, "off")
		for i := range 2 {
			if r := checkWithMemo(t, p, dir); r.code != cli.ExitOK || r.hit {
				t.Fatalf("%s=off, check %d: exit %d, memo %v\n%s", env, i, r.code, r.hit, r.stderr)
			}
		}
	}
}

func appendTo(t *testing.T, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(name)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func touch(t *testing.T, dir, name string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), at, at); err != nil {
		t.Fatal(err)
	}
}

// TestCheckMemoReadsEverything: every file of the sample and of each
// golden case that renders (its spec, client files, anything else but
// its output folder) that the memo of its check does not record can
// change without changing what the check says. The compiler reads the
// disk only through the file systems the CLI gives it; this shows that
// their recording is whole, for every kind of input those cases have.
func TestCheckMemoReadsEverything(t *testing.T) {
	cases := map[string]string{"sample": sample(t)}
	golden, err := filepath.Glob("../../golden/*/out")
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden case with an output folder (%v)", err)
	}
	for _, out := range golden {
		c := filepath.Dir(out)
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(c)); err != nil {
			t.Fatal(err)
		}
		cases[filepath.Base(c)] = dir
	}
	refCache := t.TempDir()
	for name, dir := range cases {
		t.Run(name, func(t *testing.T) {
			// Files platc has no reason to read, so that the test shows it
			// can tell them.
			writeFile(t, dir, "sources/docs/README.md", "# the platform\n")
			writeFile(t, dir, "NOTES.md", "# notes\n")
			cache := t.TempDir()
			t.Setenv(cli.CacheEnv, cache)
			if r := checkWithMemo(t, cli.Process{NoMemoSettle: true}, dir); r.code != cli.ExitOK {
				t.Fatalf("the check: exit %d\n%s", r.code, r.stderr)
			}
			recorded := memoReads(t, cache)
			want := compiledCheck(t, refCache, dir)
			unrecorded := 0
			for file := range tree(t, dir) {
				if strings.HasPrefix(file, "out/") || recorded[file] {
					continue
				}
				unrecorded++
				before := tree(t, dir)
				appendTo(t, dir, file, "\n}}} not what it was\n")
				if got := compiledCheck(t, refCache, dir); got != want {
					t.Errorf("%s is not in the memo's reads, but changing it changes the check:\n%s%s\nwas\n%s%s", file, got.stdout, got.stderr, want.stdout, want.stderr)
				}
				restore(t, dir, before)
			}
			if len(recorded) == 0 || unrecorded == 0 {
				t.Fatalf("the memo records %d reads, and %d files are not read: want both", len(recorded), unrecorded)
			}
		})
	}
}

// memoReads returns the paths the one memo in cache records.
func memoReads(t *testing.T, cache string) map[string]bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(cache, "repos", "*", "check-memo-*"))
	if err != nil || len(names) != 1 {
		t.Fatalf("the cache holds memos %v (%v), want one", names, err)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), "\n") // the cache's header line
	var m struct {
		Reads []struct {
			Root string `json:"r"`
			Path string `json:"p"`
		} `json:"reads"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, r := range m.Reads {
		if r.Root == "" {
			paths[r.Path] = true
		}
	}
	return paths
}

// TestCheckMemoWaitsOnce: a check with a memo at hand, whose output folder
// another platc holds, waits for it once and says what the check that
// compiles says.
func TestCheckMemoWaitsOnce(t *testing.T) {
	dir := sample(t)
	t.Setenv(cli.CacheEnv, t.TempDir())
	p := cli.Process{NoMemoSettle: true}
	if r := checkWithMemo(t, p, dir); r.code != cli.ExitOK {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	}
	holdLock(t, dir)
	runs, sleeps := checkWaitingBothWays(t, dir)
	if runs[0] != runs[1] || sleeps[0] != sleeps[1] || runs[0].code != cli.ExitUsage {
		t.Errorf("with the memo: exit %d after %d waits\n%s\nwithout: exit %d after %d waits\n%s", runs[1].code, sleeps[1], runs[1].stderr, runs[0].code, sleeps[0], runs[0].stderr)
	}
}

// BenchmarkCheckMemoHit is a check of the sample answered from its memo:
// what platc check does after the process starts, when nothing changed.
func BenchmarkCheckMemoHit(b *testing.B) {
	dir := b.TempDir()
	for _, top := range []string{"sources", "clients", "out"} {
		if err := os.CopyFS(filepath.Join(dir, top), os.DirFS(filepath.Join("../..", top))); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv(cli.CacheEnv, b.TempDir())
	hits := 0
	p := cli.Process{NoMemoSettle: true, MemoHit: func() { hits++ }}
	var out, errOut strings.Builder
	for range 2 {
		if code := cli.MainIn(p, []string{"check", "-C", dir}, &out, &errOut); code != cli.ExitOK {
			b.Fatalf("check: exit %d\n%s", code, errOut.String())
		}
	}
	hits = 0
	b.ResetTimer()
	for range b.N {
		out.Reset()
		errOut.Reset()
		cli.MainIn(p, []string{"check", "-C", dir}, &out, &errOut)
	}
	if hits != b.N {
		b.Fatalf("%d of %d checks answered from the memo", hits, b.N)
	}
}

// TestCheckMemoClientCheckoutRemoved: a client checkout that held none of
// the client's files, removed since, is an error of the check that
// compiles; the memo does not answer for it.
func TestCheckMemoClientCheckoutRemoved(t *testing.T) {
	stacks := t.TempDir()
	if err := os.CopyFS(stacks, os.DirFS("../../golden/stacks")); err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(t.TempDir(), "green-gitops")
	if err := os.Mkdir(checkout, 0o777); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	args := []string{"-client-repo", "green=" + checkout}
	p := cli.Process{NoMemoSettle: true}
	t.Setenv(cli.CacheEnv, cache)
	for i, wantHit := range []bool{false, true} {
		if r := checkWithMemo(t, p, stacks, args...); r.code != cli.ExitOK || r.hit != wantHit {
			t.Fatalf("check %d: exit %d, memo %v\n%s", i, r.code, r.hit, r.stderr)
		}
	}
	if err := os.RemoveAll(checkout); err != nil {
		t.Fatal(err)
	}
	want := compiledCheck(t, t.TempDir(), stacks, args...)
	t.Setenv(cli.CacheEnv, cache)
	got := checkWithMemo(t, p, stacks, args...)
	if got.hit || got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr || want.code != cli.ExitUsage {
		t.Errorf("memo %v: exit %d\n%s%s\nwant exit %d\n%s%s", got.hit, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
	}
}

// TestCheckMemoOutDirRenamed: the spec names another output folder than
// its memo's, whose lock another platc holds: the check does not wait for
// it, as the check that compiles does not.
func TestCheckMemoOutDirRenamed(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../golden/features")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(cli.CacheEnv, t.TempDir())
	if r := checkWithMemo(t, cli.Process{NoMemoSettle: true}, dir); r.code != cli.ExitOK {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	}
	spec := filepath.Join(dir, "sources", "platform.cue")
	data, err := os.ReadFile(spec)
	if err != nil || !strings.Contains(string(data), `"rendered"`) {
		t.Fatalf("golden/features names no output folder \"rendered\" (%v)", err)
	}
	writeFile(t, dir, "sources/platform.cue", strings.Replace(string(data), `"rendered"`, `"gen"`, 1))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	l, err := emit.LockOutput(root, "rendered", emit.LockOptions{Holder: "platc render"})
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	defer l.Unlock()
	runs, sleeps := checkWaitingBothWays(t, dir)
	if runs[0] != runs[1] || sleeps[0] != sleeps[1] {
		t.Errorf("with the memo: exit %d after %d waits\n%s\nwithout: exit %d after %d waits\n%s", runs[1].code, sleeps[1], runs[1].stderr, runs[0].code, sleeps[0], runs[0].stderr)
	}
}

// TestCheckMemoCRDs: -crds has a memo of its own, which a changed CRD
// file does not answer for.
func TestCheckMemoCRDs(t *testing.T) {
	dir := sample(t)
	crds := t.TempDir()
	if err := os.CopyFS(crds, os.DirFS("../../schemas/crds")); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	p := cli.Process{NoMemoSettle: true}
	t.Setenv(cli.CacheEnv, cache)
	for i, wantHit := range []bool{false, true} {
		if r := checkWithMemo(t, p, dir, "-crds", crds); r.hit != wantHit || r.code != cli.ExitOK {
			t.Fatalf("check %d: exit %d, memo %v\n%s", i, r.code, r.hit, r.stderr)
		}
	}
	writeFile(t, crds, "a.yaml", "not: [yaml\n")
	want := compiledCheck(t, t.TempDir(), dir, "-crds", crds)
	t.Setenv(cli.CacheEnv, cache)
	got := checkWithMemo(t, p, dir, "-crds", crds)
	if got.hit || got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr {
		t.Errorf("memo %v: exit %d\n%s%s\nwant exit %d\n%s%s", got.hit, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
	}
}

// checkWaitingBothWays checks dir with the memo off, then on, each waiting
// for a held lock (a second at most): what each said, and how many times
// each waited.
func checkWaitingBothWays(t *testing.T, dir string) (runs []memoRun, sleeps []int) {
	t.Helper()
	for _, memo := range []string{"off", "on"} {
		t.Setenv(cli.MemoEnv, memo)
		n := 0
		p := cli.Process{NoMemoSettle: true, LockWait: time.Second, LockSleep: func(time.Duration) { n++ }}
		runs = append(runs, checkWithMemo(t, p, dir))
		sleeps = append(sleeps, n)
	}
	return runs, sleeps
}
