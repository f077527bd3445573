package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/hooks"
)

// hookMarker is in every hook platc writes, so that installing again
// replaces platc's own hook and nothing else.
const hookMarker = "platc's Git pre-commit hook"

func runHooks(c *call, force bool) int {
	out, err := exec.Command("git", "-C", c.dir, "rev-parse", "--git-path", "hooks").Output()
	if err != nil {
		fmt.Fprintf(c.stderr, "platc hooks: %s is not a Git repository (git rev-parse: %v): run git init first\n", c.dir, err)
		return ExitUsage
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.dir, dir)
	}
	path := filepath.Join(dir, "pre-commit")
	if old, err := os.ReadFile(path); err == nil && !bytes.Contains(old, []byte(hookMarker)) && !force {
		fmt.Fprintf(c.stderr, "%s: a pre-commit hook platc did not write is in the way: add `platc check` to it, or replace it with -force\n", path)
		return ExitProblems
	}
	platc := hookPlatc()
	hook := strings.Replace(hooks.PreCommit, hooks.PlatcLine, "platc=${PLATC:-"+render.ShellQuote(platc)+"}\n", 1)
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(path, []byte(hook), 0o755)
	}
	if err == nil {
		err = os.Chmod(path, 0o755)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "platc hooks: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(c.stdout, "platc: installed %s; it runs %s check on what is staged\n", path, platc)
	return ExitOK
}

// hookPlatc is the platc the hook runs: this executable, unless it is a
// temporary build of go run (in a go-build folder), which will be gone:
// then platc on PATH.
func hookPlatc() string {
	exe, err := os.Executable()
	if err != nil {
		return "platc"
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil || strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "platc"
	}
	return exe
}
