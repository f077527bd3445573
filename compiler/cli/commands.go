package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
)

// command is one platc command, as the table of commands (table)
// describes it: the dispatch, help, `help <command>`, -h, the completion
// scripts and the CLI reference (docs/cli.md) are all made from it.
type command struct {
	name string
	// args are the positional arguments on the usage line, after the
	// flags, such as "OLD NEW"; a flag the command requires is written
	// there too ("-client <client>") and not again among the flags.
	args    string
	summary string // one line, lower case, for the list of commands
	doc     string // the long help, in paragraphs
	dir     bool   // takes -C dir, the repository root
	compile bool   // takes the compile flags: -spec, -strict, -client-repo, -crds
	format  bool   // takes -format text|github|json
	// checks: the command passes on what it checked, and says what it
	// could not (charts not rendered, without a lock; clients' values
	// not read), in a note each and at the end of its summary.
	checks bool
	// minArgs and maxArgs bound the number of positional arguments
	// (maxArgs -1: any number);
	// missing says what to do when there are fewer than minArgs.
	minArgs, maxArgs int
	missing          string
	// words are what the positional arguments can be, for completion;
	// nil: anything (completed as a file name).
	words []string
	// flags defines the command's own flags on fs and returns what runs
	// the command once they are parsed.
	flags func(fs *flag.FlagSet) func(c *call) int
	// subs are the subcommands of a group (platc charts pull): a group
	// runs none itself, its first argument names one of them, and each
	// is a command of its own, with its own flags and help, whose name is
	// the group's and its own ("charts pull"). A group has no flags.
	subs []*command
}

// short is the last word of cmd's name: a subcommand's own name.
func (cmd *command) short() string { return cmd.name[strings.LastIndexByte(cmd.name, ' ')+1:] }

// lookupSub returns the subcommand of the group cmd called name, or nil
// and what to say: the unknown name, a close one, the names there are.
func (cmd *command) lookupSub(name string) (*command, string) {
	if i := slices.IndexFunc(cmd.subs, func(s *command) bool { return s.short() == name }); i >= 0 {
		return cmd.subs[i], ""
	}
	return nil, known("subcommand", name, cmd.subNames())
}

func (cmd *command) subNames() []string {
	var ns []string
	for _, s := range cmd.subs {
		ns = append(ns, s.short())
	}
	return ns
}

// leaves returns the commands of cmds that run: every command but the
// groups, and each group's subcommands in its place.
func leaves(cmds []*command) []*command {
	var out []*command
	for _, cmd := range cmds {
		if len(cmd.subs) > 0 {
			out = append(out, cmd.subs...)
		} else {
			out = append(out, cmd)
		}
	}
	return out
}

// noFlags is the flags of a command that has none of its own.
func noFlags(run func(c *call) int) func(*flag.FlagSet) func(*call) int {
	return func(*flag.FlagSet) func(*call) int { return run }
}

