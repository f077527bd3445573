//go:build tools

// The cue command this suite builds and drives (cue lsp): its module is
// required here, at the version platc is built with, so that go build
// finds it in this module's graph.
package lsp

import _ "cuelang.org/go/cmd/cue"
