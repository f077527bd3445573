// Package compiler runs the platc pipeline (load, model, check, rgd, layers,
// render, emit) on a repository given as an fs.FS, and returns the output files in
// memory with every problem found. It does no I/O beyond reading fsys: the
// CLI (package cli) writes or compares the result.
package compiler

import (
	"io/fs"

	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/verify"
)

// DefaultSpecDir is where the spec lives, relative to the repository root.
const DefaultSpecDir = "sources"

// Options configure a compilation.
type Options struct {
	// SpecDir is the folder of the spec's .cue files, relative to the
	// repository root. Default DefaultSpecDir.
	SpecDir string
	// ClientRepos are local checkouts of clients' values repositories, by
	// client name, for the checks of their values files.
	ClientRepos map[string]layers.Repo
	// Strict makes a client's key that the platform overrides an error.
	Strict bool
	// CRDs, when set, are the CustomResourceDefinitions (by file name) to
	// validate the output against instead of the embedded ones.
	CRDs map[string][]byte
}

// Result is the outcome of a compilation.
type Result struct {
	// Log holds every problem found, errors and warnings.
	Log *diag.Log
	// OutDir is the output root, relative to the repository root; empty
	// when the spec could not be read far enough to know it.
	OutDir string
	// Outputs are the rendered files, sorted by path; nil when the log
	// holds errors.
	Outputs []emit.Output
	// The stages' results, for commands that look further (explain,
	// preview); nil when the log holds errors.
	Spec   *model.Spec
	Info   *check.Info
	Stacks *rgd.Compiled
	Layers *layers.Result
}

// Compile loads, checks and renders the spec of the repository fsys.
func Compile(fsys fs.FS, opts Options) *Result {
	if opts.SpecDir == "" {
		opts.SpecDir = DefaultSpecDir
	}
	res := &Result{Log: &diag.Log{}}
	loaded := load.Load(fsys, opts.SpecDir, res.Log)
	if loaded == nil {
		return res
	}
	spec := model.Decode(loaded)
	info := check.Check(spec, fsys, res.Log)
	// Stacks are compiled even when the spec has errors elsewhere: kro's
	// problems are independent of them, and all are reported at once.
	stacks := rgd.Compile(spec, info, res.Log)
	if res.Log.HasErrors() {
		return res
	}
	files := layers.Read(spec, stacks, fsys, layers.Options{Repos: opts.ClientRepos, Strict: opts.Strict}, res.Log)
	if res.Log.HasErrors() {
		return res
	}
	res.OutDir = spec.Platform.OutDir
	res.Spec, res.Info, res.Stacks, res.Layers = spec, info, stacks, files
	rendered := render.Render(spec, info, stacks)
	verify.Verify(verify.Input{Spec: spec, Stacks: stacks, Layers: files, Files: rendered, Repo: fsys, CRDs: opts.CRDs}, res.Log)
	if res.Log.HasErrors() {
		res.Spec, res.Info, res.Stacks, res.Layers = nil, nil, nil, nil
		return res
	}
	outs, err := emit.Encode(opts.SpecDir, spec.Platform.OutDir, rendered)
	if err != nil {
		res.Log.Errorf(diag.Pos{File: opts.SpecDir}, "", "%v", err)
		return res
	}
	res.Outputs = outs
	return res
}
