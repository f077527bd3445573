package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/testkit/synth"
)

// BenchmarkRender measures platc render as a user runs it, start to end
// but for the process's start, on the benchmark's platform of about
// 10,000 Applications, spelled as the generator writes it and as a CUE
// user does (synth.Idiomatic): with out/ up to date and the cache warm
// (the everyday render), with no cache (PLATC_CACHE=off: a CI runner's
// first check), and into an empty out/ (a first render). make
// bench-compare puts the same paths beside cue export.
func BenchmarkRender(b *testing.B) {
	size := synth.Sizes["50x200x20"]
	for _, p := range []struct {
		name string
		fsys fstest.MapFS
	}{{"plain", synth.Platform(size)}, {"idiomatic", synth.Idiomatic(size)}} {
		dir := b.TempDir()
		for name, f := range p.fsys {
			path := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, f.Data, 0o666); err != nil {
				b.Fatal(err)
			}
		}
		cache := filepath.Join(b.TempDir(), "cache")
		render := func(b *testing.B) {
			var stdout, stderr bytes.Buffer
			if code := cli.Main([]string{"render", "-C", dir}, &stdout, &stderr); code != cli.ExitOK {
				b.Fatalf("render: exit %d\n%s", code, stderr.Bytes())
			}
		}
		b.Run(p.name+"/up-to-date", func(b *testing.B) {
			b.Setenv("PLATC_CACHE", cache)
			render(b)
			b.ReportAllocs()
			for b.Loop() {
				render(b)
			}
		})
		b.Run(p.name+"/no-cache", func(b *testing.B) {
			b.Setenv("PLATC_CACHE", "off")
			render(b)
			b.ReportAllocs()
			for b.Loop() {
				render(b)
			}
		})
		b.Run(p.name+"/fresh", func(b *testing.B) {
			b.Setenv("PLATC_CACHE", cache)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				render(b)
			}
			if _, err := fs.Stat(os.DirFS(dir), "out/deploy"); err != nil {
				b.Fatal(err)
			}
		})
	}
}
