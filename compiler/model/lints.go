package model

import "github.com/platc/platc/compiler/diag"

// The security lints, by the name an allow field gives to excuse one
// (#Allow in schemas/platform.cue lists them too). check refuses an allow
// of another name; verify raises them.
const (
	// LintLiteralSecret: a password, token or key written as a value.
	LintLiteralSecret = "literal-secret"
	// LintWildcard: a * in a pinned environment's AppProject.
	LintWildcard = "wildcard"
)

// Lints are the security lints an allow field may make exceptions to:
// the message ids marked Allow (diag.Messages), the only ones that may
// be silenced.
var Lints = diag.Allowed()
