package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/cli"
)

// TestInitRefusesArguments: platc init checks every argument before it
// writes anything, a line break and a quote in -repo included, and says
// what it takes.
func TestInitRefusesArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-name", "My_Platform"}, `platc init: -name "My_Platform" is not a DNS-1123 label: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit` + "\n"},
		{[]string{"-repo", "https://git.example.com/a.git\"\n}\nextra: 1"}, `platc init: -repo "https://git.example.com/a.git\"\n}\nextra: 1" is not a Git repository URL: it holds a quote, a backslash, a space or a control character; give one such as https://git.example.com/org/repo.git or git@git.example.com:org/repo.git` + "\n"},
		{[]string{"-repo", "git.example.com/org/repo"}, `platc init: -repo "git.example.com/org/repo" is not a Git repository URL: give one such as https://git.example.com/org/repo.git or git@git.example.com:org/repo.git` + "\n"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := run(t, cli.Process{}, append(append([]string{"init"}, c.args...), dir)...)
		if code != cli.ExitUsage || stdout != "" || stderr != c.want {
			t.Errorf("platc init %q: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stderr:\n%s", c.args, code, stdout, stderr, cli.ExitUsage, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("platc init %q wrote %d files or folders, want none", c.args, len(entries))
		}
	}

	// What it writes into the spec is a CUE string literal.
	dir := t.TempDir()
	repo := "https://git.example.com/a(b)~c.git"
	if code, stdout, stderr := run(t, cli.Process{}, "init", "-name", "demo", "-repo", repo, dir); code != cli.ExitOK {
		t.Fatalf("platc init -repo %s: exit %d\n%s%s", repo, code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sources", "platform.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\trepoURL:            \"" + repo + "\"\n"; !strings.Contains(string(data), want) {
		t.Errorf("sources/platform.cue:\n%s\nwant the line %q", data, want)
	}
}
