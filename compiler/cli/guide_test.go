package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/cli"
)

// cliPage is docs/cli.md, whose reference part is made from the table of
// commands.
const cliPage = "../../docs/cli.md"

// The markers of the part of docs/cli.md made from the table of commands.
const (
	cliBegin = "<!-- Made by go test ./compiler/cli -update from the table of commands (compiler/cli/commands.go), up to the end marker: edit that, not this part. -->\n"
	cliEnd   = "<!-- End of the part made from the table of commands. -->\n"
)

// TestCLIReference fails when the part of docs/cli.md between its markers
// is not what the table of commands says (the overview of the commands,
// each command's usage line, what it does and its flags, the compile
// flags, the exit codes); go test ./compiler/cli -update rewrites it.
func TestCLIReference(t *testing.T) {
	data, err := os.ReadFile(cliPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end, ok := cliPart(text)
	if !ok {
		t.Fatalf("%s has no part between the lines\n%s%s", cliPage, cliBegin, cliEnd)
	}
	want := cli.ReferencePage()
	if *update {
		if err := os.WriteFile(cliPage, []byte(text[:start]+want+text[end:]), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, text[start:end]); diff != "" {
		t.Errorf("the reference part of %s is not the table of commands (-want +got); go test ./compiler/cli -update rewrites it:\n%s", cliPage, diff)
	}
}

// cliPart returns where the part between the markers starts and ends.
func cliPart(text string) (start, end int, ok bool) {
	begin := strings.Index(text, cliBegin)
	if begin < 0 {
		return 0, 0, false
	}
	start = begin + len(cliBegin)
	end = strings.Index(text[start:], cliEnd)
	if end < 0 {
		return 0, 0, false
	}
	return start, start + end, true
}
