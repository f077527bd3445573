package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/release"
	"github.com/platc/platc/compiler/versions"
)

// format is how a command reports what it finds (-format).
type format string

const (
	// textFormat: problems on stderr, one per line, as file:line:col:
	// spec.path: message; what a command did on stdout.
	textFormat format = "text"
	// githubFormat: GitHub Actions workflow commands on stdout, which
	// annotate the files of a pull request.
	githubFormat format = "github"
	// jsonFormat: one JSON document on stdout (jsonReport).
	jsonFormat format = "json"
)

// formats are the values of -format, in the order help lists them.
var formats = []string{string(textFormat), string(githubFormat), string(jsonFormat)}

func (f *format) String() string { return string(*f) }

func (f *format) Set(s string) error {
	if !slices.Contains(formats, s) {
		return fmt.Errorf("use text, github or json%s", diag.DidYouMean(s, formats))
	}
	*f = format(s)
	return nil
}

func (f *format) words() []string { return formats }

// report is what a command reports, written as -format says: the
// problems of its compilation (a *diag.Log), the failures that stop it
// (I/O, a lock, an interrupt), a check's drifts, and the one-line
// summary of what it did. Text and github lines are written at once; the
// JSON document when the command ends (finish).
type report struct {
	format format
	stdout io.Writer
	stderr io.Writer
	// notes get what a command says while it works (a lock it waits for,
	// a write it recovered), on stderr in every format.
	notes io.Writer
	// dir is the repository folder (-C); github paths are relative to
	// the root of the Git repository that holds it.
	dir     string
	gitRoot *string // found on first use
	// started is set once the command got past its arguments: from then
	// on, a JSON report is written even when it fails.
	started bool
	doc     jsonReport
}

// jsonReport is the document of -format json.
type jsonReport struct {
	Command string `json:"command"`
	// Exit is the exit code: 0 success, 1 problems found, 2 usage or I/O
	// error.
	Exit     int           `json:"exit"`
	Problems []jsonProblem `json:"problems"`
	// Folded is the number of problems that follow from those listed and
	// are not (diag.Log.Fold).
	Folded int `json:"folded,omitempty"`
	// Drifts are the files of the output folder that differ from the
	// render (check).
	Drifts []jsonDrift `json:"drifts,omitempty"`
	// Moves are the pins a release moved.
	Moves []jsonMove `json:"moves,omitempty"`
	// Versions are the chart versions a promotion or a bump set
	// (promote.go); Outdated, the newer versions outdated found
	// (outdated.go).
	Versions []jsonVersion       `json:"versions,omitempty"`
	Outdated []versions.Outdated `json:"outdated,omitempty"`
	// Checked counts what was checked (render, check, vet, and the
	// commands that edit the spec and render); NotChecked says what was
	// not, and how to check it: none when Checked.Complete.
	Checked    *counts   `json:"checked,omitempty"`
	NotChecked []jsonGap `json:"notChecked,omitempty"`
	// Written is what a render wrote (render, release).
	Written *written `json:"written,omitempty"`
	// Summary is the one line text prints last on success, or the
	// check's drift summary.
	Summary string `json:"summary,omitempty"`
}

