package main

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestSummarize reads the events of a go test -json run of a module with
// a package that passes with skipped tests, one whose tests fail, one
// that does not build and one without tests (testdata/events.jsonl), and
// compares the whole summary with testdata/events.summary.
func TestSummarize(t *testing.T) {
	events, err := os.ReadFile("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/events.summary")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if summarize(strings.NewReader(string(events)), &out) {
		t.Error("a run with failures passed")
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestSummarizeIncompleteRuns(t *testing.T) {
	passed := `{"Action":"start","Package":"example.com/a"}
{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.1s\n"}
{"Action":"pass","Package":"example.com/a","Elapsed":0.1}
`
	tests := []struct {
		name, events, want string
		ok                 bool
	}{
		{"a run that passed", passed, "ok  \texample.com/a\t0.1s\ntests and subtests: 0 passed, 0 failed, 0 skipped\n", true},
		{"no events: go test failed before it ran", "", "testsummary: no test events: go test stopped before it ran a test (its errors are above)\n", false},
		{"a package that did not finish", passed + `{"Action":"start","Package":"example.com/b"}
{"Action":"run","Package":"example.com/b","Test":"TestLong"}
`, "ok  \texample.com/a\t0.1s\nFAIL\texample.com/b [did not finish]\ntests and subtests: 0 passed, 0 failed, 0 skipped\n", false},
		{"a build that failed", `{"ImportPath":"example.com/c","Action":"build-output","Output":"c.go:1:1: expected 'package'\n"}
{"ImportPath":"example.com/c","Action":"build-fail"}
` + passed, "c.go:1:1: expected 'package'\nok  \texample.com/a\t0.1s\ntests and subtests: 0 passed, 0 failed, 0 skipped\n", false},
	}
	for _, tt := range tests {
		var out strings.Builder
		if ok := summarize(strings.NewReader(tt.events), &out); ok != tt.ok || out.String() != tt.want {
			t.Errorf("%s: ok %v, output:\n%s\nwant ok %v, output:\n%s", tt.name, ok, out.String(), tt.ok, tt.want)
		}
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	got := shorten(long)
	if len(got) > maxReason || !strings.HasSuffix(got, "...") || !utf8.ValidString(got) {
		t.Errorf("shorten of 200 bytes = %q (%d bytes): want at most %d, valid UTF-8, ending in ...", got, len(got), maxReason)
	}
	if got := shorten("short"); got != "short" {
		t.Errorf("shorten(%q) = %q", "short", got)
	}
}