// table returns platc's commands, in the order help lists them. It is
// made on each call (help reads it to list the commands), and read only.
func table() []*command {
	cmds := []*command{
		{
			name:    "render",
			summary: "check the spec and write the output folder (out/); on any problem, write nothing",
			doc: `Render checks the spec and writes the output folder. On any problem it writes
nothing. The write is all or nothing, even when platc is killed: the next platc
command completes it or undoes it. SIGINT and SIGTERM stop a render cleanly.`,
			dir: true, compile: true, format: true, checks: true,
			flags: noFlags(runRender),
		},
		{
			name:    "check",
			summary: "render in memory and compare with the output folder (the drift check)",
			doc: `Check renders the spec in memory and compares it with the output folder, for a
pre-commit hook or CI. It exits 1 when they differ, with a line per file saying
how (stale, missing, extra, or edited by hand), a summary, and a unified diff
per file on stdout. When they agree, it prints one line: what it checked, and
what it did not (a chart without a lock, a client's values not read).
With -format github, it writes GitHub Actions annotations that point at the
files instead of the plain lines; with -format json, one JSON document.`,
			dir: true, compile: true, format: true, checks: true,
			flags: noFlags(runCheck),
		},
		{
			name:    "vet",
			summary: "run every check on the spec; write nothing",
			doc: `Vet runs every check on the spec and writes nothing; on success it prints one
line: what it checked, and what it did not (a chart without a lock, a client's
values not read). With -tag, it also requires every pinned environment to pin
that tag (for CI on a tag push).`,
			dir: true, compile: true, format: true, checks: true,
			flags: func(fs *flag.FlagSet) func(*call) int {
				tag := fs.String("tag", "", "require every pinned environment to pin `vX.Y.Z`")
				return func(c *call) int { return runVet(c, *tag) }
			},
		},
		{
			name:    "preview",
			args:    "-client <client> -env <environment> <stack>",
			summary: "print the Applications kro would create for a client's stack instance, evaluated offline",
			doc: `Preview evaluates a stack for one client's instance in one environment, offline,
and prints the Applications kro would create. Values only the cluster knows
(a primitive's status) are shown as <from the cluster: expression>.`,
			dir: true, compile: true,
			minArgs: 1, maxArgs: 1, missing: "name one stack, and a client and an environment with -client and -env",
			flags: func(fs *flag.FlagSet) func(*call) int {
				client := fs.String("client", "", "the `client` whose instance to preview")
				env := fs.String("env", "", "the `environment` of the instance")
				manifests := fs.Bool("manifests", false, "also print what the Applications' charts render (offline, where the chart is locked and at hand)")
				return func(c *call) int { return runPreview(c, *client, *env, *manifests) }
			},
		},
		{
			name:    "explain",
			args:    "<environment>/<application> [values.path]",
			summary: "show the layers of Helm values that reach an Application, and which wins",
			doc: `Explain shows the layers of Helm values that reach one Application, in Argo CD's
order (chart defaults, values files, values, valuesObject, parameters: a later
layer wins), what each sets, and where. With a values path, what each layer
sets for it and which wins; without, the merged values and the layer of each.`,
			dir: true, compile: true,
			minArgs: 1, maxArgs: 2, missing: "name an Application as <environment>/<application>, and optionally a values path",
			flags: func(fs *flag.FlagSet) func(*call) int {
				asJSON := fs.Bool("json", false, "print JSON")
				return func(c *call) int { return runExplain(c, *asJSON) }
			},
		},
		{
			name:    "release",
			args:    "vMAJOR.MINOR.PATCH",
			summary: "move the pinned environments to a new release tag, check it, and render",
			doc: `Release moves the pinned environments (the customers') to a new release tag:
it edits the revision in the spec files in place (formatting and comments
stay), checks the release (a valid tag newer than the current pin, every
source in this repository at the tag, no branch or HEAD), and renders. On any
problem it writes nothing.`,
			dir: true, compile: true, format: true, checks: true,
			minArgs: 1, maxArgs: 1, missing: "name the tag, such as v1.2.3",
			flags: func(fs *flag.FlagSet) func(*call) int {
				var envs stringList
				fs.Var(&envs, "env", "release only this pinned `environment` (repeatable)")
				return func(c *call) int { return runRelease(c, envs) }
			},
		},
		{
			name:    "versions",
			summary: "print which version of each chart every environment runs",
			doc: `Versions prints the matrix of chart versions: a row per chart, the platform's
pin, and a column per environment with the version it runs, marking an
environment's own pin (environments.<env>.charts) and where nothing installs
the chart. -format markdown prints it for a pull request's comment; json
gives each version's position in the spec.`,
			dir: true, compile: true,
			flags: versionsFlags,
		},
		{
			name:    "promote",
			args:    "FROM TO",
			summary: "set an environment's chart versions to another's, check it, and render",
			doc: `Promote sets the versions of the charts environment TO runs to those FROM
runs (every chart, or those named with -chart). It edits TO's own pins in the
spec in place, or writes a pin of TO's own where TO runs the platform's
version (formatting and comments stay), checks, and renders. On any problem it
writes nothing.

A pinned environment runs the charts of its release: a promotion into one
needs -release, which releases it to that tag in the same edit (as platc
release does), so that its versions are the ones at its tag.`,
			dir: true, compile: true, format: true, checks: true,
			minArgs: 2, maxArgs: 2, missing: "name the environment to promote from and the one to promote into: platc promote FROM TO",
			flags: func(fs *flag.FlagSet) func(*call) int {
				var charts stringList
				fs.Var(&charts, "chart", "promote only this `chart` (repeatable)")
				tag := fs.String("release", "", "release the pinned environment promoted into to `vX.Y.Z`, in the same edit")
				return func(c *call) int { return runPromote(c, charts, *tag) }
			},
		},
		{
			name:    "bump",
			args:    "CHART VERSION",
			summary: "set a chart's version (the platform's pin, or some environments'), check it, and render",
			doc: `Bump sets a chart's version: the platform's pin (charts.<chart>.version), or,
with -env, those environments' own pins (written where they run the
platform's). It edits the spec in place (formatting and comments stay),
checks, and renders; on any problem it writes nothing. VERSION is an exact
version, as every pin. A change that reaches a pinned environment (its own
pin, or the platform's that it runs) needs -release, which releases it in the
same edit.`,
			dir: true, compile: true, format: true, checks: true,
			minArgs: 2, maxArgs: 2, missing: "name the chart and its new version, such as platc bump kyverno 3.8.2",
			flags: func(fs *flag.FlagSet) func(*call) int {
				var envs stringList
				fs.Var(&envs, "env", "set the version of this `environment` only (repeatable)")
				tag := fs.String("release", "", "release the pinned environments the change reaches to `vX.Y.Z`, in the same edit")
				return func(c *call) int { return runBump(c, envs, *tag) }
			},
		},
		{
			name:    "outdated",
			summary: "list the newer versions the chart repositories offer, per chart and environment",
			doc: `Outdated lists every version of every chart the spec runs, the environments
that run it, and what its repository offers beyond: the newest patch, minor
and release, and how many newer versions. It reads each repository online (a
Helm repository's index.yaml, an OCI registry's tag list) and keeps a copy in
platc's cache; with -offline, or where a repository cannot be reached, it
reads that copy, and says from when. -format github annotates each outdated
pin; a repository whose versions are not known is a problem (exit 1).`,
			dir: true, compile: true, format: true,
			flags: outdatedFlags,
		},
		{
			name:    "diff",
			args:    "OLD NEW",
			summary: "compare two renders (Git revisions or folders) object by object",
			doc: `Diff compares two renders object by object: the Applications, AppProjects,
ResourceGraphDefinitions and stack instances added, removed and changed,
grouped by environment, and for a change the fields with their old and new
values. Each side is a Git revision of the repository (a tag, a branch, a
commit) or a folder: a repository, or an output root. Ordering and formatting
never show as a change.`,
			dir:     true,
			minArgs: 2, maxArgs: 2, missing: "name two renders: Git revisions or folders",
			flags: diffFlags,
		},
		{
			name:    "report",
			summary: "write one HTML page of what the environments run, in what order, and with which rights and values",
			doc: `Report writes one self-contained HTML page (no network, nothing loaded: it
opens from disk and prints) of what platc compiled: the matrix of environments
and modules (what each runs, its project and wave), the order of delivery as a
picture, the values each environment sets over the platform's, each
AppProject's permissions in plain words, each client's instances
and where every value of their Applications comes from (as platc explain
says), and the compilation's warnings. It writes to stdout, or to the file -o
names: not into the output folder, which holds the render alone.

-env limits it to some environments; -tag makes a release's page, of the pinned
environments that pin the tag. -since adds what changed since an earlier
render, object by object, as platc diff says; -rehearsal adds a delivery
rehearsal's verdicts from its JSON report.`,
			dir: true, compile: true,
			flags: reportFlags,
		},
		{
			name:    "graph",
			summary: "print the order of delivery (the modules, and what each needs) as DOT or Mermaid",
			doc: `Graph prints the modules and what each needs, the graph Argo CD's sync waves
follow, in Graphviz's language (-format dot, the default: dot -Tsvg draws it) or
as a Mermaid flowchart (-format mermaid, which GitHub draws in Markdown). A
group's members are in a cluster with the group, and a module that delivers
stack instances syncs after the one that delivers their definitions (a dashed
edge). -env keeps the modules those environments deliver.`,
			dir: true, compile: true,
			flags: graphFlags,
		},
		{
			name:    "schema",
			summary: "print the spec language (the embedded CUE schema), the primitives' fields last",
			doc: `Schema prints the spec language: the CUE schema platc checks sources/ against,
then the primitives a stack's primitives name (ObjectBucket, PostgresInstance),
as CUE definitions made from their CRDs. docs/spec.md is made from both.`,
			flags: noFlags(runSchema),
		},
		{
			name:    "init",
			args:    "[dir]",
			summary: "start a platform of your own: a minimal spec, a Makefile, pre-commit and CI, rendered",
			doc: `Init starts a platform of your own in dir (default the current folder): a
minimal spec in sources/ (one chart module, one environment), a Makefile, the
pre-commit framework's configuration (platc's hook platc-check) and a GitHub
Actions workflow that runs the drift check with platc's action, then renders
out/. It writes nothing when any of its files exists.`,
			maxArgs: 1,
			flags:   initFlags,
		},
		{
			name:    "import",
			args:    "[ENV=]PATH...",
			summary: "write a spec that renders an existing repository's Applications and AppProjects, and compare",
			doc: `Import reads the Argo CD Applications and AppProjects under each PATH (a
folder, walked with its sub-folders, or a file; a folder that holds a
kustomization is built as Argo CD builds it), one environment each (named ENV,
or after the folder; several PATHs may name one ENV), and writes a spec that
renders them: one module per Application name, its differences between
environments as the environments' settings, each environment's AppProjects,
the charts pinned. Every default of platc that the objects do not share is
written out, so that the render behaves as the originals. It then renders the
spec in memory and compares each object with its original as Argo CD reads
both, and prints a line per object: equal, differs (the fields), or not
imported (why, and what to do). It exits 0 when every object is equal. It never
overwrites a file without -force.`,
			dir: true, minArgs: 1, maxArgs: -1, missing: "name the folders to import, such as argocd/apps",
			flags: importFlags,
		},
		{
			name:    "hooks",
			summary: "install the Git pre-commit hook that refuses a commit whose out/ is stale",
			doc:     `Hooks manages platc's Git hooks.`,
			subs: []*command{{
				name:    "hooks install",
				summary: "install the Git pre-commit hook that refuses a commit whose out/ is stale",
				doc: `Hooks install writes platc's Git pre-commit hook into the repository: a commit
whose staged out/ is not what its staged spec renders is refused, with the files
named. The hook runs the platc that installed it (or PLATC, or platc on PATH
when this one is a temporary build). It replaces a hook platc wrote, and no
other unless -force.`,
				dir: true,
				flags: func(fs *flag.FlagSet) func(*call) int {
					force := fs.Bool("force", false, "replace a pre-commit hook that platc did not write")
					return func(c *call) int { return runHooks(c, *force) }
				},
			}},
		},
		{
			name:    "editor",
			summary: "let an editor complete and document the spec's fields: write platc's schema for cue lsp",
			doc: `Editor writes platc's schema into the spec folder, for CUE's own tools: the
schema as a CUE package in the folder's module (cue.mod/pkg/` + load.SchemaImport + `,
with cue.mod/module.cue where there is none), and ` + load.EditorFile + `, a spec file that
applies it. An editor running cue lsp (CUE's language server) then completes
platc's fields and shows their documentation, and cue vet marks a field platc
does not have. cue lsp does not apply a pattern of the schema ([string]:
#Module) to an entry, so ` + load.EditorFile + ` names each entry the spec has: run
platc editor again after adding a module or an environment, and after updating
platc. platc reads the spec without ` + load.EditorFile + `. platc init writes these
files too. docs/editors.md says how to set up VS Code and Neovim.`,
			dir: true,
			flags: func(fs *flag.FlagSet) func(*call) int {
				spec := specFlag(fs)
				return func(c *call) int { return runEditor(c, *spec) }
			},
		},
		{
			name:    "fmt",
			summary: "format the spec's .cue files as cue fmt does",
			doc: `Fmt formats the .cue files of the spec folder with CUE's own formatter, as
cue fmt does: layout only, never a value. It prints the files it changed. With
-check it writes nothing, prints the files that are not formatted, and exits 1
where there is one (for CI and the pre-commit hook). A file that does not parse
is an error at its line and column, and nothing is written.`,
			dir: true,
			flags: func(fs *flag.FlagSet) func(*call) int {
				spec := specFlag(fs)
				check := fs.Bool("check", false, "write nothing; list the files that are not formatted, and exit 1 where there is one")
				return func(c *call) int { return runFmt(c, *spec, *check) }
			},
		},
		{
			name:    "charts",
			summary: "lock and fetch the pinned charts (pull: the one command that uses the network), or vendor them",
			doc: `Charts locks and fetches the charts the spec pins (pull), or copies them into
the repository for CI without network (vendor).`,
			subs: []*command{
				{
					name:    "charts pull",
					summary: "fetch every pinned chart, and the dependencies of the repository's charts, into platc's cache and lock their digests (the one command that uses the network)",
					doc: `Charts pull fetches every chart the spec pins, from its HTTP chart repository
(index.yaml) or OCI registry, into platc's cache, and writes ` + charts.LockFile + ` beside
the spec with the sha256 digest of each archive (and its OCI manifest digest).
It does the same for the dependencies Argo CD downloads for a chart folder of
the repository that a module syncs (helm dependency build, where the folder's
charts/ lacks one): those of its Chart.lock, at its versions, and says why
where it cannot (no Chart.lock, a repository named by an alias).
It is the one platc command that uses the network. A chart whose archive is not
the one locked (a re-published version) is an error naming both digests;
-update accepts the new one. With -chart, it pulls only the charts named and
keeps the lock's entries of the others.`,
					dir: true,
					flags: func(fs *flag.FlagSet) func(*call) int {
						spec := specFlag(fs)
						update := fs.Bool("update", false, "accept an archive whose digest differs from the lock's (a re-published version)")
						var only stringList
						fs.Var(&only, "chart", "pull only this `chart`, the spec's name (repeatable); the lock keeps the others' entries")
						return func(c *call) int { return runChartsPull(c, *spec, only, *update) }
					},
				},
				{
					name:    "charts vendor",
					summary: "copy the locked chart archives into the repository, for CI without network",
					doc: `Charts vendor copies the locked archives from platc's cache into
<spec>/` + charts.VendorDir + `, for CI without network: commit that folder.`,
					dir: true,
					flags: func(fs *flag.FlagSet) func(*call) int {
						spec := specFlag(fs)
						return func(c *call) int { return runChartsVendor(c, *spec) }
					},
				},
			},
		},
		{
			name:    "version",
			summary: "print which platc this is and the Argo CD, kro and Helm it checks by",
			doc: `Version prints which platc this is (its module version, the VCS revision it
was built from, the Go version), then the upstream releases it targets: the
Argo CD whose rules it checks by, the kro and Helm whose code it links, the
kustomize, the Kubernetes and the argo-cd chart it assumes, and the kwok and
etcd of its delivery test. platc --version does the same.`,
			flags: noFlags(runVersion),
		},
		{
			name:    "completion",
			args:    "bash|zsh|fish",
			summary: "print the shell completion script of platc's commands and flags",
			doc: `Completion prints a script that completes platc's commands, their flags and
the values of some (folders, -format) in a shell:

	bash: source <(platc completion bash), or save it in ~/.local/share/bash-completion/completions/platc
	zsh:  source <(platc completion zsh), or save it as _platc in a folder of $fpath
	fish: platc completion fish | source, or save it as ~/.config/fish/completions/platc.fish`,
			minArgs: 1, maxArgs: 1, missing: "name the shell: bash, zsh or fish",
			words: shells,
			flags: noFlags(runCompletion),
		},
		{
			name:    "help",
			args:    "[command [subcommand] | messages | message-id]",
			summary: "print this list, a command's usage and flags, or what a message id means",
			doc:     "Help prints the list of commands or, for one command, its usage, what it does and its flags, as platc <command> -h does. platc help messages lists the ids every problem carries (such as [unknown-name]), and platc help <id> says what one means and what to do.",
			maxArgs: 2,
			flags:   noFlags(runHelp),
		},
	}
	for _, cmd := range cmds {
		if cmd.name == "help" {
			cmd.words = append(append(names(cmds), "messages"), diag.Names()...)
		}
		if len(cmd.subs) > 0 {
			cmd.words = cmd.subNames()
		}
	}
	return cmds
}

