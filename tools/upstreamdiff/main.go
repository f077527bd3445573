// Command upstreamdiff compares the files platc ports
// (compiler/upstream.ArgoCDPorted and KroPorted) between releases of Argo
// CD or kro, reading them from the releases' module zips (go mod
// download: the module proxy once, then the module cache). It is a
// developer's and CI's tool, not part of platc (make upstream-diff,
// docs/upstream.md):
//
//   - upstreamdiff -project argocd -from v3.6.1 [-to v3.6.2] prints the
//     unified diff of every ported file that changed between two releases,
//     then one line per file: the first step of a bump, which finds what
//     to port.
//   - upstreamdiff -newer lists the releases of Argo CD and kro that the
//     module proxy serves, newer than the targets, patch releases
//     included, and compares each with the target. It prints the diff of
//     every ported file that changed and fails, naming the release and the
//     file, where one did: a release platc does not target yet changed a
//     rule platc ports, and the port must follow (CI runs it, so that no
//     patch release goes unreviewed). Pre-releases are listed, not
//     compared: a bump moves to releases only.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/upstream"
)

// project is what upstreamdiff compares for one upstream.
type project struct {
	name   string // "Argo CD"
	module string
	target string
	files  []string
}

var projects = map[string]project{
	"argocd": {"Argo CD", "github.com/argoproj/argo-cd/v3", upstream.ArgoCD, upstream.ArgoCDPorted},
	"kro":    {"kro", "github.com/kubernetes-sigs/kro", upstream.Kro, upstream.KroPorted},
}

func main() {
	name := flag.String("project", "argocd", "argocd or kro")
	from := flag.String("from", "", "the release platc ported before, such as v3.5.1")
	to := flag.String("to", "", "the release to port (default: the target of compiler/upstream)")
	newer := flag.Bool("newer", false, "compare the targets of Argo CD and kro with every newer release the module proxy serves; fail where a ported file changed")
	flag.Parse()
	var err error
	switch p, ok := projects[*name]; {
	case *newer:
		var changed bool
		changed, err = checkNewer(os.Stdout, goModules{}, []project{projects["argocd"], projects["kro"]})
		if err == nil && changed {
			os.Exit(1)
		}
	case !ok || *from == "":
		fmt.Fprintln(os.Stderr, "usage: upstreamdiff -project argocd|kro -from vX.Y.Z [-to vX.Y.Z], or upstreamdiff -newer")
		os.Exit(2)
	default:
		if *to == "" {
			*to = p.target
		}
		err = diffReleases(os.Stdout, goModules{}, p, *from, *to)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstreamdiff:", err)
		os.Exit(1)
	}
}

// modules is where the releases come from: the go command, or a test's.
type modules interface {
	// versions lists the versions of module the proxy serves.
	versions(module string) ([]string, error)
	// files returns the files of module@version, by path in the module.
	files(module, version string) (map[string][]byte, error)
}

// change is what happened to one ported file between two releases.
type change struct {
	file string
	what string // "unchanged", "changed", "new", "gone", "in neither"
	diff string // the unified diff of a changed file
}

// compare compares the ported files of two releases' contents.
func compare(files []string, from, to string, old, cur map[string][]byte) []change {
	out := make([]change, 0, len(files))
	for _, f := range files {
		oldData, inOld := old[f]
		newData, inNew := cur[f]
		c := change{file: f}
		switch {
		case !inOld && !inNew:
			c.what = "in neither"
		case !inOld:
			c.what = "new"
		case !inNew:
			c.what = "gone"
		case bytes.Equal(oldData, newData):
			c.what = "unchanged"
		default:
			c.what = "changed"
			c.diff = udiff.Unified(from+"/"+f, to+"/"+f, string(oldData), string(newData))
		}
		out = append(out, c)
	}
	return out
}

// summary is the line of one file's change.
func (c change) summary(to string) string {
	switch c.what {
	case "in neither":
		return fmt.Sprintf("%-55s in neither release: update the list in compiler/upstream", c.file)
	case "new":
		return fmt.Sprintf("%-55s new in %s", c.file, to)
	case "gone":
		return fmt.Sprintf("%-55s gone in %s: find where it moved, update the list", c.file, to)
	case "changed":
		return fmt.Sprintf("%-55s changed (%d diff lines)", c.file, strings.Count(c.diff, "\n"))
	}
	return fmt.Sprintf("%-55s %s", c.file, c.what)
}

// diffReleases prints what changed in the ported files from one release
// to another.
func diffReleases(w io.Writer, m modules, p project, from, to string) error {
	old, err := m.files(p.module, from)
	if err != nil {
		return err
	}
	cur, err := m.files(p.module, to)
	if err != nil {
		return err
	}
	var summary strings.Builder
	for _, c := range compare(p.files, from, to, old, cur) {
		fmt.Fprint(w, c.diff)
		fmt.Fprintln(&summary, c.summary(to))
	}
	fmt.Fprintf(w, "\n%s %s -> %s, the files platc ports:\n%s", p.module, from, to, summary.String())
	return nil
}

