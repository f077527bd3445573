package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/cli"
)

// readme is docs/guide.md, whose CLI section is made from the table of
// commands.
const readme = "../../docs/guide.md"

// TestGuideCLISection fails when the first code block of the guide's
// CLI section is not what the table of commands says (the usage line and
// summary of every command, the compile flags, the exit codes); go test
// ./compiler/cli -update rewrites it.
func TestGuideCLISection(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end, ok := cliBlock(text)
	if !ok {
		t.Fatalf("%s has no \"## CLI\" section with a ``` block", readme)
	}
	want := cli.Reference()
	if *update {
		if err := os.WriteFile(readme, []byte(text[:start]+want+text[end:]), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, text[start:end]); diff != "" {
		t.Errorf("the CLI section of %s is not the table of commands (-want +got); go test ./compiler/cli -update rewrites it:\n%s", readme, diff)
	}
}

// cliBlock returns where the body of the first ``` block after "## CLI"
// starts and ends.
func cliBlock(text string) (start, end int, ok bool) {
	section := strings.Index(text, "\n## CLI\n")
	if section < 0 {
		return 0, 0, false
	}
	open := strings.Index(text[section:], "\n```\n")
	if open < 0 {
		return 0, 0, false
	}
	start = section + open + len("\n```\n")
	close := strings.Index(text[start:], "```\n")
	if close < 0 {
		return 0, 0, false
	}
	return start, start + close, true
}
