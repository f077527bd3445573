package cli

import (
	"archive/tar"
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diff"
	"github.com/platc/platc/compiler/model"
)

// diffFlags are diff's flags, and what runs it.
func diffFlags(fs *flag.FlagSet) func(*call) int {
	env := fs.String("env", "", "only this `environment` (and what every environment shares)")
	client := fs.String("client", "", "only the stack instances of this `client`")
	asJSON := fs.Bool("json", false, "print JSON")
	outDir := fs.String("out", model.DefaultOutDir, "the output root, relative to the repository, in a revision or a repository `folder`")
	manifests := fs.Bool("manifests", false, "compare what the Applications' charts render, object by object, per Application (each side is compiled, its charts rendered offline)")
	return func(c *call) int {
		var sides [2][]diff.Object
		for i, side := range c.args {
			var err error
			if *manifests {
				if sides[i], err = renderedManifests(c.dir, side, c.stderr); err != nil {
					return c.errorf(ExitProblems, "%s: %v", side, err)
				}
				continue
			}
			files, err := readSide(c.dir, side, *outDir)
			if err != nil {
				return c.errorf(ExitUsage, "%s: %v", side, err)
			}
			if sides[i], err = diff.Objects(files, *outDir); err != nil {
				return c.errorf(ExitProblems, "%s: %v", side, err)
			}
		}
		filter := diff.Filter{Env: *env, Client: *client}
		diffs := diff.Diff(sides[0], sides[1], filter)
		if *asJSON {
			if diffs == nil {
				diffs = []diff.ObjectDiff{}
			}
			if err := writeJSON(c.stdout, diffs); err != nil {
				return c.errorf(ExitUsage, "%v", err)
			}
			return ExitOK
		}
		printDiff(c.stdout, c.args[0], c.args[1], diffs)
		printVersions(c.stdout, diff.Versions(sides[0], sides[1], filter))
		return ExitOK
	}
}

func printDiff(w io.Writer, old, new string, diffs []diff.ObjectDiff) {
	count := map[diff.Status]int{}
	env := "\x00"
	for _, d := range diffs {
		count[d.Status]++
		if d.Env != env {
			env = d.Env
			if env == "" {
				fmt.Fprintln(w, "every environment:")
			} else {
				fmt.Fprintf(w, "environment %s:\n", env)
			}
		}
		name := d.Name
		if d.Namespace != "" {
			name = d.Namespace + "/" + d.Name
		}
		if d.App != "" {
			name += " (rendered for Application " + d.App + ")"
		}
		fmt.Fprintf(w, "  %s %s %s\n", d.Status, d.Kind, name)
		for _, c := range d.Changes {
			switch {
			case !c.HasOld:
				fmt.Fprintf(w, "      %s: added %s\n", c.Path, show(c.New))
			case !c.HasNew:
				fmt.Fprintf(w, "      %s: removed %s\n", c.Path, show(c.Old))
			default:
				fmt.Fprintf(w, "      %s: %s -> %s\n", c.Path, show(c.Old), show(c.New))
			}
		}
	}
	fmt.Fprintf(w, "%s -> %s: %d added, %d removed, %d changed\n", old, new, count[diff.Added], count[diff.Removed], count[diff.Changed])
}

// printVersions says which environment runs which chart at another
// version, the Applications' field changes summed up.
func printVersions(w io.Writer, changes []diff.VersionChange) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintln(w, "chart versions:")
	for _, v := range changes {
		fmt.Fprintf(w, "  %s: %s %s -> %s (%s)\n", v.Env, v.Chart, cmp.Or(strings.Join(v.Old, ", "), "(none)"), cmp.Or(strings.Join(v.New, ", "), "(none)"), strings.Join(v.Applications, ", "))
	}
}

