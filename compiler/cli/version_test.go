package cli_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/upstream"
)

// TestVersionListsTheTargets requires platc version to print every
// upstream release compiler/upstream names, one per line, after platc's
// own version.
func TestVersionListsTheTargets(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"version"}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("platc version: exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "platc ") {
		t.Errorf("first line %q does not say which platc this is", lines[0])
	}
	if len(lines) != 1+len(upstream.Targets) {
		t.Fatalf("platc version printed %d lines, want 1 and one per target (%d):\n%s", len(lines), len(upstream.Targets), stdout.String())
	}
	for i, target := range upstream.Targets {
		want := regexp.MustCompile(`^  ` + regexp.QuoteMeta(target.Name) + ` +` + regexp.QuoteMeta(target.Version) + ` +` + regexp.QuoteMeta(target.Use) + `$`)
		if !want.MatchString(lines[i+1]) {
			t.Errorf("line %d is %q, want %s", i+2, lines[i+1], want)
		}
	}
}