// specFlag is the -spec flag of a command that reads the spec's folder
// without compiling it.
func specFlag(fs *flag.FlagSet) *string {
	dir := compiler.DefaultSpecDir
	fs.Var((*specFolder)(&dir), "spec", specUsage)
	return &dir
}

const specUsage = "`folder` of the spec's .cue files, relative to the repository root"

// specFolder is the value of -spec: a folder of the repository, written
// as the user likes ("./sources/", "sources") and kept clean, since
// platc reads the repository through an os.Root, which takes clean
// relative paths only.
type specFolder string

func (s *specFolder) String() string { return string(*s) }

func (s *specFolder) Set(v string) error {
	clean := path.Clean(filepath.ToSlash(v))
	if filepath.IsAbs(v) || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("%q is outside the repository: platc reads the spec from the repository it checks; name its folder relative to the repository root, and the root with -C", v)
	}
	*s = specFolder(clean)
	return nil
}

func names(cmds []*command) []string {
	var ns []string
	for _, cmd := range cmds {
		ns = append(ns, cmd.name)
	}
	return ns
}

// lookup returns the command called name, or nil.
func lookup(cmds []*command, name string) *command {
	if i := slices.IndexFunc(cmds, func(cmd *command) bool { return cmd.name == name }); i >= 0 {
		return cmds[i]
	}
	return nil
}

