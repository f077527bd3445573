// Command platc compiles a CUE platform spec into the Argo CD manifests of a
// GitOps repository. See package cli for the commands.
package main

import (
	"os"

	"github.com/platc/platc/compiler/cli"
	// The garbage collector's pace, set while the packages initialize.
	"github.com/platc/platc/internal/gcpace"
)

func main() {
	gcpace.Collect()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
