// Command upstreamdiff lists what changed, between two releases of Argo CD
// or kro, in the files platc ports (compiler/upstream.ArgoCDPorted and
// KroPorted): the step of a bump that finds what to port (make
// upstream-diff, docs/upstream.md). It downloads both releases' modules
// with go mod download (the network, or the module cache) and prints a
// unified diff per changed file, then a summary line per file. It is a
// developer's tool, not part of platc.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"

	"github.com/platc/platc/compiler/upstream"
)

// project is what upstreamdiff compares for one upstream.
type project struct {
	module string
	target string
	files  []string
}

var projects = map[string]project{
	"argocd": {"github.com/argoproj/argo-cd/v3", upstream.ArgoCD, upstream.ArgoCDPorted},
	"kro":    {"github.com/kubernetes-sigs/kro", upstream.Kro, upstream.KroPorted},
}

func main() {
	name := flag.String("project", "argocd", "argocd or kro")
	from := flag.String("from", "", "the release platc ported before, such as v3.5.1 (required)")
	to := flag.String("to", "", "the release to port (default: the target of compiler/upstream)")
	flag.Parse()
	p, ok := projects[*name]
	if !ok || *from == "" {
		fmt.Fprintln(os.Stderr, "usage: upstreamdiff -project argocd|kro -from vX.Y.Z [-to vX.Y.Z]")
		os.Exit(2)
	}
	if *to == "" {
		*to = p.target
	}
	if err := run(os.Stdout, p, *from, *to); err != nil {
		fmt.Fprintln(os.Stderr, "upstreamdiff:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, p project, from, to string) error {
	oldDir, err := download(p.module, from)
	if err != nil {
		return err
	}
	newDir, err := download(p.module, to)
	if err != nil {
		return err
	}
	var summary bytes.Buffer
	for _, f := range p.files {
		oldData, oldErr := os.ReadFile(filepath.Join(oldDir, f))
		newData, newErr := os.ReadFile(filepath.Join(newDir, f))
		switch {
		case oldErr != nil && newErr != nil:
			fmt.Fprintf(&summary, "%-55s in neither release: update the list in compiler/upstream\n", f)
		case oldErr != nil:
			fmt.Fprintf(&summary, "%-55s new in %s\n", f, to)
		case newErr != nil:
			fmt.Fprintf(&summary, "%-55s gone in %s: find where it moved, update the list\n", f, to)
		case bytes.Equal(oldData, newData):
			fmt.Fprintf(&summary, "%-55s unchanged\n", f)
		default:
			d := udiff.Unified(from+"/"+f, to+"/"+f, string(oldData), string(newData))
			fmt.Fprint(w, d)
			fmt.Fprintf(&summary, "%-55s changed (%d diff lines)\n", f, bytes.Count([]byte(d), []byte("\n")))
		}
	}
	fmt.Fprintf(w, "\n%s %s -> %s, the files platc ports:\n%s", p.module, from, to, summary.String())
	return nil
}

// download returns the folder of module@version in the module cache.
func download(module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir() // outside any module: no go.mod to resolve against
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil && err == nil {
		err = jerr
	}
	if m.Dir != "" {
		// go mod download reports a release that needs a newer Go as an
		// error after it has unpacked it: the files are what is read.
		if _, serr := os.Stat(m.Dir); serr == nil {
			return m.Dir, nil
		}
	}
	if m.Error != "" {
		return "", fmt.Errorf("%s@%s: %s", module, version, m.Error)
	}
	if err != nil {
		return "", fmt.Errorf("%s@%s: %v", module, version, err)
	}
	return "", fmt.Errorf("%s@%s: go mod download gave no folder", module, version)
}
