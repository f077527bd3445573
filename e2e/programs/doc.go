// Package programs is the build list of the control plane's programs, and
// nothing else: its go.mod names each program as a tool, at the release
// the delivery test runs, so that their dependencies are the versions
// upstream resolved and no other module's (the harness in package
// cluster is a module of its own). Package cluster builds them with go
// build from this folder.
package programs
