// Package hooks holds platc's Git pre-commit hook, which `platc hooks
// install` writes into a repository's Git folder. The hook is a shell
// script (pre-commit, beside this file); tests run it in a real
// repository.
//
// Beside it is the script of platc's GitHub Action (action.sh, which
// action.yml at the repository root runs; nothing embeds it), and the
// tests of both ways a platform repository runs platc from elsewhere: the
// action, run with a GitHub-like environment, and the hooks of
// .pre-commit-hooks.yaml, run by the pre-commit framework itself (make
// precommit).
package hooks

import _ "embed"

// PreCommit is the pre-commit hook. Its line PlatcLine names the platc it
// runs; the installer replaces it with the platc that installed it.
//
//go:embed pre-commit
var PreCommit string

// PlatcLine is the line of PreCommit that names the platc to run.
const PlatcLine = "platc=${PLATC:-platc}\n"
