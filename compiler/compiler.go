// Package compiler runs the platc pipeline (load, model, check, rgd, layers,
// render, verify, emit) on a repository given as an fs.FS, and returns the
// output files in memory with every problem found. It reads fsys, and the
// cache, chart archives and output folder its Options give; the CLI
// (package cli) writes or compares the result.
package compiler

import (
	"cmp"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/upstream"
	"github.com/platc/platc/compiler/verify"
	"github.com/platc/platc/internal/cache"
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
	// Cache, when set, keeps what is costly to compute and rarely changes
	// from one compilation to the next, even in another process: each
	// kind of entry is a row of cache.Kinds (the reading of a spec that
	// fits, kustomize builds, CEL parses, kro's verdicts, chart
	// renders...).
	Cache Cache
	// ScanOutput also reads the output folder as it is now (Result.Existing),
	// for commands that compare or write it. It is read while the spec
	// compiles, once the spec has named the folder.
	ScanOutput bool
	// KeepFiles keeps render's files in Result.Files, for the commands
	// that read rendered objects (report); without it they are dropped
	// once encoded, as render and check need only the bytes.
	KeepFiles bool
	// KeepRenders keeps the render of each Application's Helm source in
	// Result.Charts (Apps), for the commands that show them (explain,
	// diff, preview -manifests).
	KeepRenders bool
	// PrepareOutput, when set, is called with each output folder Compile
	// considers (the default one at once, and the spec's when it names
	// another), on another goroutine, before Compile reads it: the CLI
	// locks the folder there, and completes a write that was interrupted.
	// Its error is Result.ScanErr.
	PrepareOutput func(outDir string) error
	// Charts, when set, is platc's chart cache: the archives `platc charts
	// pull` fetched, by digest. The vendor folder of the spec
	// (charts.VendorDir) is read too.
	Charts charts.Archives

	// parses are the parses of the stacks' CEL expressions, made by
	// Compile, read from Cache and written back to it.
	parses *kro.Parses
}

// Cache is a store of byte strings by key, kept between compilations (the
// CLI keeps one per repository in the user's cache directory); a failure
// to read or write it only costs time. internal/cache says what it
// answers for.
type Cache = cache.Cache

// celParsesKey is the Cache key of the CEL parses (as kro's
// environment parses): it names the kro whose environment parses them.
var celParsesKey = cache.CELParses.Key(upstream.Kro)

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
	// Objects counts the rendered objects by kind (Application,
	// AppProject, a stack's instance kind...), for the CLI's summary; nil
	// when the log holds errors.
	Objects map[string]int
	// Files are render's files, the objects Outputs encode, with
	// Options.KeepFiles (report reads the AppProjects, platc's own
	// included); nil when a stage before render reports an error. Where
	// only verify or emit do, they are what render made, which import
	// compares with the objects it read.
	Files []render.File
	// The stages' results, for commands that look further (explain,
	// preview); nil when the log holds errors.
	Spec   *model.Spec
	Info   *check.Info
	Stacks *rgd.Compiled
	Layers *layers.Result
	// Clients are the names of the spec's clients, sorted, once the spec
	// is read (even when it has problems; nil when it could not be read):
	// for the CLI to check the clients it names.
	Clients []string
	// Existing is what the output folder holds now, with
	// Options.ScanOutput; ScanErr says why it could not be read.
	Existing *emit.State
	ScanErr  error
	// Charts are the renders of the Applications' Helm sources; nil when
	// the spec could not be read far enough.
	Charts *charts.Renderer
	// Gaps say what was not checked, and how to check it (charts not
	// rendered offline, clients' values repositories not read): not
	// problems.
	Gaps []Gap
}

