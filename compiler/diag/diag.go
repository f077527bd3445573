// Package diag is the compiler's problem sink: stages report findings here
// as data (position, spec path, message), and only the edge (the CLI, the
// tests) turns them into text. It decides nothing and never prints.
package diag

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Pos is a position in an input file. Line and Col count from 1; a zero Line
// means the position is the file as a whole.
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// String formats p as file:line:col, file:line or file.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return "-"
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Compare orders positions by file, line and column.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(strings.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// Severity says whether a problem stops the render.
type Severity int

const (
	// Error problems fail the command and leave out/ untouched.
	Error Severity = iota
	// Warning problems are printed but do not fail the command.
	Warning
	// Note problems say something a reader may want to know (an
	// Application with nothing to sync): printed, never failing.
	Note
)

// String returns "error", "warning" or "notice", as a report for
// machines names them (GitHub's workflow commands among them).
func (s Severity) String() string {
	return [...]string{Error: "error", Warning: "warning", Note: "notice"}[s]
}

// Problem is one finding: where it is, which spec path it concerns, and what
// to do about it.
type Problem struct {
	ID       ID // what kind of problem (Messages)
	Pos      Pos
	Path     string // spec path, such as modules.qdrant.chart; may be empty
	Msg      string // lower-case, no trailing period
	Severity Severity
}

// String formats p the way go/scanner and cue/errors do:
// file:line:col: path: message, with "warning: " before the path for
// warnings; a problem of no file starts "platc: ", as the go command's do.
func (p Problem) String() string {
	s := "platc: "
	if p.Pos.IsValid() {
		s = p.Pos.String() + ": "
	}
	s += [...]string{Warning: "warning: ", Note: "note: "}[p.Severity]
	if p.Path != "" {
		s += p.Path + ": "
	}
	s += p.Msg
	if p.ID != NoID {
		s += " [" + p.ID.String() + "]"
	}
	return s
}

func compareProblems(a, b Problem) int {
	return cmp.Or(a.Pos.Compare(b.Pos), strings.Compare(a.Path, b.Path), strings.Compare(a.Msg, b.Msg), cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.ID, b.ID))
}

// Log collects problems. The zero value is ready to use and safe for
// concurrent use, so stages may report from several goroutines.
type Log struct {
	mu       sync.Mutex
	problems []Problem
	folded   int             // problems Fold did not keep
	covered  map[string]bool // spec paths a reported problem explains (Cover)
}

// Cover says a problem already reported explains what is wrong at the
// spec path (a required field reported at its misspelling): Fold treats it
// as a cause.
func (l *Log) Cover(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.covered == nil {
		l.covered = map[string]bool{}
	}
	l.covered[path] = true
}

// Reportf records a problem of kind id at pos for the spec path, with
// the severity Messages gives id.
func (l *Log) Reportf(id ID, pos Pos, path, format string, args ...any) {
	l.Add(Problem{ID: id, Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...), Severity: id.Info().Severity})
}

// ReportStrictf is Reportf of a warning that -strict makes an error
// (Messages' Strict): an error when strict is set.
func (l *Log) ReportStrictf(strict bool, id ID, pos Pos, path, format string, args ...any) {
	p := Problem{ID: id, Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...), Severity: id.Info().Severity}
	if strict && id.Info().Strict {
		p.Severity = Error
	}
	l.Add(p)
}

// ReportFromf is Reportf of a newer release's rule (Messages' ErrorFrom):
// an error when declared, as an environment declares that release.
func (l *Log) ReportFromf(declared bool, id ID, pos Pos, path, format string, args ...any) {
	p := Problem{ID: id, Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...), Severity: id.Info().Severity}
	if declared && id.Info().ErrorFrom != "" {
		p.Severity = Error
	}
	l.Add(p)
}

// Add records p.
func (l *Log) Add(p Problem) {
	l.mu.Lock()
	l.problems = append(l.problems, p)
	l.mu.Unlock()
}

// HasErrors reports whether an error (not a warning) was recorded.
func (l *Log) HasErrors() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.problems, func(p Problem) bool { return p.Severity == Error })
}

// Problems returns the recorded problems sorted by position, path and
// message, with exact duplicates removed.
func (l *Log) Problems() []Problem {
	l.mu.Lock()
	ps := slices.Clone(l.problems)
	l.mu.Unlock()
	slices.SortFunc(ps, compareProblems)
	return slices.Compact(ps)
}

// String returns the problems, one per line, in the order of Problems,
// and a last line that says how many Fold did not keep, if any.
func (l *Log) String() string {
	var b strings.Builder
	for _, p := range l.Problems() {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	if note := l.FoldedNote(); note != "" {
		b.WriteString("platc: " + note + "\n")
	}
	return b.String()
}

// FoldedNote is String's last line without "platc: ", for non-text
// reports, or "" when Fold kept every problem.
func (l *Log) FoldedNote() string {
	switch n := l.Folded(); n {
	case 0:
		return ""
	case 1:
		return "1 more problem follows from those above and is not shown: fix those, and platc reports what remains"
	default:
		return fmt.Sprintf("%d more problems follow from those above and are not shown: fix those, and platc reports what remains", n)
	}
}

// Folded is the number of problems Fold did not keep.
func (l *Log) Folded() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.folded
}

