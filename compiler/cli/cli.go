// Package cli is platc's command line: it parses arguments, runs the
// compiler on the repository folder, and writes or compares the output. It is
// the edge of the program, the one place that opens the disk and prints. It
// locks the output folder, completes a write that was interrupted there
// before anything else (output.go), and turns SIGINT and SIGTERM into a
// clean end.
//
// Exit codes: 0 success; 1 problems found (failed checks, drift, a file in
// the way); 2 usage or I/O errors.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/release"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/schemas"
	"sigs.k8s.io/yaml"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitProblems = 1
	ExitUsage    = 2
)

const usage = `platc compiles a CUE platform spec into the Argo CD manifests of a GitOps repository.

Usage:

	platc <command> [flags]

Commands:

	render   check the spec and write the output folder (out/)
	check    render in memory and compare with the output folder (drift check)
	vet      check the spec; write nothing
	preview  print the Applications kro would create for a client's stack instance
	explain  show the layers of Helm values that reach an Application, and which wins
	release  move the pinned environments to a new release tag, check it, and render
	diff     compare two renders (Git revisions or folders) object by object
	schema   print the spec language (the embedded CUE schema)
	init     start a platform of your own: a minimal spec, a Makefile, pre-commit and CI, rendered
	hooks    install the Git pre-commit hook (platc hooks install)
	charts   lock and fetch the pinned charts (pull, the one command that uses the network), or vendor them
	version  print which platc this is

Run platc <command> -h for a command's flags.

Exit codes: 0 success, 1 problems found (failed checks, drift), 2 usage or I/O error.
`

// Main runs platc with args (without the program name) and returns the exit
// code. Output goes to stdout, problems to stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	return run(osProcess, args, stdout, stderr)
}

// run is Main in the process proc.
func run(proc *process, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "render":
		return runRender(proc, rest, stdout, stderr)
	case "check":
		return runCheck(proc, rest, stdout, stderr)
	case "vet":
		return runVet(proc, rest, stdout, stderr)
	case "schema":
		return runSchema(rest, stdout, stderr)
	case "preview":
		return runPreview(proc, rest, stdout, stderr)
	case "explain":
		return runExplain(proc, rest, stdout, stderr)
	case "release":
		return runRelease(proc, rest, stdout, stderr)
	case "diff":
		return runDiff(rest, stdout, stderr)
	case "init":
		return runInit(proc, rest, stdout, stderr)
	case "hooks":
		return runHooks(rest, stdout, stderr)
	case "charts":
		return runCharts(proc, rest, stdout, stderr)
	case "version", "-version", "--version":
		return runVersion(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "platc: unknown command %q: run platc help\n", cmd)
	return ExitUsage
}

// common are the flags every compiling command takes.
type common struct {
	name        string // the command's
	proc        *process
	dir         string
	specDir     string
	strict      bool
	clientRepos clientRepos
	crds        string
}

// clientRepos is the repeatable -client-repo NAME=DIR flag.
type clientRepos map[string]string

func (c clientRepos) String() string { return "" }

func (c clientRepos) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want CLIENT=DIR, such as search=../search-gitops")
	}
	c[name] = dir
	return nil
}

// newFlags returns a command's flag set, with -C: usage is what follows
// the command's name on its usage line, summary says what it does.
// Commands that compile the spec add the compile flags (compileFlags).
func newFlags(name, usage, summary string, stderr io.Writer) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet("platc "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &common{name: name, clientRepos: clientRepos{}, specDir: compiler.DefaultSpecDir}
	fs.StringVar(&c.dir, "C", ".", "run in `dir`, the repository root")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: platc %s %s\n\n%s\n\nFlags:\n", name, usage, summary)
		fs.PrintDefaults()
	}
	return fs, c
}

// compileFlags adds the flags of the commands that compile the spec.
func (c *common) compileFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.specDir, "spec", compiler.DefaultSpecDir, "`folder` of the spec's .cue files, relative to the repository root")
	fs.BoolVar(&c.strict, "strict", false, "make a client's values key that the platform overrides an error, not a warning")
	fs.Var(c.clientRepos, "client-repo", "a local checkout of a client's values repository, `client=dir`, to check its files (repeatable)")
	fs.StringVar(&c.crds, "crds", "", "validate the output against the CustomResourceDefinitions in `dir` (a cluster's own) instead of the embedded ones")
}

