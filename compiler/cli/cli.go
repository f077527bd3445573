// Package cli is platc's command line: it parses arguments, runs the
// compiler on the repository folder, and writes or compares the output. It is
// the edge of the program, the one place that opens the disk and prints. It
// locks the output folder, completes a write that was interrupted there
// before anything else (output.go), and turns SIGINT and SIGTERM into a
// clean end.
//
// The commands are a table (commands.go): one descriptor per command, from
// which the dispatch, help (help.go), completion scripts (completion.go)
// and, in the tests, the CLI reference of docs/cli.md (reference_test.go)
// are made. A command reports what it finds through a report (report.go),
// in the -format asked: text, GitHub Actions workflow commands, or one JSON
// document. It does not decide what is a problem: the compiler's *diag.Log
// does.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/release"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/schemas"
	"sigs.k8s.io/yaml"
)

// Exit codes: 0 success; 1 problems found (failed checks, drift, a file in
// the way); 2 usage or I/O errors.
const (
	ExitOK       = 0
	ExitProblems = 1
	ExitUsage    = 2
)

// Main runs platc with args (without the program name) and returns the exit
// code. Output goes to stdout, problems to stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	return profiled(os.Getenv(CPUProfileEnv), stderr, func() int {
		return run(osProcess, args, stdout, stderr)
	})
}

// clientRepos is the repeatable -client-repo NAME=DIR flag.
type clientRepos map[string]string

func (c clientRepos) String() string { return "" }

func (c clientRepos) repeatable() {}

func (c clientRepos) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want CLIENT=DIR, such as search=../search-gitops")
	}
	c[name] = dir
	return nil
}

// compiled is a compiled repository, open until close.
type compiled struct {
	root    *os.Root
	clients []*os.Root // the checkouts of -client-repo
	opts    compiler.Options
	res     *compiler.Result
	out     *outputs // the output roots, locked
	ctx     context.Context
	stop    context.CancelFunc // stops listening for interrupts
}

func (repo *compiled) close() {
	repo.out.keepOnly("")
	repo.stop()
	repo.root.Close()
	for _, r := range repo.clients {
		r.Close()
	}
}

// compileOnly compiles the spec for a command that writes nothing: the
// output roots' locks and the checkouts are released at once, and the
// result stays in repo.res.
func (c *call) compileOnly() (*compiled, int) {
	repo, code := c.compile(c.rep, false, false)
	if repo != nil {
		repo.close()
	}
	return repo, code
}

// compile opens the repository and compiles it; with scan, it also reads
// the output folder (res.Existing), and with hold it holds the output
// folder's lock until close. Before reading the output folder, it
// completes a write that was interrupted there. It reports the problems to
// rep and returns nil with an exit code when the command should stop.
func (c *call) compile(rep *report, scan, hold bool) (*compiled, int) {
	rep.started = true
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		return nil, rep.failf(diag.IO, "opening the repository: %v", err)
	}
	// A cache inside the output folder is refused once the output folder
	// is known; inside the usual one, it is not used until then, and
	// inside the repository, it writes nothing until then (heldCache).
	repo := &compiled{root: root}
	var cache compiler.Cache
	var held *heldCache
	if cacheInOutput(c.dir, model.DefaultOutDir) == "" {
		if base, ok := cacheBase(); ok && inside(base, c.dir) {
			if dc, base := cacheOf(c.dir); dc != nil {
				held = &heldCache{c: dc, base: base, held: map[string][]byte{}}
				cache = held
			}
		} else {
			cache = openCache(c.dir)
		}
	}
	repo.ctx, repo.stop = c.proc.interrupts()
	repo.out = &outputs{root: root, proc: c.proc, holder: "platc " + c.cmd.name, interrupt: repo.ctx.Done(), hold: hold, stderr: rep.notes, locks: map[string]*emit.Lock{}}
	fail := func(id diag.ID, format string, args ...any) (*compiled, int) {
		rep.failf(id, format, args...)
		repo.close()
		return nil, ExitUsage
	}
	repo.opts = compiler.Options{SpecDir: c.specDir, Strict: c.strict, ClientRepos: map[string]layers.Repo{}, ScanOutput: scan, KeepFiles: c.keepFiles, KeepRenders: c.keepRenders, Cache: cache, PrepareOutput: repo.out.prepare}
	for name, dir := range c.clientRepos {
		// Reads stay inside the checkout; the root lives as long as the
		// command.
		r, err := os.OpenRoot(dir)
		if err != nil {
			return fail(diag.IO, "opening client %s's values repository: %v", name, err)
		}
		repo.clients = append(repo.clients, r)
		repo.opts.ClientRepos[name] = layers.Repo{FS: newRepoFS(r), Dir: dir}
	}
	if c.crds != "" {
		crds, err := readCRDs(c.crds)
		if err != nil {
			return fail(diag.IO, "reading the CRDs: %v", err)
		}
		repo.opts.CRDs = crds
	}
	repo.opts.Charts = openChartStore()
	// The compilation runs until it ends or the first SIGINT or SIGTERM:
	// then platc ends at once, before it writes anything (the
	// compilation is left to the end of the process; the locks it took
	// end with it, and a write it was recovering, with the journal).
	done := make(chan *compiler.Result, 1)
	go func() {
		if c.proc.compiling != nil {
			c.proc.compiling()
		}
		done <- compiler.Compile(newRepoFS(root), repo.opts)
	}()
	select {
	case repo.res = <-done:
	case <-repo.ctx.Done():
		return nil, rep.failf(diag.Interrupted, "interrupted: nothing was written")
	}
	repo.out.printNotes()
	// A checkout for a client the spec does not declare would be ignored.
	unknown := 0
	for _, name := range slices.Sorted(maps.Keys(c.clientRepos)) {
		if clients := repo.res.Clients; clients != nil && !slices.Contains(clients, name) {
			rep.failf(diag.Usage, "-client-repo %s=%s: the spec has no client %q%s (its clients: %s): name one of them", name, c.clientRepos[name], name, diag.DidYouMean(name, clients), diag.OrNone(clients))
			unknown++
		}
	}
	if unknown > 0 {
		repo.close()
		return nil, ExitUsage
	}
	if msg := cacheInOutput(c.dir, repo.res.OutDir); repo.res.OutDir != "" && msg != "" {
		return fail(diag.OutDir, "%s", msg)
	}
	if held != nil {
		held.release()
	}
	c.noteGaps(repo.res)
	rep.log(repo.res.Log)
	if repo.res.Log.HasErrors() {
		repo.close()
		return nil, ExitProblems
	}
	if repo.res.ScanErr != nil {
		return fail(writeID(repo.res.ScanErr), "%v", repo.res.ScanErr)
	}
	repo.out.keepOnly(repo.res.OutDir)
	if repo.ctx.Err() != nil {
		return fail(diag.Interrupted, "interrupted: nothing was written")
	}
	return repo, ExitOK
}