type jsonProblem struct {
	ID       string `json:"id"` // diag.Messages' name
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Path     string `json:"path,omitempty"` // the spec path
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type jsonDrift struct {
	File         string `json:"file"`
	Kind         string `json:"kind"` // changed, missing or extra
	EditedByHand bool   `json:"editedByHand,omitempty"`
	Line         int    `json:"line"`
	Message      string `json:"message"`
	Diff         string `json:"diff"`
}

type jsonMove struct {
	Environment string `json:"environment"`
	From        string `json:"from"`
	To          string `json:"to"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
}

// jsonGap is what a compilation did not check (compiler.Gap): its kind,
// what it names (charts, Applications, clients, modules) and how to
// check it, where platc can.
type jsonGap struct {
	Kind  string   `json:"kind"`
	Names []string `json:"names"`
	Fix   string   `json:"fix,omitempty"`
}

// counts are what a compilation checked, for the summary of the commands
// that check.
type counts struct {
	SpecDir      string `json:"specDir"`
	Environments int    `json:"environments"`
	Applications int    `json:"applications"`
	AppProjects  int    `json:"appProjects"`
	Stacks       int    `json:"stacks"`
	Instances    int    `json:"instances"`
	Warnings     int    `json:"warnings"`
	// Complete: nothing was left unchecked (no compiler.Gap).
	Complete bool `json:"complete"`
}

func (n *counts) String() string {
	how := "in part"
	if n.Complete {
		how = "in full"
	}
	s := fmt.Sprintf("%s/ checked %s: %s, %s, %s, %s", n.SpecDir, how,
		diag.Plural(n.Environments, "environment", "environments"), diag.Plural(n.Applications, "Application", "Applications"),
		diag.Plural(n.AppProjects, "AppProject", "AppProjects"), diag.Plural(n.Stacks, "stack", "stacks"))
	if n.Stacks > 0 {
		s += " with " + diag.Plural(n.Instances, "instance", "instances")
	}
	if n.Warnings > 0 {
		s += ", " + diag.Plural(n.Warnings, "warning", "warnings")
	}
	return s
}

type written struct {
	OutDir    string `json:"outDir"`
	Files     int    `json:"files"`
	Written   int    `json:"written"`
	Unchanged int    `json:"unchanged"`
	Removed   int    `json:"removed"`
}

func newReport(f format, command, dir string, stdout, stderr io.Writer) *report {
	return &report{format: f, dir: dir, stdout: stdout, stderr: stderr, notes: stderr, doc: jsonReport{Command: command, Problems: []jsonProblem{}}}
}

// buffered returns a report in the same format that keeps what it is
// given until r takes it (take): a release reports the spec as it is
// only when it fails. Its notes go to r's at once.
func (r *report) buffered() *report {
	b := newReport(r.format, r.doc.Command, r.dir, &bytes.Buffer{}, &bytes.Buffer{})
	b.notes, b.gitRoot = r.notes, r.gitRoot
	return b
}

func (r *report) take(b *report) {
	io.Copy(r.stdout, b.stdout.(*bytes.Buffer))
	io.Copy(r.stderr, b.stderr.(*bytes.Buffer))
	r.doc.Problems = append(r.doc.Problems, b.doc.Problems...)
	r.doc.Folded += b.doc.Folded
}

func (r *report) log(l *diag.Log) {
	switch r.format {
	case textFormat:
		fmt.Fprint(r.stderr, l.String())
	case githubFormat:
		for _, p := range l.Problems() {
			r.annotate(p)
		}
		if note := l.FoldedNote(); note != "" {
			fmt.Fprintf(r.stdout, "::notice title=platc::%s\n", escapeData(note))
		}
	case jsonFormat:
		for _, p := range l.Problems() {
			r.doc.Problems = append(r.doc.Problems, jsonProblem{ID: p.ID.String(), File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Col, Path: p.Path, Severity: p.Severity.String(), Message: p.Msg})
		}
		r.doc.Folded += l.Folded()
	}
}

// problem reports one problem found outside the compilation (a file in
// the way).
func (r *report) problem(p diag.Problem) {
	l := &diag.Log{}
	l.Add(p)
	r.log(l)
}

// failf reports a failure that stops the command, and returns its exit
// code: text writes "platc: message" on stderr.
func (r *report) failf(id diag.ID, format string, args ...any) int {
	r.problem(diag.Problem{ID: id, Msg: fmt.Sprintf(format, args...)})
	return ExitUsage
}

// annotate writes p as a GitHub Actions workflow command: an error or a
// warning on its file, line and column.
func (r *report) annotate(p diag.Problem) {
	var props []string
	if p.Pos.IsValid() {
		props = append(props, "file="+escapeProperty(r.repoPath(p.Pos.File)))
		if p.Pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", p.Pos.Line))
			if p.Pos.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", p.Pos.Col))
			}
		}
	}
	title := "platc"
	if p.ID != diag.NoID {
		title += " " + p.ID.String()
	}
	props = append(props, "title="+escapeProperty(title))
	msg := p.Msg
	if p.Path != "" {
		msg = p.Path + ": " + msg
	}
	fmt.Fprintf(r.stdout, "::%s %s::%s\n", p.Severity, strings.Join(props, ","), escapeData(msg))
}

// repoPath is the path of file (relative to the repository folder, or
// absolute) relative to the root of the Git repository that holds the
// folder, as GitHub names files; or file, outside any.
func (r *report) repoPath(file string) string {
	if r.gitRoot == nil {
		root := findGitRoot(r.dir)
		r.gitRoot = &root
	}
	if *r.gitRoot == "" {
		return file
	}
	abs := file
	if !filepath.IsAbs(abs) {
		dir, err := filepath.Abs(r.dir)
		if err != nil {
			return file
		}
		abs = filepath.Join(dir, filepath.FromSlash(file))
	}
	rel, err := filepath.Rel(*r.gitRoot, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return file
	}
	return filepath.ToSlash(rel)
}

// findGitRoot returns the nearest folder at or above dir that holds .git
// (a folder, or the file of a worktree), or "".
func findGitRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return abs
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return ""
		}
		abs = parent
	}
}

// escapeData and escapeProperty escape a workflow command's message and
// property values as GitHub's own toolkit does (actions/toolkit,
// packages/core/src/command.ts).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// verbatim returns text (lines that end in a line break, such as a diff)
// to be printed as it is into a log that GitHub reads workflow commands
// from, with commands stopped while it is printed: text is untrusted (a
// diff shows the lines of a file in out/, and its name, which may begin
// with ::), and none of its lines may act as a command. GitHub resumes
// commands at the line ::TOKEN::. The token is the SHA-256 of the text:
// text that holds the line ::TOKEN:: would have to hold its own digest,
// which is infeasible to make, and the same text is printed the same way
// every time.
func verbatim(text string) string {
	if text == "" {
		return ""
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	token := fmt.Sprintf("%x", sha256.Sum256([]byte(text)))
	return "::stop-commands::" + token + "\n" + text + "::" + token + "::\n"
}

// summary reports the one line that says what a command did, on stdout.
func (r *report) summary(line string) {
	r.doc.Summary = line
	switch r.format {
	case textFormat:
		fmt.Fprintf(r.stdout, "platc: %s\n", line)
	case githubFormat:
		// No workflow command: its line breaks escaped as a command's
		// message escapes them, so that it stays one line.
		fmt.Fprintf(r.stdout, "platc: %s\n", strings.NewReplacer("\r", "%0D", "\n", "%0A").Replace(line))
	}
}

// checked reports the summary of a command that checked the spec and
// passed: what was checked (n), what the command did or found (did),
// and last what was not checked (gaps), with how to check it. It is the
// last line the command prints.
func (r *report) checked(n *counts, gaps []compiler.Gap, did string) {
	r.doc.Checked = n
	line := n.String() + "; " + did
	var items []string
	for _, g := range gaps {
		r.doc.NotChecked = append(r.doc.NotChecked, jsonGap{Kind: string(g.Kind), Names: g.Names, Fix: g.Fix()})
		item := g.What()
		if fix := g.Fix(); fix != "" {
			item += " (" + fix + ")"
		}
		items = append(items, item)
	}
	if len(items) > 0 {
		line += "; not checked: " + strings.Join(items, ", ")
	}
	r.summary(line)
}

// wrote reports what a render wrote, after what it checked.
func (r *report) wrote(n *counts, gaps []compiler.Gap, outDir string, files int, w *emit.Result) {
	r.doc.Written = &written{OutDir: outDir, Files: files, Written: len(w.Written), Unchanged: len(w.Unchanged), Removed: len(w.Removed)}
	r.checked(n, gaps, fmt.Sprintf("%s/: %d files, %d written, %d unchanged, %d removed", outDir, files, len(w.Written), len(w.Unchanged), len(w.Removed)))
}

func (r *report) moved(moves []release.Move) {
	for _, m := range moves {
		r.doc.Moves = append(r.doc.Moves, jsonMove{Environment: m.Env, From: m.From, To: m.To, File: m.Pos.File, Line: m.Pos.Line, Column: m.Pos.Col})
		if r.format != jsonFormat {
			fmt.Fprintf(r.stdout, "platc: %s: %s -> %s (%s)\n", m.Env, m.From, m.To, m.Pos)
		}
	}
}

// drifted reports the files of outDir that differ from the render, and
// what to do.
func (r *report) drifted(outDir string, drifts []emit.Drift) {
	count := map[emit.DriftKind]int{}
	edited := 0
	for _, d := range drifts {
		count[d.Kind]++
		if d.EditedByHand {
			edited++
		}
	}
	summary := fmt.Sprintf("%s/ is stale: %d changed, %d missing, %d extra", outDir, count[emit.Changed], count[emit.Missing], count[emit.Extra])
	if edited > 0 {
		summary += fmt.Sprintf(" (%d edited by hand)", edited)
	}
	fix := fmt.Sprintf("run `platc render` and commit %s/", outDir)
	switch r.format {
	case textFormat:
		for _, d := range drifts {
			fmt.Fprint(r.stdout, d.Diff)
		}
		for _, d := range drifts {
			fmt.Fprintf(r.stderr, "%s: %s\n", d.Path, d.Why())
		}
		fmt.Fprintf(r.stderr, "platc: %s: %s\n", summary, fix)
	case githubFormat:
		for _, d := range drifts {
			fmt.Fprintf(r.stdout, "::error file=%s,line=%d,title=platc check::%s\n", escapeProperty(r.repoPath(d.Path)), d.Line, escapeData(d.Why()+": "+fix))
		}
		for _, d := range drifts {
			fmt.Fprintf(r.stdout, "::group::diff of %s\n%s::endgroup::\n", escapeData(r.repoPath(d.Path)), verbatim(d.Diff))
		}
		fmt.Fprintf(r.stdout, "::error title=platc check::%s\n", escapeData(summary+": "+fix))
	case jsonFormat:
		for _, d := range drifts {
			r.doc.Drifts = append(r.doc.Drifts, jsonDrift{File: d.Path, Kind: d.Kind.String(), EditedByHand: d.EditedByHand, Line: d.Line, Message: d.Why(), Diff: d.Diff})
		}
		r.doc.Summary = summary + ": " + fix
	}
}

// finish ends the report of a command that exits with code: with -format
// json, it writes the document, once the command got past its arguments.
func (r *report) finish(code int) {
	if r.format != jsonFormat || !r.started {
		return
	}
	r.doc.Exit = code
	if err := writeJSON(r.stdout, r.doc); err != nil {
		fmt.Fprintf(r.stderr, "platc: writing the report: %v\n", err)
	}
}
