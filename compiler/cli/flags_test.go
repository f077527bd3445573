package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParse checks that flags may come before, between and after the
// positional arguments, and that after -- everything is positional.
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
	cmd := &command{name: "test", dir: true, maxArgs: 3, flags: noFlags(nil)}
	for _, tt := range tests {
		var out strings.Builder
		c := newCall(cmd, nil, &out, &out)
		fs, _ := cmd.flagSet(c)
		positional, code, stop := c.parse(fs, tt.args)
		if stop {
			t.Errorf("parse(%q) stops with exit %d:\n%s", tt.args, code, out.String())
			continue
		}
		if diff := cmp.Diff(tt.positional, positional); diff != "" || c.dir != tt.dir {
			t.Errorf("parse(%q): positional (-want +got):\n%s-C %q, want %q", tt.args, diff, c.dir, tt.dir)
		}
	}
}
