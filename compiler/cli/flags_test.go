package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args       []string
		positional []string
		dir        string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, "."},
		{[]string{"-C", "x", "a"}, []string{"a"}, "x"},
		{[]string{"a", "-C", "x", "b"}, []string{"a", "b"}, "x"},
		{[]string{"a", "-C", "x", "--", "-C", "y"}, []string{"a", "-C", "y"}, "x"},
		{[]string{"--", "-C"}, []string{"-C"}, "."},
		// A flag after a positional argument after -- is positional too.
		{[]string{"--", "a", "-C", "y"}, []string{"a", "-C", "y"}, "."},
	}
	for _, tt := range tests {
		var out strings.Builder
		fs, c := newFlags("test", "[flags] ARGS", "Test tests.", &out)
		positional, code, stop := parse(fs, tt.args, 3)
		if stop {
			t.Errorf("parse(%q) stops with exit %d:\n%s", tt.args, code, out.String())
			continue
		}
		if diff := cmp.Diff(tt.positional, positional); diff != "" || c.dir != tt.dir {
			t.Errorf("parse(%q): positional (-want +got):\n%s-C %q, want %q", tt.args, diff, c.dir, tt.dir)
		}
	}
}

// TestUsage checks that a command's help has one usage line, and that a
// command that does not compile the spec has no compile flags.
func TestUsage(t *testing.T) {
	var out strings.Builder
	code := Main([]string{"diff", "-h"}, &out, &out)
	if code != ExitOK {
		t.Fatalf("diff -h: exit %d", code)
	}
	help := out.String()
	if n := strings.Count(help, "usage:"); n != 1 || !strings.HasPrefix(help, "usage: platc diff [flags] OLD NEW\n") {
		t.Errorf("diff -h has %d usage lines:\n%s", n, help)
	}
	for _, f := range []string{"-strict", "-crds", "-client-repo", "-spec"} {
		if strings.Contains(help, f) {
			t.Errorf("diff -h lists %s, which diff does not use:\n%s", f, help)
		}
	}
	out.Reset()
	if code := Main([]string{"release", "-h"}, &out, &out); code != ExitOK || strings.Count(out.String(), "usage:") != 1 || !strings.Contains(out.String(), "-strict") {
		t.Errorf("release -h: exit %d:\n%s", code, out.String())
	}
}
