package cli

import (
	"fmt"
	"runtime/debug"
	"text/tabwriter"

	"github.com/platc/platc/compiler/upstream"
)

// modulePath is platc's Go module, what `go install` names.
const modulePath = "github.com/platc/platc"

// buildVersion says which platc this is, from what the Go toolchain
// recorded in the binary: the module version (a release tag when built by
// `go install github.com/platc/platc/cmd/platc@vX.Y.Z`, "(devel)" when
// built from a checkout) and, for a checkout, the VCS revision and whether
// the tree had uncommitted changes.
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
	if info.Main.Version != "" {
		v.Module = info.Main.Version
	}
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

// release returns the module version when it names a release that `go
// install` and pre-commit can fetch, and "" for a development build.
func (v buildVersion) release() string {
	if v.Module == "(devel)" || v.Module == "" {
		return ""
	}
	return v.Module
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
