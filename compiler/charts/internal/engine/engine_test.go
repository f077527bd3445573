package engine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/upstream"
)

// The copies are Helm's, at the Helm platc links: funcs.go and files.go
// whole, engine.go from cleanupParseError on (the rest is Helm's render
// with the budget). A bump of Helm that changes them fails here: copy them
// again, and carry the budget over.
func TestCopiesAreHelms(t *testing.T) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "helm.sh/helm/v4").Output()
	if err != nil {
		t.Fatalf("finding Helm's module: %v", err)
	}
	helm := filepath.Join(strings.TrimSpace(string(dir)), "pkg", "engine")
	if !strings.Contains(helm, "@"+upstream.Helm) {
		t.Fatalf("Helm's module is at %s, not %s", helm, upstream.Helm)
	}
	for _, name := range []string{"funcs.go", "files.go", "engine.go"} {
		theirs, err := os.ReadFile(filepath.Join(helm, name))
		if err != nil {
			t.Fatal(err)
		}
		ours, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "engine.go" {
			const from = "func cleanupParseError"
			theirs, ours = theirs[bytes.Index(theirs, []byte(from)):], ours[bytes.Index(ours, []byte(from)):]
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s is not Helm %s's %s", name, upstream.Helm, filepath.Join(helm, name))
		}
	}
}
