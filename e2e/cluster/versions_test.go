package cluster

import (
	"os"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestEveryProgramIsATool requires the programs' go.mod to name each
// program as a tool, so that its dependencies are in the build list. The
// versions it requires are compiler/upstream's (TestTheOnePlace).
func TestEveryProgramIsATool(t *testing.T) {
	data, err := os.ReadFile("../programs/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, tl := range f.Tool {
		tools[tl.Path] = true
	}
	for _, p := range programs {
		if !tools[p.Package] {
			t.Errorf("programs/go.mod has no tool line for %s", p.Package)
		}
	}
}