// Fold adds the problems of later, from stages run on a spec with l's
// problems, except those that may follow from them, which it counts: a
// problem at or below one of l's spec paths, an output problem (no spec
// path), and every problem when one of l's is at the spec's top (a
// section whose every reference then fails). Causes are shown,
// consequences counted.
func (l *Log) Fold(later *Log) {
	causes := map[string]bool{}
	l.mu.Lock()
	for p := range l.covered {
		causes[p] = true
	}
	l.mu.Unlock()
	top := false
	for _, p := range l.Problems() {
		if p.Severity == Error && p.Path != "" {
			causes[p.Path] = true
			top = top || ParentPath(p.Path) == ""
		}
	}
	folded := later.Folded()
	for _, p := range later.Problems() {
		// An output problem follows from a spec that does not fit.
		if top || p.Path == "" && len(causes) > 0 || followsFrom(p.Path, causes) {
			folded++
		} else {
			l.Add(p)
		}
	}
	l.mu.Lock()
	l.folded += folded
	l.mu.Unlock()
}

// followsFrom reports whether the spec path p is at or below one of
// causes.
func followsFrom(p string, causes map[string]bool) bool {
	for ; p != ""; p = enclosing(p) {
		if causes[p] {
			return true
		}
	}
	return false
}

// DidYouMean returns ` (did you mean "x"?)` for the candidate closest to
// name (Suggest), or "" when none is close enough: the end of an "unknown"
// message.
func DidYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// Unknown says name is not declared, with the likely meant name
// (DidYouMean), else up to ten names there are and the count, so the
// reader never has to search.
func Unknown(what, name string, names []string) string {
	if s := DidYouMean(name, names); s != "" {
		return fmt.Sprintf("unknown %s %q%s", what, name, s)
	}
	switch {
	case len(names) == 0:
		return fmt.Sprintf("unknown %s %q: the spec declares none", what, name)
	case len(names) > 10:
		return fmt.Sprintf("unknown %s %q: the %ss are %s... (%d in all)", what, name, what, strings.Join(names[:10], ", "), len(names))
	}
	return fmt.Sprintf("unknown %s %q: the %ss are %s", what, name, what, List(names))
}

// List joins names for a message: "a", "a and b", "a, b and c".
func List(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// OrNone lists names for a message, or says "none".
func OrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Nearest returns the position of the field at path in decls (positions by
// spec path), or of its nearest enclosing field that has one.
func Nearest(decls map[string]Pos, path string) Pos {
	for p := path; p != ""; p = enclosing(p) {
		if pos, ok := decls[p]; ok {
			return pos
		}
	}
	return Pos{}
}

// enclosing returns the spec path holding p: an element's list
// (modules.web.needs[1] is in modules.web.needs), else the parent field.
func enclosing(p string) string {
	if list, ok := cutIndex(p); ok {
		return list
	}
	return ParentPath(p)
}

// cutIndex cuts a trailing list index, such as "[1]", off path.
func cutIndex(path string) (string, bool) {
	body, ok := strings.CutSuffix(path, "]")
	i := strings.LastIndexByte(body, '[')
	if !ok || i <= 0 || i == len(body)-1 || strings.Trim(body[i+1:], "0123456789") != "" {
		return "", false
	}
	return body[:i], true
}

// Suggest returns the candidate closest to name if it could be a typo (at
// most two edits, fewer than the candidate's length), or "".
func Suggest(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if c == name || abs(len(c)-len(name)) >= bestDist {
			// The distance is at least the length difference: rule
			// out far lengths cheaply.
			continue
		}
		if d := editDistance(name, c); d < bestDist && d < len(c) {
			best, bestDist = c, d
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// isPlainLabel reports whether label matches [A-Za-z_$][A-Za-z0-9_$-]* and
// needs no quotes in a spec path. A loop, as every spec field passes here.
func isPlainLabel(label string) bool {
	if label == "" {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == '$':
		case i > 0 && ('0' <= c && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// JoinPath appends a label to a spec path, quoted unless plain, so every
// stage writes the same path for the same value.
func JoinPath(base, label string) string {
	if !isPlainLabel(label) {
		label = strconv.Quote(label)
	}
	if base == "" {
		return label
	}
	return base + "." + label
}

// ParentPath returns the spec path without its last label ("" for a path of
// one label); it understands the quoted labels JoinPath writes.
func ParentPath(p string) string {
	end := 0 // the end of the labels read so far, before the next '.'
	for i := 0; i < len(p); {
		if p[i] == '"' {
			q, err := strconv.QuotedPrefix(p[i:])
			if err != nil {
				return ""
			}
			i += len(q)
		} else {
			for i < len(p) && p[i] != '.' {
				i++
			}
		}
		if i >= len(p) {
			return p[:end]
		}
		end = i
		i++ // the '.'
	}
	return p[:end]
}

// YAMLError splits an error of the YAML parser (go.yaml.in/yaml), which
// reads "yaml: line 3: mapping values are not allowed here", into the line
// (0 when it names none) and the message without the prefix.
func YAMLError(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil && l > 0 {
				return l, after
			}
		}
	}
	return 0, msg
}

// PathCause is the cause of an fs.PathError, whose path the message
// already names; any other error as it is.
func PathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Plural is n with the noun for it: "1 file", "2 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
