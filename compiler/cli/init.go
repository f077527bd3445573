package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue/literal"

	"github.com/platc/platc/compiler/editor"
)

// starterFiles are what platc init writes: a minimal platform that renders
// and checks at once, and what a repository needs to keep it checked (make
// targets, the pre-commit configuration, a CI workflow). Each is a
// template over the platform's name, its repository and platc's version.
var starterFiles = []struct{ path, text string }{
	{"sources/platform.cue", `package platform

// The platform spec. platc reads every .cue file of this folder, checks it
// against its schema (platc schema prints it: a field written name! there
// is required, name? is optional) and renders out/. platc render writes
// out/; platc check fails when out/ is not what this spec renders.

platform: {
	name:               {{name}}
	repoURL:            {{repo}}
	defaultEnvironment: "local"
}

// charts pins the Helm charts modules install, each at an exact version.
charts: podinfo: {
	repoURL: "https://stefanprodan.github.io/podinfo"
	chart:   "podinfo"
	version: "6.4.0"
}

// modules are the Argo CD Applications every environment gets.
modules: podinfo: {
	chart:     "podinfo"
	namespace: "podinfo"
	values: replicaCount: 1
}

// environments are the clusters. local follows the newest commit; a
// customer's cluster would pin a release tag (pinned: true, revision: "v1.0.0").
environments: local: revision: "HEAD"
`},
	{"Makefile", `# The platform's commands: make render before a commit, make check in CI.
# PLATC names the platc to run: by default, platc on PATH.
PLATC ?= platc

.PHONY: render check vet hooks need-platc

## render: check the spec in sources/ and write out/
render: need-platc
	$(PLATC) render

## check: fail if out/ is not what sources/ renders (the drift check)
check: need-platc
	$(PLATC) check

## vet: run every check on sources/, write nothing
vet: need-platc
	$(PLATC) vet

## hooks: install the Git pre-commit hook that refuses a commit whose out/ is stale
hooks: need-platc
	$(PLATC) hooks install

# need-platc says how to install platc where it is missing, which make
# would report as "No such file or directory".
need-platc:
	@command -v $(PLATC) >/dev/null 2>&1 || { echo "$(PLATC) is not on PATH: {{install}}, or name it with make PLATC=path" >&2; exit 1; }
`},
	{".pre-commit-config.yaml", `# The pre-commit framework's configuration (https://pre-commit.com): the
# commit is refused when out/ is not what the spec renders, or when a spec
# file is not formatted (platc fmt formats them). pre-commit
# install turns it on (instead of platc hooks install); pre-commit builds
# platc with Go from the hooks of platc's repository (.pre-commit-hooks.yaml).{{pin}}
repos:
  - repo: https://github.com/platc/platc
    rev: {{rev}}
    hooks:
      - id: platc-check
      - id: platc-fmt
`},
	{".github/workflows/platc.yaml", `# The drift check: fails when out/ is not what the spec renders, with an
# annotation on each stale file. platc's action (action.yml of
# github.com/platc/platc) builds platc at the ref it is used at, with Go,
# and runs platc check -format github; its inputs: version,
# working-directory, args.{{pin}}
name: platc
on: [push, pull_request]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: platc/platc@{{rev}}
`},
}

// releasesURL is where platc's release archives are.
const releasesURL = "https://github.com/platc/platc/releases"

// pins are the starter files' words for the platc they run, as
// replacements: a release pins itself; a development build, which no
// tag names, pins nothing that does not exist: the hooks and the
// workflow follow platc's main branch, with a comment to pin a release,
// and platc is installed from a clone.
func pins(v buildVersion) []string {
	if r := releaseOf(v.Module); r != "" {
		return []string{
			"{{install}}", fmt.Sprintf("install it from %s/tag/%s, or with go install %s/cmd/platc@%s", releasesURL, r, modulePath, r),
			"{{rev}}", r,
			"{{pin}}", "",
		}
	}
	return []string{
		"{{install}}", "build it from a clone of " + modulePath + " with go install ./cmd/platc, or install a release from " + releasesURL,
		"{{rev}}", "main",
		"{{pin}}", "\n# A development build of platc wrote this, so it follows platc's main\n# branch: pin a release of " + releasesURL + " instead.",
	}
}

