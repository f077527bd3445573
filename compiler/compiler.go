// Package compiler runs the platc pipeline (load, model, check, rgd, render,
// emit) on a repository given as an fs.FS, and returns the output files in
// memory with every problem found. It does no I/O beyond reading fsys: the
// CLI (package cli) writes or compares the result.
package compiler

import (
	"io/fs"

	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
)

// DefaultSpecDir is where the spec lives, relative to the repository root.
const DefaultSpecDir = "sources"

// Options configure a compilation.
type Options struct {
	// SpecDir is the folder of the spec's .cue files, relative to the
	// repository root. Default DefaultSpecDir.
	SpecDir string
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
	// Stacks are the compiled product stacks and their instances; nil
	// when the log holds errors.
	Stacks *rgd.Compiled
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
	res.OutDir = spec.Platform.OutDir
	res.Stacks = stacks
	files := render.Render(spec, info, stacks)
	outs, err := emit.Encode(opts.SpecDir, spec.Platform.OutDir, files)
	if err != nil {
		res.Log.Errorf(diag.Pos{File: opts.SpecDir}, "", "%v", err)
		return res
	}
	res.Outputs = outs
	return res
}
