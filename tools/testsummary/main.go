// Command testsummary reads the events of `go test -json` on stdin and
// prints what `go test` prints without -v (a line per package, and the
// output of the tests that failed), then the tests that were skipped, each
// with its reason, and last one line of counts (tests and subtests passed,
// failed and skipped): `make test` runs
//
//	go test -json ./... | (cd tools && go run ./testsummary)
//
// so that a test skipped for want of something (git, bash, symbolic
// links) is seen without -v. It exits 1 when a test or a build failed,
// or when the events are not those of a complete run (go test stopped
// before a package finished, or ran none).
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

func main() {
	if !summarize(os.Stdin, os.Stdout) {
		os.Exit(1)
	}
}

// event is one event of go test -json (cmd/test2json, and the build
// events of go help buildjson).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string // of a build event
	FailedBuild string
}

// pkg is what a package's events said so far.
type pkg struct {
	lines  []line          // its output, in order
	failed map[string]bool // the tests that failed
}

type line struct{ test, text string }

// skipped is a test that was skipped, and why.
type skipped struct{ pkg, test, reason string }

// summarize prints the summary of the events read from r to w and
// reports whether the run passed.
func summarize(r io.Reader, w io.Writer) bool {
	pkgs := map[string]*pkg{}
	var skips []skipped
	ok, events := true, 0
	var npassed, nfailed, nskipped int // tests and subtests
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		var e event
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			// Not an event: go test writes only events on stdout, but
			// what is there is shown.
			fmt.Fprintln(w, scanner.Text())
			continue
		}
		events++
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
			continue
		case "build-fail":
			ok = false
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkg{failed: map[string]bool{}}
			pkgs[e.Package] = p
		}
		if e.Test != "" {
			switch e.Action {
			case "pass":
				npassed++
			case "fail":
				nfailed++
			case "skip":
				nskipped++
			}
		}
		switch e.Action {
		case "output":
			p.lines = append(p.lines, line{e.Test, e.Output})
		case "fail":
			ok = false
			if e.Test != "" {
				p.failed[e.Test] = true
				continue
			}
			p.print(w, true)
			delete(pkgs, e.Package)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skipped{e.Package, e.Test, p.reason(e.Test)})
				continue
			}
			p.print(w, false)
			delete(pkgs, e.Package)
		case "pass":
			if e.Test == "" {
				p.print(w, false)
				delete(pkgs, e.Package)
			}
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintf(w, "testsummary: reading the events: %v\n", err)
		return false
	}
	if events == 0 {
		fmt.Fprintln(w, "testsummary: no test events: go test stopped before it ran a test (its errors are above)")
		return false
	}
	for name := range pkgs {
		if name != "" {
			fmt.Fprintf(w, "FAIL\t%s [did not finish]\n", name)
			ok = false
		}
	}
	if len(skips) > 0 {
		slices.SortStableFunc(skips, func(a, b skipped) int { return cmp.Or(strings.Compare(a.pkg, b.pkg), strings.Compare(a.test, b.test)) })
		fmt.Fprintln(w, "skipped:")
		for _, s := range skips {
			fmt.Fprintf(w, "  %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	fmt.Fprintf(w, "tests and subtests: %d passed, %d failed, %d skipped\n", npassed, nfailed, nskipped)
	return ok
}

// print prints what go test prints of a package that finished: its
// result line, and, when it failed, the output of the tests that failed
// and of the package itself.
func (p *pkg) print(w io.Writer, failed bool) {
	for _, l := range p.lines {
		switch {
		case strings.HasPrefix(l.text, "=== "):
			// The framing of -v, which go test without -v does not print.
		case failed && (l.test == "" || p.failed[l.test]):
			fmt.Fprint(w, l.text)
		case !failed && l.test == "" && (strings.HasPrefix(l.text, "ok  ") || strings.HasPrefix(l.text, "?   ")):
			fmt.Fprint(w, l.text)
		}
	}
}

// reason is what a skipped test said: the first line of its output
// (t.Skip's message; what follows, such as a testscript's log, is for
// go test -v), without the framing.
func (p *pkg) reason(test string) string {
	for _, l := range p.lines {
		text := strings.TrimSpace(l.text)
		if l.test != test || text == "" || strings.HasPrefix(text, "=== ") || strings.HasPrefix(text, "--- SKIP: ") {
			continue
		}
		return shorten(text)
	}
	return "no reason given"
}

// maxReason is how long a reason is shown: one line; go test -v has it
// whole.
const maxReason = 120

// shorten cuts s to maxReason bytes, at a rune, with "..." where it cut.
func shorten(s string) string {
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
