package cli_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/platc/platc/compiler/cli"
)

var update = flag.Bool("update", false, "rewrite the expectations of the scripts in testdata/script, and the reference part of docs/cli.md")

// TestScripts runs the CLI's behaviour written as data: each
// testdata/script/*.txtar is a testscript (the go and cue commands' way),
// with platc as a command (this test binary, TestMain). go test
// ./compiler/cli -update rewrites the files of the archives that their
// cmp lines compare with.
//
// Scripts read platc's own repository as $REPO (the golden cases are
// $REPO/golden) and never write there.
func TestScripts(t *testing.T) {
	repoRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Each script has a cache of its own, in its work folder.
			env.Setenv(cli.CacheEnv, filepath.Join(env.WorkDir, ".platc-cache"))
			env.Setenv("REPO", repoRoot)
			// git commits in the scripts need a name.
			for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"tree":      cmdTree,
			"chartrepo": cmdChartRepo,
			"expand":    cmdExpand,
		},
	})
}

// cmdTree is the script command tree DIR: it prints every file below DIR,
// by path, with a digest of its content, to compare a folder before and
// after a command (cp stdout before; ...; tree DIR; cmp stdout before).
func cmdTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tree DIR")
	}
	dir := ts.MkAbs(args[0])
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		fmt.Fprintf(ts.Stdout(), "%s %x\n", filepath.ToSlash(rel), sum[:8])
		return nil
	})
	ts.Check(err)
}