// Compile loads, checks and renders the spec of the repository fsys.
func Compile(fsys fs.FS, opts Options) *Result {
	opts.SpecDir = cmp.Or(opts.SpecDir, DefaultSpecDir)
	res := &Result{Log: &diag.Log{}}
	opts.parses = kro.NewParses()
	// The embedded CRDs are read and compiled once per process; the
	// spec loads on one core meanwhile. The parses of earlier runs are
	// read first, and read whole before they are written back.
	parsesRead := make(chan struct{})
	go func() {
		if opts.Cache != nil {
			if data, ok := opts.Cache.Get(celParsesKey); ok {
				opts.parses.Read(data)
			}
		}
		close(parsesRead)
		rgd.Prepare()
		if opts.CRDs == nil {
			verify.Prepare()
		}
	}()
	if opts.Cache != nil {
		defer func() {
			<-parsesRead
			if data, changed := opts.parses.Write(); changed {
				opts.Cache.Put(celParsesKey, data)
			}
		}()
	}
	// The output folder is read on another core while the spec loads. It
	// is almost always the default one; a spec that names another has
	// that one read as soon as it is known.
	scan := &outputScan{}
	if opts.ScanOutput || opts.PrepareOutput != nil {
		scan.first = startScan(fsys, model.DefaultOutDir, opts)
		defer func() {
			r := scan.result()
			res.Existing, res.ScanErr = r.state, r.err
		}()
	}
	loaded := load.BeginCached(fsys, opts.SpecDir, opts.Cache, res.Log)
	if loaded == nil {
		return res
	}
	// An outDir spelled otherwise ("./out", "out/") is the default
	// folder, locked already (check says to write it clean).
	if outDir := model.OutDir(loaded); scan.first != nil && path.Clean(outDir) != model.DefaultOutDir {
		scan.other = startScan(fsys, outDir, opts)
	}
	// The spec as written is compiled while the schema check runs on
	// another core, into a log of its own: kept if the spec fits the
	// schema, and otherwise dropped, and the spec is read again, checking
	// every field, and compiled for the problems that remain.
	spec := model.Decode(loaded)
	res.Clients = []string{}
	for _, c := range spec.Clients {
		res.Clients = append(res.Clients, c.Name)
	}
	slices.Sort(res.Clients)
	// Kustomize builds the repo-path modules' folders on other cores
	// meanwhile. Verify reads them only if the spec checks; a folder the
	// checks would refuse is not reachable through fsys anyway.
	folders := verify.BuildFolders(spec, fsys, opts.Cache)
	unchecked := &diag.Log{}
	out, finished := compileUnchecked(spec, fsys, opts, folders, scan, unchecked)
	if loaded.Checked() {
		if !finished {
			// The spec fits the schema, so a panic is a bug of platc:
			// let it happen where it can be seen.
			out = compileSpec(spec, fsys, opts, folders, scan, res.Log)
		} else {
			for _, p := range unchecked.Problems() {
				res.Log.Add(p)
			}
		}
	} else {
		// The folders are those of the spec as read again, built if
		// verify gets that far. What the stages find where the schema
		// check found a problem follows from it, and is folded.
		later := &diag.Log{}
		out = compileSpec(model.Decode(loaded), fsys, opts, verify.NewFolders(fsys, opts.Cache), scan, later)
		res.Log.Fold(later)
	}
	res.OutDir = out.outDir
	res.Charts = out.charts
	res.Gaps = gaps(spec, opts, out.charts, res.Log)
	res.Files = out.files
	if res.Log.HasErrors() {
		return res
	}
	res.Spec, res.Info, res.Stacks, res.Layers = out.spec, out.info, out.stacks, out.layers
	res.Outputs, res.Objects = out.outputs, out.objects
	return res
}

// compiled is what compileSpec makes of a spec.
type compiled struct {
	outDir  string
	spec    *model.Spec
	info    *check.Info
	stacks  *rgd.Compiled
	layers  *layers.Result
	outputs []emit.Output
	objects map[string]int
	files   []render.File
	charts  *charts.Renderer
}

// compileUnchecked is compileSpec on a spec that has not yet been checked
// against the schema, which the stages rely on. A stage that panics on
// what the schema would refuse is not finished: the schema check reports
// the problem.
func compileUnchecked(spec *model.Spec, fsys fs.FS, opts Options, folders *verify.Folders, scan *outputScan, log *diag.Log) (out compiled, finished bool) {
	defer func() {
		if recover() != nil {
			out, finished = compiled{}, false
		}
	}()
	return compileSpec(spec, fsys, opts, folders, scan, log), true
}

// compileSpec checks, renders, verifies and encodes spec, stopping at the
// first stage that reports an error.
func compileSpec(spec *model.Spec, fsys fs.FS, opts Options, folders *verify.Folders, scan *outputScan, log *diag.Log) compiled {
	info := check.Check(spec, fsys, log)
	// Stacks are compiled even when the spec has errors elsewhere: kro's
	// problems are independent of them, and all are reported at once.
	stacks := rgd.Compile(spec, info, opts.Cache, opts.parses, log)
	if log.HasErrors() {
		return compiled{}
	}
	files := layers.Read(spec, stacks, fsys, layers.Options{Repos: opts.ClientRepos, Strict: opts.Strict}, log)
	if log.HasErrors() {
		return compiled{}
	}
	out := compiled{outDir: spec.Platform.OutDir, charts: newChartRenderer(fsys, opts, log)}
	out.charts.Prefetch()
	rendered := render.Render(spec, info, stacks, folders.Read)
	if opts.KeepFiles {
		out.files = rendered
	}
	verify.Verify(verify.Input{Spec: spec, Stacks: stacks, Layers: files, Files: rendered, Repo: fsys, CRDs: opts.CRDs, Folders: folders,
		Charts: out.charts, SpecDir: opts.SpecDir, Strict: opts.Strict, Cache: opts.Cache}, log)
	out.charts.KeepPack()
	// The size of an object is that of its bytes, measured as they are
	// encoded (and reported with verify's problems).
	outputs, err := emit.Encode(opts.SpecDir, spec.Platform.OutDir, rendered, scan.result().state, func(i int, body []byte) {
		verify.Size(spec, rendered[i], body, log)
	})
	if err != nil {
		log.Reportf(diag.IO, diag.Pos{File: opts.SpecDir}, "", "%v", err)
		return out
	}
	if log.HasErrors() {
		return out
	}
	out.spec, out.info, out.stacks, out.layers, out.outputs = spec, info, stacks, files, outputs
	out.objects = countObjects(rendered)
	return out
}

