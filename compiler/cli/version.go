package cli

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/upstream"
)

// modulePath is platc's Go module, what `go install` names.
const modulePath = "github.com/platc/platc"

// stampedVersion is the version a release build stamps into the binary
// (go build -ldflags "-X github.com/platc/platc/compiler/cli.stampedVersion=v1.2.0",
// as tools/release does): the tag of a release archive, or a snapshot's
// version. Empty otherwise.
var stampedVersion string

// buildVersion says which platc this is: the version stamped by a release
// build, else what the Go toolchain recorded in the binary: the module
// version (a release tag when built by `go install
// github.com/platc/platc/cmd/platc@vX.Y.Z`, a pseudo-version or "(devel)"
// when built from a checkout) and, for a checkout, the VCS revision and
// whether the tree had uncommitted changes.
type buildVersion struct {
	Module   string // module version, or "(devel)"
	Revision string // VCS revision, or ""
	Modified bool
	Go       string
}

func readBuildVersion() buildVersion {
	v := buildVersion{Module: "(devel)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = info.GoVersion
	v.Module = cmp.Or(stampedVersion, info.Main.Version, v.Module)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// releaseOf returns version when it names a release that `go install`,
// pre-commit and a workflow can fetch, and "" for a development build:
// "(devel)", the pseudo-version Go stamps on a build from a checkout
// (v0.0.0-20261206…-abcdef, a commit no tag names, +dirty when modified)
// and a release snapshot's version (-snapshot).
func releaseOf(version string) string {
	if !semver.IsValid(version) || semver.Build(version) != "" || module.IsPseudoVersion(version) ||
		strings.Contains(semver.Prerelease(version), "snapshot") {
		return ""
	}
	return version
}

func (v buildVersion) String() string {
	s := "platc " + v.Module
	if v.Revision != "" {
		s += " (" + v.Revision
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	if v.Go != "" {
		s += " " + v.Go
	}
	return s
}

// runVersion prints which platc this is, then the upstream releases it
// targets (compiler/upstream), one per line.
func runVersion(c *call) int {
	fmt.Fprintln(c.stdout, readBuildVersion())
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	for _, t := range upstream.Targets {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, t.Version, t.Use)
	}
	tw.Flush()
	return ExitOK
}