// parse parses flags, which may come before, between or after the
// positional arguments, and returns the positional arguments. It returns an
// exit code and stop when the command should stop (help, a bad flag, more
// positional arguments than max).
func parse(fs *flag.FlagSet, args []string, max int) (positional []string, code int, stop bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, ExitOK, true
			}
			return nil, ExitUsage, true
		}
		if fs.NArg() == 0 {
			break
		}
		if read := len(args) - fs.NArg(); read > 0 && args[read-1] == "--" {
			// After --, everything is positional, even what looks
			// like a flag.
			positional = append(positional, fs.Args()...)
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > max {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), positional[max])
		fs.Usage()
		return nil, ExitUsage, true
	}
	return positional, 0, false
}

// unknownClients says which clients -client-repo names that the spec does
// not declare, or "": a checkout for a client nobody has would be ignored.
func unknownClients(repos clientRepos, clients []string) string {
	var msgs []string
	for _, name := range slices.Sorted(maps.Keys(repos)) {
		if !slices.Contains(clients, name) {
			msgs = append(msgs, fmt.Sprintf("-client-repo %s=%s: the spec has no client %q%s (its clients: %s): name one of them", name, repos[name], name, diag.DidYouMean(name, clients), diag.OrNone(clients)))
		}
	}
	return strings.Join(msgs, "\nplatc: ")
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

// close releases the output roots' locks, and closes the repository and
// the client checkouts.
func (repo *compiled) close() {
	repo.out.release()
	repo.stop()
	repo.root.Close()
	for _, r := range repo.clients {
		r.Close()
	}
}

// compile opens the repository and compiles it; with scan, it also reads
// the output folder (res.Existing), for the commands that compare or write
// it, and with hold it holds the output folder's lock until close. Before
// reading the output folder, it completes a write that was interrupted
// there. It prints the problems and returns nil with an exit code when
// the command should stop; otherwise the caller closes what it returns.
func (c *common) compile(stderr io.Writer, scan, hold bool) (*compiled, int) {
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		fmt.Fprintf(stderr, "platc: opening the repository: %v\n", err)
		return nil, ExitUsage
	}
	repo := &compiled{root: root}
	repo.ctx, repo.stop = c.proc.interrupts()
	repo.out = &outputs{root: root, proc: c.proc, holder: "platc " + c.name, interrupt: repo.ctx.Done(), hold: hold, stderr: stderr, locks: map[string]*emit.Lock{}}
	repo.opts = compiler.Options{SpecDir: strings.TrimSuffix(c.specDir, "/"), Strict: c.strict, ClientRepos: map[string]layers.Repo{}, ScanOutput: scan, Cache: openCache(c.dir), PrepareOutput: repo.out.prepare}
	for name, dir := range c.clientRepos {
		// Reads stay inside the checkout; the root lives as long as the
		// command.
		r, err := os.OpenRoot(dir)
		if err != nil {
			fmt.Fprintf(stderr, "platc: opening client %s's values repository: %v\n", name, err)
			repo.close()
			return nil, ExitUsage
		}
		repo.clients = append(repo.clients, r)
		repo.opts.ClientRepos[name] = layers.Repo{FS: r.FS(), Dir: dir}
	}
	if c.crds != "" {
		crds, err := readCRDs(c.crds)
		if err != nil {
			fmt.Fprintf(stderr, "platc: reading the CRDs: %v\n", err)
			repo.close()
			return nil, ExitUsage
		}
		repo.opts.CRDs = crds
	}
	repo.opts.Charts = openChartStore()
	repo.res = compiler.Compile(newRepoFS(root), repo.opts)
	repo.out.printNotes()
	if msg := unknownClients(c.clientRepos, repo.res.Clients); msg != "" && repo.res.Clients != nil {
		fmt.Fprintf(stderr, "platc: %s\n", msg)
		repo.close()
		return nil, ExitUsage
	}
	fmt.Fprint(stderr, repo.res.Log.String())
	if c.name == "vet" {
		// What was not checked is vet's to say; render and check stay
		// quiet about it.
		for _, n := range repo.res.Notes {
			fmt.Fprintf(stderr, "platc: note: %s\n", n)
		}
	}
	if repo.res.Log.HasErrors() {
		repo.close()
		return nil, ExitProblems
	}
	if repo.res.ScanErr != nil {
		fmt.Fprintf(stderr, "platc: %v\n", repo.res.ScanErr)
		repo.close()
		return nil, ExitUsage
	}
	repo.out.keepOnly(repo.res.OutDir)
	if interrupted(repo.ctx, stderr, "nothing was written") {
		repo.close()
		return nil, ExitUsage
	}
	return repo, ExitOK
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

func runRender(proc *process, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("render", "[flags]", `Render checks the spec and writes the output folder. On any problem it writes
nothing. The write is all or nothing, even when platc is killed: the next platc
command completes it or undoes it. SIGINT and SIGTERM stop a render cleanly.`, stderr)
	c.compileFlags(fs)
	if _, code, stop := parse(fs, args, 0); stop {
		return code
	}
	c.proc = proc
	repo, code := c.compile(stderr, true, true)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	if conflicts := emit.Conflicts(res.Existing, res.Outputs); len(conflicts) > 0 {
		for _, cf := range conflicts {
			fmt.Fprintf(stderr, "%s: %s: move it out of %s/, platc does not overwrite it\n", cf.Path, cf.Problem, res.OutDir)
		}
		return ExitProblems
	}
	w, err := repo.out.write(res.OutDir, res.Existing, res.Outputs, nil)
	if err != nil {
		return writeFailed(stderr, res.OutDir, err)
	}
	fmt.Fprintf(stdout, "platc: %s/: %d files, %d written, %d unchanged, %d removed\n",
		res.OutDir, len(res.Outputs), len(w.Written), len(w.Unchanged), len(w.Removed))
	if interrupted(repo.ctx, stderr, res.OutDir+"/ was committed: the render was finished") {
		return ExitUsage
	}
	return ExitOK
}

func runCheck(proc *process, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("check", "[flags]", `Check renders the spec in memory and compares it with the output folder, for a
pre-commit hook or CI. It exits 1 when they differ, with a line per file saying
how (stale, missing, extra, or edited by hand), a summary, and a unified diff
per file on stdout. With -format github, it writes GitHub Actions annotations
that point at the files instead of the plain lines.`, stderr)
	c.compileFlags(fs)
	format := fs.String("format", "text", "`text` or github (GitHub Actions annotations)")
	if _, code, stop := parse(fs, args, 0); stop {
		return code
	}
	if *format != "text" && *format != "github" {
		fmt.Fprintf(stderr, "platc check: unknown -format %q: use text or github\n", *format)
		return ExitUsage
	}
	c.proc = proc
	repo, code := c.compile(stderr, true, true)
	if repo == nil {
		return code
	}
	defer repo.close()
	res := repo.res
	drifts := emit.Compare(res.Existing, res.Outputs)
	if len(drifts) == 0 {
		return ExitOK
	}
	count := map[emit.DriftKind]int{}
	edited := 0
	for _, d := range drifts {
		count[d.Kind]++
		if d.EditedByHand {
			edited++
		}
	}
	summary := fmt.Sprintf("%s/ is stale: %d changed, %d missing, %d extra", res.OutDir, count[emit.Changed], count[emit.Missing], count[emit.Extra])
	if edited > 0 {
		summary += fmt.Sprintf(" (%d edited by hand)", edited)
	}
	fix := fmt.Sprintf("run `platc render` and commit %s/", res.OutDir)
	if *format == "github" {
		for _, d := range drifts {
			fmt.Fprintf(stdout, "::error file=%s,line=%d,title=platc check::%s: %s\n", d.Path, d.Line, d.Why(), fix)
		}
		for _, d := range drifts {
			fmt.Fprintf(stdout, "::group::diff of %s\n%s::endgroup::\n", d.Path, d.Diff)
		}
		fmt.Fprintf(stdout, "::error title=platc check::%s: %s\n", summary, fix)
		return ExitProblems
	}
	for _, d := range drifts {
		fmt.Fprint(stdout, d.Diff)
	}
	for _, d := range drifts {
		fmt.Fprintf(stderr, "%s: %s\n", d.Path, d.Why())
	}
	fmt.Fprintf(stderr, "platc: %s: %s\n", summary, fix)
	return ExitProblems
}

func runVet(proc *process, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("vet", "[flags]", "Vet runs every check on the spec and writes nothing. With -tag, it also\nrequires every pinned environment to pin that tag (for CI on a tag push).", stderr)
	c.compileFlags(fs)
	tag := fs.String("tag", "", "require every pinned environment to pin `vX.Y.Z`")
	if _, code, stop := parse(fs, args, 0); stop {
		return code
	}
	c.proc = proc
	repo, code := c.compile(stderr, false, false)
	if repo == nil {
		return code
	}
	repo.close()
	res := repo.res
	if *tag != "" {
		log := &diag.Log{}
		release.CheckTag(res.Spec, *tag, log)
		fmt.Fprint(stderr, log.String())
		if log.HasErrors() {
			return ExitProblems
		}
	}
	return ExitOK
}

func runSchema(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("platc schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: platc schema\n\nSchema prints the spec language: the CUE schema platc checks sources/ against.\n")
	}
	if _, code, stop := parse(fs, args, 0); stop {
		return code
	}
	stdout.Write(schemas.PlatformCUE)
	return ExitOK
}