// noteGaps adds to res's log a note (not-checked) for each thing the
// compilation did not check that no problem says already, for the
// commands that check (the table's checks): one that passes passed
// without them. The other commands compile to do something else, and stay
// quiet.
func (c *call) noteGaps(res *compiler.Result) {
	if !c.cmd.checks {
		return
	}
	for _, g := range res.Gaps {
		for _, note := range g.Notes {
			res.Log.Reportf(diag.NotChecked, diag.Pos{}, "", "%s", note)
		}
	}
}

// counts says what res, a compilation of the repository's spec, checked,
// and whether it checked everything.
func (repo *compiled) counts(res *compiler.Result) *counts {
	warnings := 0
	for _, p := range res.Log.Problems() {
		if p.Severity == diag.Warning {
			warnings++
		}
	}
	return &counts{
		Complete:     len(res.Gaps) == 0,
		SpecDir:      repo.opts.SpecDir,
		Environments: len(res.Spec.Environments),
		Applications: res.Objects["Application"],
		AppProjects:  res.Objects["AppProject"],
		Stacks:       len(res.Spec.Stacks),
		Instances:    len(res.Stacks.Instances),
		Warnings:     warnings,
	}
}

// writeJSON writes v as indented JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := jsonEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonEncoder is a JSON encoder that leaves <, > and & as they are.
func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// writeOutputs writes res's outputs into its output folder, which st
// holds as it is, and the spec edits (file by path) in the same journal:
// both or neither, even if platc is killed. It refuses to overwrite a
// file platc did not write.
func (c *call) writeOutputs(repo *compiled, res *compiler.Result, st *emit.State, edits map[string][]byte) (*emit.Result, int) {
	if conflicts := emit.Conflicts(st, res.Outputs); len(conflicts) > 0 {
		for _, cf := range conflicts {
			c.rep.problem(diag.Problem{ID: diag.OutDir, Pos: diag.Pos{File: cf.Path}, Msg: fmt.Sprintf("%s: move it out of %s/, platc does not overwrite it", cf.Problem, res.OutDir)})
		}
		return nil, ExitProblems
	}
	var specEdits []emit.Output
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		specEdits = append(specEdits, emit.Output{Path: name, Data: edits[name]})
	}
	w, err := repo.out.write(res.OutDir, st, res.Outputs, specEdits)
	switch {
	case errors.Is(err, emit.ErrInterrupted):
		return nil, c.rep.failf(diag.Interrupted, "interrupted: nothing was written, %s/ is as it was", res.OutDir)
	case err != nil:
		return nil, c.rep.failf(writeID(err), "%v", err)
	}
	return w, ExitOK
}

