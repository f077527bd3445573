package cli

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
)

// TestGitHubFormatEscapes feeds every field platc writes into GitHub's
// workflow commands a line break and a command of its own: a file name
// under out/, a spec path, a message, a diff whose lines begin with ::,
// a summary. None of them may start a line GitHub reads as a command.
func TestGitHubFormatEscapes(t *testing.T) {
	var out, errOut strings.Builder
	r := newReport(githubFormat, "check", t.TempDir(), &out, &errOut)
	noRoot := ""
	r.gitRoot = &noRoot

	r.annotate(diag.Problem{ID: diag.Outdated, Severity: diag.Error,
		Pos:  diag.Pos{File: "sources/a,b:c\n::warning::x.cue", Line: 3, Col: 4},
		Path: "modules.a\n::add-mask::b",
		Msg:  "bad 100%\r\n::error::injected"})
	evil := "out/evil\n::warning title=x::injected.yaml"
	diff := "--- a/" + evil + "\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-::add-mask::secret\n-::endgroup::\n"
	r.drifted("out", []emit.Drift{{Path: evil, Kind: emit.Extra, Diff: diff, Line: 1}})
	r.summary("done\n::warning::injected")

	token := fmt.Sprintf("%x", sha256.Sum256([]byte(diff)))
	want := "::error file=sources/a%2Cb%3Ac%0A%3A%3Awarning%3A%3Ax.cue,line=3,col=4,title=platc outdated::modules.a%0A::add-mask::b: bad 100%25%0D%0A::error::injected\n" +
		"::error file=out/evil%0A%3A%3Awarning title=x%3A%3Ainjected.yaml,line=1,title=platc check::extra: the spec no longer renders it: run `platc render` and commit out/\n" +
		"::group::diff of out/evil%0A::warning title=x::injected.yaml\n" +
		"::stop-commands::" + token + "\n" +
		diff +
		"::" + token + "::\n" +
		"::endgroup::\n" +
		"::error title=platc check::out/ is stale: 0 changed, 0 missing, 1 extra: run `platc render` and commit out/\n" +
		"platc: done%0A::warning::injected\n"
	if got := out.String(); got != want {
		t.Errorf("-format github wrote:\n%s\nwant:\n%s", got, want)
	}
	if errOut.Len() != 0 {
		t.Errorf("-format github wrote on stderr:\n%s", errOut.String())
	}
}
