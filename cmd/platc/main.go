// Command platc compiles a CUE platform spec into the Argo CD manifests of a
// GitOps repository. See package cli for the commands.
package main

import (
	"os"
	"runtime/debug"

	"github.com/platc/platc/compiler/cli"
)

func main() {
	// platc runs for well under a second and holds its output in memory:
	// collecting garbage a quarter as often costs a few megabytes and saves
	// a tenth of the CPU of a large render (docs/performance.md). A GOGC
	// in the environment wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
