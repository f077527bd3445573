package compiler_test

import (
	"bytes"
	"io/fs"
	"os"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/verify"
	"github.com/platc/platc/testkit/cachetest"
	"github.com/platc/platc/testkit/synth"
)

// benchRepos are the platforms the benchmarks compile: the sample, and
// generated ones.
func benchRepos() []struct {
	name string
	fsys fs.FS
} {
	return []struct {
		name string
		fsys fs.FS
	}{
		{"sample", os.DirFS("..")},
		{"10x100", synth.Platform(synth.Sizes["10x100"])},
		{"50x200x20", synth.Platform(synth.Sizes["50x200x20"])},
	}
}

// BenchmarkCompile measures the whole pipeline, from the spec files to the
// encoded output, as platc render runs it (without the disk writes).
func BenchmarkCompile(b *testing.B) {
	for _, r := range benchRepos() {
		b.Run(r.name, func(b *testing.B) {
			res := compiler.Compile(r.fsys, compiler.Options{})
			if res.Log.HasErrors() {
				b.Fatalf("%s does not compile:\n%s", r.name, res.Log)
			}
			b.ReportAllocs()
			for b.Loop() {
				compiler.Compile(r.fsys, compiler.Options{})
			}
			b.ReportMetric(float64(applications(res.Outputs)), "apps")
		})
	}
}

// BenchmarkStages measures each stage alone, on the output of the ones
// before (the stacks' previews, computed once per compile, are warm after
// the first round of layers and verify).
func BenchmarkStages(b *testing.B) {
	for _, r := range benchRepos() {
		log := &diag.Log{}
		st := renderStages(r.fsys, log)
		if st == nil {
			b.Fatalf("%s does not compile:\n%s", r.name, log)
		}
		loaded, spec, info, stacks, clientFiles, files := st.loaded, st.spec, st.info, st.stacks, st.clients, st.files
		b.Run(r.name+"/load", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				load.Load(r.fsys, compiler.DefaultSpecDir, &diag.Log{})
			}
		})
		b.Run(r.name+"/model", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				model.Decode(loaded)
			}
		})
		b.Run(r.name+"/check", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check.Check(spec, r.fsys, &diag.Log{})
			}
		})
		b.Run(r.name+"/rgd", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rgd.Compile(spec, info, nil, nil, &diag.Log{})
			}
		})
		// As platc check meets it from its second run: kro's verdicts on
		// the stacks' RGDs are cached.
		b.Run(r.name+"/rgd-cached", func(b *testing.B) {
			cache, parses := &cachetest.Memory{}, kro.NewParses()
			rgd.Compile(spec, info, cache, parses, &diag.Log{})
			b.ReportAllocs()
			for b.Loop() {
				rgd.Compile(spec, info, cache, parses, &diag.Log{})
			}
		})
		b.Run(r.name+"/layers", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				layers.Read(spec, stacks, r.fsys, layers.Options{}, &diag.Log{})
			}
		})
		b.Run(r.name+"/render", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				render.Render(spec, info, stacks, nil)
			}
		})
		b.Run(r.name+"/verify", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				verify.Verify(verify.Input{Spec: spec, Stacks: stacks, Layers: clientFiles, Files: files, Repo: r.fsys}, &diag.Log{})
			}
		})
		b.Run(r.name+"/emit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := emit.Encode(compiler.DefaultSpecDir, model.DefaultOutDir, files, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoad measures the load stage alone on the sample and the
// generated platforms, plain and idiomatic (synth.Idiomatic), as a run
// meets it: with no cache (or the first run after an edit of the spec),
// and with the cache an earlier run of the same spec left (the everyday
// render). docs/performance.md gives what each of load's readers buys
// here.
func BenchmarkLoad(b *testing.B) {
	repos := benchRepos()
	for _, size := range []string{"10x100", "50x200x20"} {
		repos = append(repos, struct {
			name string
			fsys fs.FS
		}{"idiomatic-" + size, synth.Idiomatic(synth.Sizes[size])})
	}
	for _, r := range repos {
		b.Run(r.name+"/no-cache", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				load.Load(r.fsys, compiler.DefaultSpecDir, &diag.Log{})
			}
		})
		b.Run(r.name+"/cached", func(b *testing.B) {
			cache := &cachetest.Memory{}
			load.BeginCached(r.fsys, compiler.DefaultSpecDir, cache, &diag.Log{}).Checked()
			b.ReportAllocs()
			for b.Loop() {
				load.BeginCached(r.fsys, compiler.DefaultSpecDir, cache, &diag.Log{}).Checked()
			}
		})
	}
}

// rendered is a spec run through the stages up to render, one by one.
type rendered struct {
	loaded  *load.Spec
	spec    *model.Spec
	info    *check.Info
	stacks  *rgd.Compiled
	clients *layers.Result
	files   []render.File
}

// renderStages runs the stages of fsys's spec up to render, problems to
// log; nil where a stage before render finds a problem, as the stages
// after it rely on the checks.
func renderStages(fsys fs.FS, log *diag.Log) *rendered {
	loaded := load.Load(fsys, compiler.DefaultSpecDir, log)
	if loaded == nil || log.HasErrors() {
		return nil
	}
	r := &rendered{loaded: loaded, spec: model.Decode(loaded)}
	r.info = check.Check(r.spec, fsys, log)
	r.stacks = rgd.Compile(r.spec, r.info, nil, nil, log)
	r.clients = layers.Read(r.spec, r.stacks, fsys, layers.Options{}, log)
	if log.HasErrors() {
		return nil
	}
	r.files = render.Render(r.spec, r.info, r.stacks, nil)
	return r
}

// applications counts the Application objects in outs. Every output
// starts with the generated-file header, so each document's kind line
// follows a newline.
func applications(outs []emit.Output) int {
	n := 0
	for _, o := range outs {
		n += bytes.Count(o.Data, []byte("\nkind: Application\n"))
	}
	return n
}