// call is one run of a command: its flags as parsed, its arguments and
// where it reports.
type call struct {
	cmd    *command
	proc   *process
	args   []string // positional
	stdout io.Writer
	stderr io.Writer
	rep    *report
	// The flags of the table's columns: -C, -format, the compile flags.
	dir         string
	format      format
	specDir     string
	strict      bool
	clientRepos clientRepos
	crds        string
	// keepFiles asks the compilation for render's files
	// (compiler.Options.KeepFiles), for report; keepRenders for the
	// charts' renders (compiler.Options.KeepRenders), for explain and
	// preview -manifests.
	keepFiles   bool
	keepRenders bool
}

// newCall is a run of cmd in proc, with the flags' defaults.
func newCall(cmd *command, proc *process, stdout, stderr io.Writer) *call {
	return &call{cmd: cmd, proc: proc, stdout: stdout, stderr: stderr, dir: ".", format: textFormat, specDir: compiler.DefaultSpecDir, clientRepos: clientRepos{}}
}

// run is Main in the process proc.
func run(proc *process, args []string, stdout, stderr io.Writer) int {
	cmds := table()
	if len(args) == 0 {
		printCommands(stderr, cmds)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := lookup(cmds, name)
	if cmd == nil {
		fmt.Fprintf(stderr, "platc: unknown command %q%s: run platc help for the list of commands\n", name, diag.DidYouMean(name, names(cmds)))
		return ExitUsage
	}
	if len(cmd.subs) > 0 {
		var sub string
		if len(args) > 1 {
			sub = args[1]
		}
		switch {
		case sub == "-h" || sub == "-help" || sub == "--help":
			cmd.printGroupHelp(stdout)
			return ExitOK
		case sub == "" || strings.HasPrefix(sub, "-"):
			fmt.Fprintf(stderr, "platc %s: name a subcommand: %s\nrun platc help %s for more\n", cmd.name, "platc "+strings.Join(names(cmd.subs), " or platc "), cmd.name)
			return ExitUsage
		}
		s, msg := cmd.lookupSub(sub)
		if s == nil {
			fmt.Fprintf(stderr, "platc %s: %s\nrun platc help %s for more\n", cmd.name, msg, cmd.name)
			return ExitUsage
		}
		cmd, args = s, args[1:]
	}
	c := newCall(cmd, proc, stdout, stderr)
	fs, runCmd := cmd.flagSet(c)
	positional, code, stop := c.parse(fs, args[1:])
	if stop {
		return code
	}
	c.args = positional
	c.rep = newReport(c.format, cmd.name, c.dir, stdout, stderr)
	code = runCmd(c)
	c.rep.finish(code)
	return code
}

// flagSet returns the flag set of cmd, whose flags set c's fields, and
// what runs cmd.
func (cmd *command) flagSet(c *call) (*flag.FlagSet, func(*call) int) {
	fs := flag.NewFlagSet("platc "+cmd.name, flag.ContinueOnError)
	// parse reports flag errors, and help goes to stdout.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if cmd.dir {
		fs.StringVar(&c.dir, "C", ".", "run in `dir`, the repository root")
	}
	if cmd.compile {
		fs.Var((*specFolder)(&c.specDir), "spec", specUsage)
		fs.BoolVar(&c.strict, "strict", false, "make a client's values key that the platform overrides an error, not a warning")
		fs.Var(c.clientRepos, "client-repo", "a local checkout of a client's values repository, `client=dir`, to check its files (repeatable)")
		fs.StringVar(&c.crds, "crds", "", "validate the output against the CustomResourceDefinitions in `dir` (a cluster's own) instead of the embedded ones")
	}
	if cmd.format {
		fs.Var(&c.format, "format", "report problems in `format`: text (lines on stderr), github (GitHub Actions workflow commands) or json (one document on stdout)")
	}
	if cmd.flags == nil {
		return fs, nil // a group: it runs nothing itself
	}
	return fs, cmd.flags(fs)
}

