// Command platc compiles a CUE platform spec into the Argo CD manifests of a
// GitOps repository. See package cli for the commands.
package main

import (
	"os"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/internal/gcpace"
)

func main() {
	// The process's garbage collection is decided here, and nowhere in
	// the stages: the pace, and one collection once a spec's CUE
	// evaluation is garbage.
	gcpace.Set()
	load.AfterEvaluation = gcpace.Collect
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