// notLabel finds what a DNS-1123 label cannot hold.
var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// labelOf is s made a DNS-1123 label, as far as that takes: lower case,
// what a label cannot hold as '-', none at either end.
func labelOf(s string) string {
	return strings.Trim(notLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// dnsLabel is a DNS-1123 label, which a platform's name is (platc check's
// rule); scpURL a Git repository URL written as scp writes one
// (git@host:org/repo.git).
var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	scpURL   = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/].*$`)
)

// initArgProblem says what is wrong with init's name and repository, or
// "": it runs before init writes anything.
func initArgProblem(name, repo string) string {
	if !dnsLabel.MatchString(name) {
		return fmt.Sprintf("-name %q is not a DNS-1123 label: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit", name)
	}
	const example = "give one such as https://git.example.com/org/repo.git or git@git.example.com:org/repo.git"
	if strings.ContainsFunc(repo, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' || r == '\'' || r == '\\' || r == '`' }) {
		return fmt.Sprintf("-repo %q is not a Git repository URL: it holds a quote, a backslash, a space or a control character; %s", repo, example)
	}
	if u, err := url.Parse(repo); err == nil && u.Scheme != "" && u.Host != "" && u.Opaque == "" || scpURL.MatchString(repo) {
		return ""
	}
	return fmt.Sprintf("-repo %q is not a Git repository URL: %s", repo, example)
}

// initFlags are init's flags, and what runs it.
func initFlags(flags *flag.FlagSet) func(*call) int {
	name := flags.String("name", "", "the platform's `name` (default the folder's name)")
	repo := flags.String("repo", "", "the platform's Git repository `URL` (default https://git.example.com/<name>.git, to change)")
	return func(c *call) int { return runInit(c, *name, *repo) }
}

func runInit(c *call, name, repo string) int {
	dir := "."
	if len(c.args) == 1 {
		dir = c.args[0]
	}
	if name == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return c.errorf(ExitUsage, "%v", err)
		}
		name = labelOf(filepath.Base(abs))
		if len(name) > 63 {
			name = strings.TrimRight(name[:63], "-")
		}
		name = cmp.Or(name, "platform")
	}
	repoGiven := repo != ""
	if !repoGiven {
		repo = "https://git.example.com/" + name + ".git"
	}
	if msg := initArgProblem(name, repo); msg != "" {
		return c.errorf(ExitUsage, "%s", msg)
	}
	// The spec gets them as CUE string literals, quoted as CUE quotes.
	replacer := strings.NewReplacer(append([]string{"{{name}}", literal.String.Quote(name), "{{repo}}", literal.String.Quote(repo)}, pins(readBuildVersion())...)...)

	paths := []string{path.Join("sources", editor.ModuleFile), path.Join("sources", editor.SchemaFile), path.Join("sources", editor.ApplyFile)}
	for _, f := range starterFiles {
		paths = append(paths, f.path)
	}
	slices.Sort(paths)
	inTheWay := false
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(c.stderr, "%s: exists: platc init writes nothing over a file; start in an empty folder, or move it\n", filepath.Join(dir, p))
			inTheWay = true
		}
	}
	if inTheWay {
		return ExitProblems
	}
	for _, f := range starterFiles {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err == nil {
			err = os.WriteFile(p, []byte(replacer.Replace(f.text)), 0o644)
		}
		if err != nil {
			return c.errorf(ExitUsage, "%v", err)
		}
		fmt.Fprintf(c.stdout, "platc: wrote %s\n", filepath.Join(dir, f.path))
	}
	// platc's schema for an editor's cue lsp (platc editor).
	if err := writeEditorFiles(dir, "sources", dir, c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "%v\n", err)
		return ExitProblems
	}
	if code := run(c.proc, []string{"render", "-C", dir}, c.stdout, c.stderr); code != ExitOK {
		return code
	}
	// A repository named by -repo is set: only the default is a
	// placeholder to change.
	next := "commit, and run platc hooks install (or, with the pre-commit framework, pre-commit install)"
	if !repoGiven {
		next = fmt.Sprintf("set platform.repoURL in %s, %s", filepath.Join(dir, "sources", "platform.cue"), next)
	}
	fmt.Fprintf(c.stdout, "platc: next: %s\n", next)
	return ExitOK
}
