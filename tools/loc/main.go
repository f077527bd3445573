// Command loc counts platc's production code: the lines of the non-test Go
// files of every package of this repository that the platc binary links
// (go list -deps ./cmd/platc), by package, then the total. Packages only
// tests or developer tools use (testkit/, tools/, the nested modules) are
// not production code and are not counted. It counts lines as wc -l does:
// comments and blank lines too.
//
//	make loc
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/platc/platc"

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Module     *struct{ Path string }
}

type count struct {
	path  string
	lines int
}

func main() {
	root := ".."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	counts, err := production(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loc:", err)
		os.Exit(1)
	}
	total := 0
	for _, c := range counts {
		fmt.Printf("%7d  %s\n", c.lines, c.path)
		total += c.lines
	}
	fmt.Printf("%7d  production code (non-test Go of the packages platc links)\n", total)
}

// production lists the packages of module that ./cmd/platc links, with the
// lines of their non-test Go files, most first.
func production(root string) ([]count, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", "./cmd/platc")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var counts []count
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		n := 0
		for _, f := range append(p.GoFiles, p.CgoFiles...) {
			l, err := lines(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			n += l
		}
		counts = append(counts, count{strings.TrimPrefix(p.ImportPath, module+"/"), n})
	}
	sort.Slice(counts, func(i, j int) bool {
		if counts[i].lines != counts[j].lines {
			return counts[i].lines > counts[j].lines
		}
		return counts[i].path < counts[j].path
	})
	return counts, nil
}

func lines(name string) (int, error) {
	data, err := os.ReadFile(name)
	return bytes.Count(data, []byte("\n")), err
}