// newerReleases are the releases after target among versions, oldest
// first, and the pre-releases after it, which are not compared.
func newerReleases(target string, versions []string) (releases, prereleases []string) {
	for _, v := range versions {
		if !semver.IsValid(v) || semver.Compare(v, target) <= 0 {
			continue
		}
		if semver.Prerelease(v) != "" {
			prereleases = append(prereleases, v)
		} else {
			releases = append(releases, v)
		}
	}
	semver.Sort(releases)
	semver.Sort(prereleases)
	return releases, prereleases
}

// checkNewer compares each project's target with every newer release the
// proxy serves, and reports whether a ported file changed in one (its
// diff printed, and a line naming the release and the files).
func checkNewer(w io.Writer, m modules, ps []project) (changed bool, err error) {
	var failures []string
	for _, p := range ps {
		versions, err := m.versions(p.module)
		if err != nil {
			return false, err
		}
		releases, pre := newerReleases(p.target, versions)
		if len(releases) == 0 {
			fmt.Fprintf(w, "%s %s: no newer release served", p.name, p.target)
		} else {
			fmt.Fprintf(w, "%s %s: %d newer release(s) served: %s", p.name, p.target, len(releases), strings.Join(releases, " "))
		}
		if len(pre) > 0 {
			fmt.Fprintf(w, " (pre-releases not compared: %s)", strings.Join(pre, " "))
		}
		fmt.Fprintln(w)
		if len(releases) == 0 {
			continue
		}
		target, err := m.files(p.module, p.target)
		if err != nil {
			return false, err
		}
		for _, r := range releases {
			cur, err := m.files(p.module, r)
			if err != nil {
				return false, err
			}
			var differ []string
			for _, c := range compare(p.files, p.target, r, target, cur) {
				if c.what == "unchanged" {
					continue
				}
				fmt.Fprint(w, c.diff)
				fmt.Fprintln(w, c.summary(r))
				differ = append(differ, c.file+" ("+c.what+")")
			}
			if len(differ) == 0 {
				fmt.Fprintf(w, "  %s %s: no file platc ports changed\n", p.name, r)
				continue
			}
			failures = append(failures, fmt.Sprintf("%s %s changed %s", p.name, r, strings.Join(differ, ", ")))
		}
	}
	if len(failures) == 0 {
		fmt.Fprintln(w, "upstream: no release newer than the targets changed a file platc ports")
		return false, nil
	}
	fmt.Fprintln(w, "upstream: a release platc does not target yet changed files platc ports:")
	for _, f := range failures {
		fmt.Fprintln(w, "  "+f)
	}
	fmt.Fprintln(w, "move the target to it: make upstream-diff FROM=<target> TO=<release> (PROJECT=kro for kro), port what changed, record it in argocd.RuleChanges (docs/upstream.md)")
	return true, nil
}

// goModules reads releases with the go command: go list -m -versions asks
// the module proxy, go mod download keeps each module zip in the module
// cache, and the files are read from the zip.
type goModules struct{}

func (goModules) versions(module string) ([]string, error) {
	out, err := goCommand("list", "-m", "-versions", "-json", module)
	var m struct {
		Versions []string
		Error    *struct{ Err string }
	}
	if jerr := json.Unmarshal(out, &m); jerr != nil && err == nil {
		err = jerr
	}
	if m.Error != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %s", module, m.Error.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %v", module, err)
	}
	return m.Versions, nil
}

func (goModules) files(module, version string) (map[string][]byte, error) {
	out, err := goCommand("mod", "download", "-json", module+"@"+version)
	var m struct{ Zip, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil && err == nil {
		err = jerr
	}
	// go mod download reports a release that needs a newer Go than the
	// one running as an error after it has downloaded its zip: the files
	// are what is read.
	if m.Zip == "" || !exists(m.Zip) {
		switch {
		case m.Error != "":
			return nil, fmt.Errorf("%s@%s: %s", module, version, m.Error)
		case err != nil:
			return nil, fmt.Errorf("%s@%s: %v", module, version, err)
		}
		return nil, fmt.Errorf("%s@%s: go mod download gave no zip", module, version)
	}
	return readZip(m.Zip, module+"@"+version)
}

// goCommand runs the go command outside any module (no go.mod to resolve
// against), returning its standard output.
func goCommand(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = os.TempDir()
	cmd.Stderr = os.Stderr
	return cmd.Output()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readZip returns the files of a module zip, by path in the module (the
// zip's names start with module@version/). Only the ported files are
// read in full by their users; a zip of Argo CD holds thousands, read
// here for the few the lists name.
func readZip(file, prefix string) (map[string][]byte, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	wanted := map[string]bool{}
	for _, p := range projects {
		for _, f := range p.files {
			wanted[f] = true
		}
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix+"/")
		if !ok || !wanted[path.Clean(name)] {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, f.Name, err)
		}
		out[name] = data
	}
	return out, nil
}
