// Command platc compiles a CUE platform spec into the Argo CD manifests of a
// GitOps repository. See package cli for the commands.
package main

import (
	"os"

	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/internal/gcpace"
)

func main() {
	gcpace.Set()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
