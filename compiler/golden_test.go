package compiler_test

import (
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/testkit/cachetest"
)

var update = flag.Bool("update", false, "rewrite the expected output of the golden cases")

// goldenDir holds the end-to-end cases. Each case is a folder laid out as a
// repository. The expectations are stderr, the problems exactly as platc
// prints them, and the generated files of the render under its output root
// (out/ unless the spec says otherwise); everything else is input: sources/
// (the spec, and any manifests it names) and clients' values files. A case
// that must fail has a stderr and no render.
const goldenDir = "../golden"

// goldenCases returns the folders of the golden cases.
func goldenCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, filepath.Join(goldenDir, e.Name()))
		}
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

// TestGolden compiles every case and compares the whole result with the
// expectations: every file's bytes, and no file missing or extra.
// go test ./compiler -update rewrites the expectations, never the inputs.
func TestGolden(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := goldenResult(t, dir)
			if *update {
				writeExpectations(t, dir, got)
				return
			}
			want := readExpectations(t, dir)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("golden case %s differs (-want +got), run go test ./compiler -update if the change is intended:\n%s", filepath.Base(dir), diff)
			}
		})
	}
}

// goldenResult returns the files a case should hold after compiling: the
// rendered out/ files and stderr, by path relative to the case folder.
func goldenResult(t *testing.T, dir string) map[string]string {
	t.Helper()
	return goldenResultWith(t, dir, compiler.Options{})
}

// goldenResultWith is goldenResult compiling with opts.
func goldenResultWith(t *testing.T, dir string, opts compiler.Options) map[string]string {
	t.Helper()
	res := compiler.Compile(os.DirFS(dir), opts)
	got := map[string]string{}
	if s := res.Log.String(); s != "" {
		got["stderr"] = s
	}
	for _, p := range res.Log.Problems() {
		if p.ID == diag.NoID {
			t.Errorf("a problem without a message id: %s", p)
		}
	}
	if res.Log.HasErrors() && res.Outputs != nil {
		t.Fatal("outputs despite errors")
	}
	for _, o := range res.Outputs {
		got[o.Path] = string(o.Data)
	}
	if len(got) == 0 {
		t.Fatal("compiling gave neither output nor problems")
	}
	return got
}

// readExpectations reads the expectations of a case folder: stderr, and
// the files platc generated (their header says so). Everything else, the
// spec in sources/ and clients' values files, is input, which -update never
// touches.
func readExpectations(t *testing.T, dir string) map[string]string {
	t.Helper()
	want := map[string]string{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if p == "stderr" || emit.IsGenerated(data) {
			want[p] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func writeExpectations(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	for p := range readExpectations(t, dir) {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if strings.HasPrefix(p, "sources/") {
			t.Fatalf("render wrote %s, inside sources/", p)
		}
		file := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got[p]), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoldenDeterministic compiles every case twice and requires the same
// bytes: no map order, no clock, no address leaks into the output.
func TestGoldenDeterministic(t *testing.T) {
	for _, dir := range goldenCases(t) {
		a, b := goldenResult(t, dir), goldenResult(t, dir)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: two compilations differ:\n%s", filepath.Base(dir), diff)
		}
	}
}

// TestGoldenCached compiles every golden case with a cache, empty and
// then filled by that run, and requires what an uncached compilation
// gives: the same files, byte for byte, and the same problems. Whatever
// the cache keeps (schema fits, kro's verdicts, previews, validations,
// kustomize builds, chart renders, CEL parses) must not change a result.
func TestGoldenCached(t *testing.T) {
	cases, filled := goldenCases(t), 0
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := goldenResult(t, dir)
			cache := &cachetest.Memory{}
			for _, run := range []string{"with an empty cache", "from the cache"} {
				got := goldenResultWith(t, dir, compiler.Options{Cache: cache})
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, the compilation differs (+) from an uncached one (-):\n%s", run, diff)
				}
			}
			if cache.Len() > 0 {
				filled++
			}
		})
	}
	// A spec that does not fit the schema leaves nothing to keep.
	if filled < len(cases)*3/4 {
		t.Errorf("the cache holds something in %d of %d cases: the test compares too little", filled, len(cases))
	}
}

// TestSampleUpToDate fails when the committed render of the sample platform
// (out/ at the repository root) is not what its sources produce: the drift
// check of platc check, run by go test.
func TestSampleUpToDate(t *testing.T) {
	repo := os.DirFS("..")
	res := compiler.Compile(repo, compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the sample platform does not compile:\n%s", res.Log)
	}
	if s := res.Log.String(); s != "" {
		t.Errorf("the sample platform has warnings:\n%s", s)
	}
	st, err := emit.Scan(repo, res.OutDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range emit.Compare(st, res.Outputs) {
		t.Errorf("%s is %s: run make render and commit %s/\n%s", d.Path, d.Kind, res.OutDir, d.Diff)
	}
}

// repos returns the repositories the tests compile: the sample (the
// repository itself) and every golden case.
func repos(t *testing.T) []string {
	t.Helper()
	return append([]string{".."}, goldenCases(t)...)
}
