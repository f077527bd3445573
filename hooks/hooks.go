// Package hooks holds platc's Git pre-commit hook, which `platc hooks
// install` writes into a repository's Git folder. The hook is a shell
// script (pre-commit, beside this file); tests run it in a real
// repository.
package hooks

import _ "embed"

// PreCommit is the pre-commit hook. Its line PlatcLine names the platc it
// runs; the installer replaces it with the platc that installed it.
//
//go:embed pre-commit
var PreCommit string

// PlatcLine is the line of PreCommit that names the platc to run.
const PlatcLine = "platc=${PLATC:-platc}\n"
