package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/platc/platc/compiler/cli"
)

// TestScripts runs the CLI's behaviour written as data: each
// testdata/script/*.txtar is a testscript (the go and cue commands' way),
// with platc as a command run in-process. go test ./compiler/cli -update
// rewrites the files their cmp lines compare with.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// Each script has a cache of its own, in its work folder.
			env.Setenv(cli.CacheEnv, filepath.Join(env.WorkDir, ".platc-cache"))
			return nil
		},
	})
}