func runPreview(proc *process, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("preview", "[flags] <stack> -client <client> -env <environment>", `Preview evaluates a stack for one client's instance in one environment, offline,
and prints the Applications kro would create. Values only the cluster knows
(a primitive's status) are shown as <from the cluster: expression>.`, stderr)
	c.compileFlags(fs)
	client := fs.String("client", "", "the `client` whose instance to preview")
	env := fs.String("env", "", "the `environment` of the instance")
	manifests := fs.Bool("manifests", false, "also print what the Applications' charts render (offline, where the chart is locked and at hand)")
	positional, code, stop := parse(fs, args, 1)
	if stop {
		return code
	}
	if len(positional) != 1 || *client == "" || *env == "" {
		fmt.Fprintln(stderr, "platc preview: name one stack, and a client and an environment with -client and -env")
		fs.Usage()
		return ExitUsage
	}
	c.proc = proc
	repo, code := c.compile(stderr, false, false)
	if repo == nil {
		return code
	}
	repo.close()
	res := repo.res
	p, err := res.Stacks.PreviewInstance(positional[0], *client, *env)
	if err != nil {
		fmt.Fprintf(stderr, "platc preview: %v\n", err)
		return ExitProblems
	}
	inst := p.Instance
	fmt.Fprintf(stdout, "# %s %q of stack %s in environment %s (namespace %s), evaluated offline.\n",
		inst.Stack.Model.Kind, inst.Client.Name, inst.Stack.Model.Name, inst.Env.Name, inst.Namespace)
	fmt.Fprintf(stdout, "# %s marks what only the cluster knows.\n#\n", rgd.Placeholder("expression"))
	var apps []*object.Map
	for _, r := range p.Resources {
		fmt.Fprintf(stdout, "# %s (%s): %s\n", r.ID, r.Kind, r.Included)
		if r.Object != nil && r.Kind == "Application" {
			apps = append(apps, r.Object)
		}
	}
	if len(apps) > 0 {
		fmt.Fprint(stdout, "---\n")
		stdout.Write(emit.Documents(apps))
	}
	if *manifests {
		for _, app := range apps {
			name, _ := object.Lookup(app, "metadata", "name").(string)
			rendered := false
			for _, a := range res.Charts.Apps() {
				if a.Env != *env || a.Name != name {
					continue
				}
				rendered = true
				fmt.Fprintf(stdout, "---\n# What %s renders for Application %s (%s).\n", a.Source, name, *env)
				for _, m := range a.Outcome.Objects {
					fmt.Fprintf(stdout, "---\n# Source: %s\n", m.Source)
					data, err := yaml.Marshal(m.Object)
					if err != nil {
						fmt.Fprintf(stderr, "platc preview: %v\n", err)
						return ExitUsage
					}
					stdout.Write(data)
				}
			}
			if !rendered {
				fmt.Fprintf(stdout, "---\n# Application %s: its chart is not rendered offline (platc vet says why)\n", name)
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
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
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