// compileFlagNames are the flags of the commands that compile the spec.
var compileFlagNames = []string{"spec", "strict", "client-repo", "crds"}

// parse parses flags, which may come before, between or after the
// positional arguments, and returns the positional arguments. It returns an
// exit code and stop when the command should stop: help (-h, on stdout),
// a bad flag, too few or too many positional arguments (on stderr).
func (c *call) parse(fs *flag.FlagSet, args []string) (positional []string, code int, stop bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.cmd.printHelp(c.stdout, fs)
				return nil, ExitOK, true
			}
			return nil, c.usagef("%s", flagError(err, fs)), true
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
	switch cmd := c.cmd; {
	case len(positional) > cmd.maxArgs && cmd.maxArgs == 0:
		return nil, c.usagef("unexpected argument %q: platc %s takes none", positional[0], cmd.name), true
	case len(positional) > cmd.maxArgs && cmd.maxArgs >= 0:
		return nil, c.usagef("unexpected argument %q", positional[cmd.maxArgs]), true
	case len(positional) < cmd.minArgs:
		return nil, c.usagef("%s", cmd.missing), true
	}
	return positional, 0, false
}

// flagError is the message of a flag the flag package refused, with a
// "did you mean" for an unknown flag.
func flagError(err error, fs *flag.FlagSet) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, "-"+f.Name) })
		return msg + diag.DidYouMean("-"+strings.TrimPrefix(name, "-"), known)
	}
	return msg
}

// usagef reports a usage error on stderr: what is wrong and what to do,
// then the command's usage line. It returns ExitUsage.
func (c *call) usagef(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "platc %s: %s\n", c.cmd.name, fmt.Sprintf(format, args...))
	fs, _ := c.cmd.flagSet(newCall(c.cmd, nil, nil, nil))
	fmt.Fprintf(c.stderr, "usage: %s\nrun platc help %s for more\n", c.cmd.usageLine(fs), c.cmd.name)
	return ExitUsage
}

// errorf writes "platc <command>: message" on stderr and returns code.
func (c *call) errorf(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "platc %s: %s\n", c.cmd.name, fmt.Sprintf(format, args...))
	return code
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func (l *stringList) repeatable() {}

// repeatable marks a flag that may be given more than once, for
// completion.
type repeatable interface{ repeatable() }

// wordsFlag is a flag whose values completion can list.
type wordsFlag interface{ words() []string }

// known says what to do when name is not one of names, or "".
func known(what, name string, names []string) string {
	if slices.Contains(names, name) {
		return ""
	}
	return fmt.Sprintf("unknown %s %q%s: the %ss are %s", what, name, diag.DidYouMean(name, names), what, diag.OrNone(names))
}