func runRender(c *call) int {
	repo, code := c.compile(c.rep, true, true)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	w, code := c.writeOutputs(repo, res, res.Existing, nil)
	if w == nil {
		return code
	}
	c.rep.wrote(repo.counts(res), res.Gaps, res.OutDir, len(res.Outputs), w)
	if repo.ctx.Err() != nil {
		return c.rep.failf(diag.Interrupted, "interrupted: %s/ was committed: the render was finished", res.OutDir)
	}
	return ExitOK
}

func runCheck(c *call) int {
	repo, code := c.compile(c.rep, true, true)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	if drifts := emit.Compare(res.Existing, res.Outputs); len(drifts) > 0 {
		c.rep.drifted(res.OutDir, drifts)
		return ExitProblems
	}
	c.rep.checked(repo.counts(res), res.Gaps, res.OutDir+"/ is up to date")
	return ExitOK
}

func runVet(c *call, tag string) int {
	if tag != "" && !model.IsReleaseTag(tag) {
		return c.usagef("-tag %q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
	}
	repo, code := c.compileOnly()
	if repo == nil {
		return code
	}
	then := "nothing written"
	if tag != "" {
		log := &diag.Log{}
		release.CheckTag(repo.res.Spec, tag, log)
		c.rep.log(log)
		if log.HasErrors() {
			return ExitProblems
		}
		then = "every pinned environment pins " + tag
	}
	c.rep.checked(repo.counts(repo.res), repo.res.Gaps, then)
	return ExitOK
}

func runSchema(c *call) int {
	primitives, err := schemas.PrimitivesCUE()
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	c.stdout.Write(schemas.PlatformCUE)
	fmt.Fprintf(c.stdout, "\n%s", primitives)
	return ExitOK
}

func runPreview(c *call, client, env string, manifests bool) int {
	if client == "" || env == "" {
		return c.usagef("%s", c.cmd.missing)
	}
	c.keepRenders = manifests
	repo, code := c.compileOnly()
	if repo == nil {
		return code
	}
	res := repo.res
	stack := c.args[0]
	var stacks []string
	for _, st := range res.Spec.Stacks {
		stacks = append(stacks, st.Name)
	}
	for _, arg := range []struct {
		what, name string
		names      []string
	}{{"stack", stack, stacks}, {"client", client, res.Clients}, {"environment", env, model.EnvNames(res.Spec.Environments)}} {
		if msg := known(arg.what, arg.name, arg.names); msg != "" {
			return c.errorf(ExitUsage, "%s", msg)
		}
	}
	p, err := res.Stacks.PreviewInstance(stack, client, env)
	if err != nil {
		fmt.Fprintf(c.stderr, "platc preview: %v\n", err)
		if !slices.ContainsFunc(res.Stacks.Instances, func(i *rgd.Instance) bool {
			return i.Stack.Model.Name == stack && i.Client.Name == client && i.Env.Name == env
		}) {
			return ExitUsage
		}
		return ExitProblems
	}
	inst := p.Instance
	fmt.Fprintf(c.stdout, "# %s %q of stack %s in environment %s (namespace %s), evaluated offline.\n",
		inst.Stack.Model.Kind, inst.Client.Name, inst.Stack.Model.Name, inst.Env.Name, inst.Namespace)
	fmt.Fprintf(c.stdout, "# %s marks what only the cluster knows.\n#\n", rgd.Placeholder("expression"))
	var apps []*object.Map
	for _, r := range p.Resources {
		fmt.Fprintf(c.stdout, "# %s (%s): %s\n", r.ID, r.Kind, r.Included)
		if r.Object != nil && r.Kind == "Application" {
			apps = append(apps, r.Object)
		}
	}
	if len(apps) > 0 {
		fmt.Fprint(c.stdout, "---\n")
		c.stdout.Write(emit.Documents(apps))
	}
	if manifests {
		for _, app := range apps {
			name, _ := object.Lookup(app, "metadata", "name").(string)
			rendered := false
			for _, a := range res.Charts.Apps() {
				if a.Env != env || a.Name != name {
					continue
				}
				rendered = true
				fmt.Fprintf(c.stdout, "---\n# What %s renders for Application %s (%s).\n", a.Source, name, env)
				objects, err := a.Outcome.Manifests()
				if err != nil {
					return c.errorf(ExitProblems, "%v", err)
				}
				for _, m := range objects {
					fmt.Fprintf(c.stdout, "---\n# Source: %s\n", m.Source)
					data, err := yaml.Marshal(m.Object)
					if err != nil {
						return c.errorf(ExitUsage, "%v", err)
					}
					c.stdout.Write(data)
				}
			}
			if !rendered {
				fmt.Fprintf(c.stdout, "---\n# Application %s: its chart is not rendered offline (platc vet says why)\n", name)
			}
		}
	}
	return ExitOK
}

// readCRDs reads the .yaml and .yml files of dir.
func readCRDs(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			continue
		}
		data, err := readInput(filepath.Join(dir, e.Name()), maxInput)
		if err != nil {
			return nil, err
		}
		files[filepath.Join(dir, e.Name())] = data
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .yaml file", dir)
	}
	return files, nil
}