// renderedManifests compiles one side (a repository folder, or a Git
// revision of the repository in dir) and returns the objects its
// Applications' charts render, offline (the lock, the vendor folder and
// platc's chart cache).
func renderedManifests(dir, side string, stderr io.Writer) ([]diff.Object, error) {
	var repo fs.FS
	if info, err := os.Stat(side); err == nil && info.IsDir() {
		repo = os.DirFS(side)
	} else if repo, err = revisionFS(dir, side); err != nil {
		return nil, err
	}
	res := compiler.Compile(repo, compiler.Options{Charts: openChartStore(), KeepRenders: true})
	if res.Log.HasErrors() {
		fmt.Fprint(stderr, res.Log.String())
		return nil, fmt.Errorf("the spec does not compile")
	}
	for _, g := range res.Gaps {
		for _, note := range g.Notes {
			fmt.Fprintf(stderr, "platc: note: %s: %s\n", side, note)
		}
	}
	var out []diff.Object
	for _, a := range res.Charts.Apps() {
		objects, err := a.Outcome.Manifests()
		if err != nil {
			return nil, err
		}
		for _, m := range objects {
			o := diff.Object{Env: a.Env, App: a.Name, Data: m.Object}
			o.Kind, _ = m.Object["kind"].(string)
			meta, _ := m.Object["metadata"].(map[string]any)
			o.Name, _ = meta["name"].(string)
			o.Namespace, _ = meta["namespace"].(string)
			out = append(out, o)
		}
	}
	return out, nil
}

// revisionFS is the tree of a Git revision of the repository in dir (git
// archive), in memory.
func revisionFS(dir, rev string) (fs.FS, error) {
	data, err := git(dir, nil, "archive", "--format=tar", rev)
	if err != nil {
		return nil, fmt.Errorf("neither a folder nor a Git revision: %v", err)
	}
	files := fstest.MapFS{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			body, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[h.Name] = &fstest.MapFile{Data: body, Mode: 0o644}
		}
	}
}

// readSide reads the generated files of one side of a diff, by path
// relative to the repository root: from a folder (a repository holding the
// output root, or an output root itself), or from a Git revision of the
// repository in dir.
func readSide(dir, side, outDir string) (map[string][]byte, error) {
	if info, err := os.Stat(side); err == nil && info.IsDir() {
		root := side
		if _, err := os.Stat(filepath.Join(side, outDir)); err == nil {
			root = filepath.Join(side, outDir)
		}
		return readFolder(root, outDir)
	}
	return readRevision(dir, side, outDir)
}

func readFolder(root, outDir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := readInput(p, maxInput)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[outDir+"/"+filepath.ToSlash(rel)] = data
		return nil
	})
	return files, err
}

// readRevision reads the output root at a Git revision with git itself:
// the one dependency a revision needs. It lists the files with one git
// command and reads them all with another (git cat-file --batch): one
// process per file costs more than the diff.
func readRevision(dir, rev, outDir string) (map[string][]byte, error) {
	list, err := git(dir, nil, "ls-tree", "-r", "-z", rev, "--", outDir)
	if err != nil {
		return nil, fmt.Errorf("neither a folder nor a Git revision: %v", err)
	}
	var paths []string
	var ids strings.Builder
	for _, entry := range strings.Split(string(list), "\x00") {
		meta, p, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta) // mode, type, object name
		if !ok || len(fields) != 3 || fields[1] != "blob" || !strings.HasSuffix(p, ".yaml") {
			continue
		}
		paths = append(paths, p)
		ids.WriteString(fields[2] + "\n")
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no rendered files under %s/ at this revision", outDir)
	}
	out, err := git(dir, strings.NewReader(ids.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, p := range paths {
		// Each object is "<name> <type> <size>\n<content>\n".
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		fields := strings.Fields(string(header))
		var size int
		if ok && len(fields) == 3 {
			size, err = strconv.Atoi(fields[2])
		}
		if !ok || len(fields) != 3 || err != nil || size < 0 || len(rest) < size+1 {
			return nil, fmt.Errorf("git cat-file: cannot read %s at %s: %q", p, rev, header)
		}
		files[p] = rest[:size:size]
		out = rest[size+1:]
	}
	return files, nil
}

// git runs git in dir with the arguments, stdin as its input if not nil,
// and returns its output.
func git(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = stdin
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(errOut.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %v", args[0], err)
	}
	return out, nil
}