// countObjects counts the objects of files by kind; Helm values files
// hold no objects.
func countObjects(files []render.File) map[string]int {
	n := map[string]int{}
	for _, f := range files {
		if f.Values {
			continue
		}
		for _, o := range f.Objects {
			if kind, ok := o.Get("kind").(string); ok {
				n[kind]++
			}
		}
	}
	return n
}

// newChartRenderer renders the charts of fsys: the spec's lock file (a
// malformed one is an error), the vendor folder, the chart cache of opts.
func newChartRenderer(fsys fs.FS, opts Options, log *diag.Log) *charts.Renderer {
	r := &charts.Renderer{Archives: opts.Charts, Repo: fsys, Cache: opts.Cache, KeepRenders: opts.KeepRenders}
	lockFile := path.Join(opts.SpecDir, charts.LockFile)
	if data, err := fs.ReadFile(fsys, lockFile); err == nil {
		lock, err := charts.ParseLock(data)
		var se *diag.SyntaxError
		switch {
		case errors.As(err, &se):
			log.Reportf(diag.ChartLock, se.At(lockFile).Pos, "", "%s", se.Msg)
			r.LockBroken = true
		case err != nil:
			log.Reportf(diag.ChartLock, diag.Pos{File: lockFile}, "", "%v: fix the file, or remove it and run platc charts pull", err)
			r.LockBroken = true
		}
		r.Lock = lock
	}
	if vendor, err := fs.Sub(fsys, path.Join(opts.SpecDir, charts.VendorDir)); err == nil {
		r.Vendor, r.VendorName = vendor, path.Join(opts.SpecDir, charts.VendorDir)
	}
	return r
}

type scanned struct {
	state *emit.State
	err   error
}

// outputScan is the reading of the output folder that Compile starts, of
// the default folder and, where the spec names another, of that one too.
type outputScan struct {
	first, other <-chan scanned
	once         sync.Once
	done         scanned
}

// result waits for the reading of the spec's output folder; it is empty
// without Options.ScanOutput.
func (s *outputScan) result() scanned {
	s.once.Do(func() {
		if s.first == nil {
			return
		}
		s.done = <-s.first
		if s.other != nil {
			s.done = <-s.other
		}
	})
	return s.done
}

// startScan prepares the output folder dir of fsys and reads it (with
// Options.ScanOutput), on another goroutine.
func startScan(fsys fs.FS, dir string, opts Options) <-chan scanned {
	ch := make(chan scanned, 1)
	go func() {
		if opts.PrepareOutput != nil {
			if err := opts.PrepareOutput(dir); err != nil {
				ch <- scanned{nil, err}
				return
			}
		}
		if !opts.ScanOutput {
			ch <- scanned{}
			return
		}
		st, err := emit.Scan(fsys, dir)
		ch <- scanned{st, err}
	}()
	return ch
}

// Pins reads the spec of fsys and returns what `platc charts pull` locks:
// its chart pins (each chart at every version it runs somewhere), and
// the folders of this repository that hold a chart an Application
// syncs (whose Chart.lock may name dependencies Argo CD downloads),
// sorted. The spec must fit the schema, and nothing else is checked.
func Pins(fsys fs.FS, specDir string) ([]*model.Chart, []string, *diag.Log) {
	specDir = cmp.Or(specDir, DefaultSpecDir)
	log := &diag.Log{}
	loaded := load.Begin(fsys, specDir, log)
	if loaded == nil || !loaded.Checked() {
		return nil, nil, log
	}
	spec := model.Decode(loaded)
	// The folders verify renders with Helm: a module's folder of this
	// repository, in any environment, that holds a chart, outside the
	// output root.
	var folders []string
	out := spec.Platform.OutDir
	for _, m := range spec.Modules {
		for _, dir := range m.RepoFolders(spec) {
			if dir != out && !strings.HasPrefix(dir, out+"/") && !slices.Contains(folders, dir) && manifests.IsHelmFolder(fsys, dir) {
				folders = append(folders, dir)
			}
		}
	}
	slices.Sort(folders)
	// Every version the spec runs: the platform's pins and the
	// environments' own, one per chart and version.
	return spec.PinnedVersions(), folders, log
}
