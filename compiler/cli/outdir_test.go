package cli_test

import (
	"testing"
	"time"

	"github.com/platc/platc/compiler/cli"
)

// An output folder spelled otherwise than "out" is that folder, which
// platc has locked already: render says how to write it, and does not
// wait on its own lock (the wait is injected: it counts the tries).
func TestOutDirSpelledOtherwise(t *testing.T) {
	for _, spelling := range []string{"out/", "./out", "out/../out"} {
		t.Run(spelling, func(t *testing.T) {
			dir := repo(t)
			writeFile(t, dir, "sources/out.cue", "package platform\n\nplatform: outDir: \""+spelling+"\"\n")
			waits := 0
			code, stdout, stderr := run(t, cli.Process{LockWait: time.Second, LockSleep: func(time.Duration) { waits++ }}, "render", "-C", dir)
			if waits > 0 {
				t.Errorf("render waited %d times on a lock", waits)
			}
			want := "sources/out.cue:3:19: platform.outDir: \"" + spelling + "\" is not clean (write \"out\"): use a folder inside the repository, such as \"out\" [path]\n"
			if code != cli.ExitProblems || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
			}
		})
	}
}
