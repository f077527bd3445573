package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocs runs every fenced code block of README.md and docs/*.md, so that
// no example in them goes stale. What a block is, and how it runs, is its
// info string and a marker on the line before its fence, an HTML comment
// that Markdown does not show:
//
//	<!-- doc: DIRECTIVE; DIRECTIVE... -->
//
// A block runs in a folder of its own, its context: by default a platform
// repository that `platc init -repo https://git.example.com/my-platform.git`
// made in a folder my-platform (a Git repository, nothing committed);
// with a directive, a copy of the sample or of another folder of this
// repository. `platc` on PATH is the platc under test (this test binary).
//
//   - ```cue: the block is written as a file of the spec, sources/doc.cue
//     (with `package platform` first when it has no package clause), and
//     `platc vet` must succeed.
//   - ```sh: the block runs with bash -e, and must succeed.
//   - any other block (```, ```yaml) needs a marker: it cannot run as it is.
//
// The directives:
//
//   - no-run REASON: the block is not run, for REASON (it needs a cluster,
//     the network, minutes of benchmarks, or it is a picture). Nothing else
//     may be said with it.
//   - output: the block shows what a command prints, or writes, on a
//     platform the text describes; it is not run.
//   - output of COMMAND: the block is what COMMAND (run with bash in the
//     context) prints on stdout, byte for byte; go test -update rewrites it.
//     An output block whose first line is "$ COMMAND" is a transcript:
//     the rest is what COMMAND prints, as with output of COMMAND.
//   - sample: the context is a copy of this repository's sample (sources/,
//     clients/, out/), a Git repository whose one commit is tagged v0.11.0
//     (the release its customer pins).
//   - in DIR: the context is a copy of DIR, a folder of this repository.
//   - empty: the context is an empty folder my-platform, for a block that
//     runs platc init itself.
//   - series NAME: the blocks of a file with this directive are steps, run
//     in order in one context, made for the first of them (a tutorial):
//     each sees what the steps before it wrote. Only the first may name
//     the context (sample, in, empty).
//   - before COMMAND: run COMMAND in the context first (what the text
//     takes as done, such as a release), its output not shown.
//   - file PATH: a cue block is the file PATH of the context (replacing it
//     where there is one), not sources/doc.cue.
//   - then COMMAND: after a cue block is written, run COMMAND, not platc vet.
//   - error TEXT: the block (a sh block), or the command after a cue block,
//     must fail, and print TEXT (on stdout or stderr).
//
// A marker with a directive not listed here, or not before a fence, is a
// failure; so is a block the harness cannot run that has no marker.
func TestDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var blocks []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		bs, errs := docBlocks(filepath.ToSlash(rel), string(data))
		for _, e := range errs {
			t.Error(e)
		}
		blocks = append(blocks, bs...)
	}
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the examples run with bash and git: %v", err)
		}
	}
	var mu sync.Mutex
	updates := map[string][]docBlock{}
	keep := func(b docBlock, got string, ok bool) {
		if !ok && *update {
			b.body = got
			mu.Lock()
			updates[b.file] = append(updates[b.file], b)
			mu.Unlock()
		}
	}
	run, marked := 0, 0
	// The blocks run in parallel, in a group that ends before the rewrite;
	// the steps of a series run in order, in one subtest.
	t.Run("blocks", func(t *testing.T) {
		series := map[string][]docBlock{}
		var order []string
		for _, b := range blocks {
			if b.noRun != "" || (b.output && b.outputOf == "") {
				marked++
				continue
			}
			run++
			if b.series != "" {
				key := b.file + " " + b.series
				if series[key] == nil {
					order = append(order, key)
				} else if b.sample || b.in != "" || b.empty {
					t.Errorf("%s:%d: only the first step of series %s names its context", b.file, b.line, b.series)
				}
				series[key] = append(series[key], b)
				continue
			}
			t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
				t.Parallel()
				got, ok := runDocBlock(t, docContext(t, root, b), b)
				keep(b, got, ok)
			})
		}
		for _, key := range order {
			steps := series[key]
			t.Run(fmt.Sprintf("%s:%d", steps[0].file, steps[0].line), func(t *testing.T) {
				t.Parallel()
				dir := docContext(t, root, steps[0])
				for _, b := range steps {
					if !t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
						got, ok := runDocBlock(t, dir, b)
						keep(b, got, ok)
					}) && !*update {
						t.Fatalf("series %s stops at the step that failed", b.series)
					}
				}
			})
		}
	})
	t.Logf("%d blocks: %d run, %d not run (marked)", len(blocks), run, marked)
	for file, bs := range updates {
		rewriteDocBlocks(t, filepath.Join(root, file), bs)
	}
}

// docBlock is a fenced code block of a Markdown file and its marker.
type docBlock struct {
	file       string
	line       int // of the opening fence
	start, end int // lines of the body, [start, end), counted from 0
	info       string
	indent     string // of the fence, taken off the body's lines
	body       string

	noRun    string // the reason
	output   bool
	outputOf string
	sample   bool
	in       string
	empty    bool
	series   string
	path     string // file PATH
	then     string
	before   string
	prompt   string // the first line of a transcript, "$ COMMAND"
	errText  string
}

var (
	docFence  = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*([^`\\s]*)")
	docMarker = regexp.MustCompile(`^<!-- doc: (.*) -->$`)
)

// docBlocks returns the fenced code blocks of a Markdown file, and what is
// wrong with their markers.
func docBlocks(file, text string) ([]docBlock, []error) {
	lines := strings.Split(text, "\n")
	var blocks []docBlock
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line+1, fmt.Sprintf(format, args...)))
	}
	for i := 0; i < len(lines); i++ {
		if m := docMarker.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil {
			if i+1 >= len(lines) || docFence.FindStringSubmatch(lines[i+1]) == nil {
				fail(i, "a doc marker must be on the line before a code block's fence")
			}
			continue
		} else if strings.HasPrefix(strings.TrimSpace(lines[i]), "<!-- doc:") {
			fail(i, "a doc marker is one line: <!-- doc: DIRECTIVE; ... -->")
		}
		m := docFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := docBlock{file: file, line: i + 1, start: i + 1, info: m[3], indent: m[1]}
		closing := m[1] + m[2]
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.TrimRight(lines[j], " ") == closing {
				break
			}
		}
		if j == len(lines) {
			fail(i, "a code block that is not closed")
			break
		}
		b.end = j
		var body []string
		for _, l := range lines[i+1 : j] {
			body = append(body, strings.TrimPrefix(l, m[1]))
		}
		b.body = strings.Join(body, "\n") + "\n"
		if i > 0 {
			if mm := docMarker.FindStringSubmatch(strings.TrimSpace(lines[i-1])); mm != nil {
				if err := b.directives(mm[1]); err != nil {
					fail(i-1, "%v", err)
				}
			}
		}
		if first, rest, _ := strings.Cut(b.body, "\n"); b.output && b.outputOf == "" && strings.HasPrefix(first, "$ ") {
			b.prompt, b.outputOf, b.body = first, strings.TrimPrefix(first, "$ "), rest
		}
		if b.noRun == "" && !b.output && b.info != "cue" && b.info != "sh" {
			fail(i, "a ```%s block needs a marker (<!-- doc: output --> or <!-- doc: no-run REASON -->): the test cannot run it as it is", b.info)
			b.noRun = "unmarked"
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks, errs
}

// directives reads a marker's directives into b.
func (b *docBlock) directives(s string) error {
	if reason, ok := strings.CutPrefix(s, "no-run"); ok {
		if b.noRun = strings.TrimSpace(reason); b.noRun == "" {
			return fmt.Errorf("doc: no-run needs a reason")
		}
		return nil
	}
	for _, d := range strings.Split(s, ";") {
		word, arg, _ := strings.Cut(strings.TrimSpace(d), " ")
		arg = strings.TrimSpace(arg)
		needArg := func() error {
			if arg == "" {
				return fmt.Errorf("doc: %s needs an argument", word)
			}
			return nil
		}
		switch word {
		case "no-run":
			return fmt.Errorf("doc: no-run goes first, and alone: the rest of the marker is its reason")
		case "output":
			b.output = true
			if arg != "" {
				cmd, ok := strings.CutPrefix(arg, "of ")
				if !ok {
					return fmt.Errorf("doc: output takes nothing, or of COMMAND")
				}
				b.outputOf = cmd
			}
		case "sample":
			if arg != "" {
				return fmt.Errorf("doc: sample takes no argument")
			}
			b.sample = true
		case "in":
			b.in = arg
		case "empty":
			if arg != "" {
				return fmt.Errorf("doc: empty takes no argument")
			}
			b.empty = true
		case "series":
			b.series = arg
		case "file":
			b.path = arg
		case "then":
			b.then = arg
		case "before":
			b.before = arg
		case "error":
			b.errText = arg
		default:
			return fmt.Errorf("doc: unknown directive %q (no-run, output, sample, in, empty, series, before, file, then, error)", word)
		}
		if word != "output" && word != "sample" && word != "empty" {
			if err := needArg(); err != nil {
				return err
			}
		}
	}
	if b.output && b.outputOf == "" && (b.then != "" || b.errText != "" || b.path != "") {
		return fmt.Errorf("doc: output without a command is not run: nothing else applies")
	}
	if n := btoi(b.sample) + btoi(b.in != "") + btoi(b.empty); n > 1 {
		return fmt.Errorf("doc: sample, in and empty are contexts: say one")
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runDocBlock runs a block in its context dir, and reports a failure. For
// an output block, it returns what the command printed and whether that
// is the block.
func runDocBlock(t *testing.T, dir string, b docBlock) (string, bool) {
	if b.before != "" {
		if stdout, stderr, err := docRun(t, dir, b.before); err != nil {
			t.Fatalf("before %s: %v\n%s%s", b.before, err, stdout, stderr)
		}
	}
	var command string
	switch {
	case b.outputOf != "":
		command = b.outputOf
	case b.info == "cue":
		name := b.path
		if name == "" {
			name = "sources/doc.cue"
		}
		body := b.body
		if !regexp.MustCompile(`(?m)^package `).MatchString(body) {
			body = "package platform\n\n" + body
		}
		writeFile(t, dir, name, body)
		command = b.then
		if command == "" {
			command = "platc vet"
		}
	case b.info == "sh":
		command = b.body
	default:
		t.Fatalf("a ```%s block without a command to run", b.info)
	}
	stdout, stderr, err := docRun(t, dir, command)
	switch {
	case b.errText != "":
		if err == nil {
			t.Errorf("%s: succeeded, but the text says it fails with %q:\n%s%s", command, b.errText, stdout, stderr)
		} else if !strings.Contains(stdout+stderr, b.errText) {
			t.Errorf("%s: does not print %q:\n%s%s", command, b.errText, stdout, stderr)
		}
	case err != nil:
		t.Errorf("%s: %v\n%s%s", command, err, stdout, stderr)
	case b.outputOf != "" && stdout != b.body:
		t.Errorf("%s prints what the block does not show (-block +printed); go test ./compiler/cli -run TestDocs -update rewrites it:\n%s", command, cmp.Diff(b.body, stdout))
		return stdout, false
	}
	return stdout, true
}

// docContext makes the folder a block runs in.
func docContext(t *testing.T, root string, b docBlock) string {
	switch {
	case b.sample:
		dir := sample(t)
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "sample"}, {"tag", "v0.11.0"}} {
			docGit(t, dir, args...)
		}
		return dir
	case b.in != "":
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, filepath.FromSlash(b.in)))); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := filepath.Join(t.TempDir(), "my-platform")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if b.empty {
		return dir
	}
	docGit(t, dir, "init", "-q")
	if _, stderr, err := docRun(t, dir, "platc init -repo https://git.example.com/my-platform.git >/dev/null"); err != nil {
		t.Fatalf("platc init: %v\n%s", err, stderr)
	}
	return dir
}

// docEnv is the environment of what a block runs: Git's author, and no
// Git configuration of the machine's.
var docEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}

func docGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), docEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// docRun runs a command with bash -e in dir.
func docRun(t *testing.T, dir, command string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command("bash", "-e", "-c", command)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), docEnv...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// rewriteDocBlocks writes the new bodies of a file's output blocks.
func rewriteDocBlocks(t *testing.T, file string, bs []docBlock) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	// From the last block up, so that the lines of the others stay put.
	sort.Slice(bs, func(i, j int) bool { return bs[i].start > bs[j].start })
	for _, b := range bs {
		var body []string
		if b.prompt != "" {
			body = append(body, b.indent+b.prompt)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.body, "\n"), "\n") {
			body = append(body, b.indent+l)
		}
		lines = append(lines[:b.start:b.start], append(body, lines[b.end:]...)...)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestDocMarkers holds the markers of TestDocs to their grammar.
func TestDocMarkers(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{"```cue\na: 1\n```\n", ""},
		{"<!-- doc: no-run it needs a cluster; and minutes -->\n```sh\nmake e2e\n```\n", ""},
		{"<!-- doc: sample; before platc release v1.0.0; output -->\n```\n$ platc diff a b\nx\n```\n", ""},
		{"```\nout/\n```\n", "x.md:1: a ``` block needs a marker"},
		{"```yaml\na: 1\n```\n", "x.md:1: a ```yaml block needs a marker"},
		{"<!-- doc: no-run -->\n```sh\nmake e2e\n```\n", "x.md:1: doc: no-run needs a reason"},
		{"<!-- doc: sample; no-run slow -->\n```sh\nmake e2e\n```\n", "x.md:1: doc: no-run goes first"},
		{"<!-- doc: skip -->\n```sh\nmake e2e\n```\n", `x.md:1: doc: unknown directive "skip"`},
		{"<!-- doc: output; error boom -->\n```\nboom\n```\n", "x.md:1: doc: output without a command is not run"},
		{"<!-- doc: sample; in golden/x -->\n```sh\nls\n```\n", "x.md:1: doc: sample, in and empty are contexts"},
		{"<!-- doc: empty; in golden/x -->\n```sh\nls\n```\n", "x.md:1: doc: sample, in and empty are contexts"},
		{"<!-- doc: series tutorial; empty -->\n```sh\ngit init -q\n```\n", ""},
		{"<!-- doc: series -->\n```sh\nls\n```\n", "x.md:1: doc: series needs an argument"},
		{"<!-- doc: sample -->\n\n```sh\nls\n```\n", "x.md:1: a doc marker must be on the line before"},
		{"```sh\nls\n", "x.md:1: a code block that is not closed"},
	} {
		blocks, errs := docBlocks("x.md", c.text)
		var got string
		if len(errs) > 0 {
			got = errs[0].Error()
		}
		if c.err == "" && got != "" || !strings.HasPrefix(got, c.err) {
			t.Errorf("%q: got error %q, want %q", c.text, got, c.err)
		}
		if c.err == "" && len(blocks) != 1 {
			t.Errorf("%q: %d blocks, want 1", c.text, len(blocks))
		}
	}
	blocks, _ := docBlocks("x.md", "<!-- doc: sample; before platc release v1.0.0; output -->\n```\n$ platc diff a b\nx\n```\n")
	if b := blocks[0]; b.outputOf != "platc diff a b" || b.body != "x\n" || !b.sample || b.before != "platc release v1.0.0" {
		t.Errorf("a transcript reads as %+v", b)
	}
}
