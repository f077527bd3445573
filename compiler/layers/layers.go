// Package layers strictly reads the values files clients keep for their
// stacks' modules (ADR 010's fast lane, docs/decisions.md), checks each is
// where a module reads it, and reports keys the platform also sets, since
// the platform's valuesObject silently wins. Which layer a value comes
// from is explain's. It reads this repository or a caller's checkout, and
// renders nothing.
package layers

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/rgd"
)

// Repo is a local checkout of a client's values repository.
type Repo struct {
	FS  fs.FS
	Dir string // how to name it in messages, such as ../search-gitops
}

// Options say where client repositories are and how strict to be.
type Options struct {
	// Repos are local checkouts of clients' values repositories, by client
	// name. A client whose values are in the platform's repository needs
	// none.
	Repos map[string]Repo
	// Strict makes a key the platform overrides an error, not a warning.
	Strict bool
}

// File is a client's values file for one module of a stack.
type File struct {
	Client *model.Client
	Stack  *model.Stack
	Module *model.StackModule
	Path   string // as messages name it
	Tree   *Node  // nil when the file is absent or unreadable
}

// Result is what Read found.
type Result struct {
	files   map[fileKey]*File
	inReach map[string]bool // client name -> its values repository is readable
}

type fileKey struct{ client, stack, module string }

// File returns the client's values file for a module of a stack, or nil
// when there is none or it is out of reach.
func (r *Result) File(client, stack, module string) *File {
	return r.files[fileKey{client, stack, module}]
}

// InReach reports whether the client's values repository could be read.
func (r *Result) InReach(client string) bool { return r.inReach[client] }

// Read reads the values files of every client in reach, and reports
// unreadable, malformed and misplaced files and keys the platform overrides.
// repo is the platform's repository.
func Read(spec *model.Spec, stacks *rgd.Compiled, repo fs.FS, opts Options, log *diag.Log) *Result {
	res := &Result{files: map[fileKey]*File{}, inReach: map[string]bool{}}
	inRepo := map[string][]*model.Client{} // parent folder of prefixes -> clients in this repository
	type reading struct {
		cl    *model.Client
		fsys  fs.FS
		dir   string
		files map[fileKey]*File
	}
	var readings []*reading
	for _, cl := range spec.Clients {
		fsys, dir, ok := clientRepo(spec, cl, repo, opts)
		if !ok {
			continue
		}
		res.inReach[cl.Name] = true
		if _, checkout := opts.Repos[cl.Name]; !checkout {
			inRepo[path.Dir(cl.Values.Prefix)] = append(inRepo[path.Dir(cl.Values.Prefix)], cl)
		}
		readings = append(readings, &reading{cl: cl, fsys: fsys, dir: dir, files: map[fileKey]*File{}})
	}
	// Read clients in parallel; the log sorts what they report.
	object.Parallel(len(readings), func(i int) {
		r := readings[i]
		readClient(spec, stacks, r.cl, r.fsys, r.dir, r.files, log)
	})
	for _, r := range readings {
		maps.Copy(res.files, r.files)
	}
	checkTeamFolders(repo, inRepo, log)
	for _, key := range sortedFileKeys(res.files) {
		if f := res.files[key]; f.Tree != nil {
			conflicts(f, opts.Strict, spec, log)
		}
	}
	return res
}

// clientRepo returns the repository that holds a client's values files.
func clientRepo(spec *model.Spec, cl *model.Client, repo fs.FS, opts Options) (fs.FS, string, bool) {
	if r, ok := opts.Repos[cl.Name]; ok {
		return r.FS, r.Dir, true
	}
	if cl.Values.RepoURL == spec.Platform.RepoURL {
		return repo, "", true
	}
	return nil, "", false
}

// OutOfReach returns the clients of spec with a stack whose values
// repository is neither the platform's nor a checkout of opts: Read reads
// none of their files.
func OutOfReach(spec *model.Spec, opts Options) []*model.Client {
	var out []*model.Client
	for _, cl := range spec.Clients {
		if _, _, ok := clientRepo(spec, cl, nil, opts); !ok && len(cl.Stacks) > 0 {
			out = append(out, cl)
		}
	}
	return out
}

// readClient reads the values files of the client cl, in dir of fsys,
// into files.
func readClient(spec *model.Spec, stacks *rgd.Compiled, cl *model.Client, fsys fs.FS, dir string, files map[fileKey]*File, log *diag.Log) {
	// Each folder holds the files of the modules of the client's stacks
	// that read it (several stacks may share one).
	type reader struct {
		stack  *model.Stack
		module *model.StackModule
	}
	folders := map[string]map[string]reader{} // folder -> file name -> reader
	valuesFiles := map[string]bool{}          // the names of every module's file
	for _, cs := range cl.Stacks {
		st := spec.Stack(cs.Stack)
		if st == nil {
			continue
		}
		folder := rgd.ValuesPath(cl, st)
		if folders[folder] == nil {
			folders[folder] = map[string]reader{}
		}
		for _, m := range st.Modules {
			folders[folder][m.ValuesFile] = reader{st, m}
			valuesFiles[m.ValuesFile] = true
		}
	}
	team := cl.Values.Prefix
	if link, target, outside := manifests.OutsideLink(fsys, team); outside {
		log.Reportf(diag.Path, diag.Pos{File: path.Join(dir, link)}, "", "the values folder of client %s %s", cl.Name, manifests.OutsideMsg(target))
		return
	}
	for _, folder := range slices.Sorted(maps.Keys(folders)) {
		if link, target, outside := manifests.OutsideLink(fsys, folder); outside {
			log.Reportf(diag.Path, diag.Pos{File: path.Join(dir, link)}, "", "the values folder of client %s %s", cl.Name, manifests.OutsideMsg(target))
			continue
		}
		entries, err := fs.ReadDir(fsys, folder)
		if err != nil {
			continue // no folder: the client overrides nothing
		}
		for _, e := range entries {
			name := path.Join(folder, e.Name())
			shown := path.Join(dir, name)
			if e.IsDir() || !isYAML(e.Name()) {
				continue
			}
			r, ok := folders[folder][e.Name()]
			if !ok {
				known := slices.Sorted(maps.Keys(folders[folder]))
				log.Reportf(diag.UnreadValues, diag.Pos{File: shown}, "", "no module of client %s's stacks reads this file: the modules read %s; rename or remove it", cl.Name, strings.Join(known, ", "))
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				if link, target, outside := manifests.OutsideLink(fsys, name); outside {
					log.Reportf(diag.Path, diag.Pos{File: path.Join(dir, link)}, "", "%s", manifests.OutsideMsg(target))
					continue
				}
			}
			f := &File{Client: cl, Stack: r.stack, Module: r.module, Path: shown}
			files[fileKey{cl.Name, r.stack.Name, r.module.ID}] = f
			if !consumes(stacks, cl, r.stack, r.module) {
				log.Reportf(diag.UnreadValues, diag.Pos{File: shown}, "", "client %s does not get module %s of stack %s in any environment (its includeWhen is false for the client), so nothing reads this file: remove it", cl.Name, r.module.ID, r.stack.Name)
				continue
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				log.Reportf(diag.IO, diag.Pos{File: shown}, "", "reading the values file: %v", err)
				continue
			}
			tree, dups, err := ReadFile(shown, data)
			for _, d := range dups {
				log.Reportf(diag.DuplicateKey, d.Pos, "", "%s", d.Msg)
			}
			if err != nil {
				if fe, ok := err.(*FileError); ok {
					log.Reportf(diag.ValuesFile, fe.Pos, "", "%s", fe.Msg)
				} else {
					log.Reportf(diag.ValuesFile, diag.Pos{File: shown}, "", "%v", err)
				}
				continue
			}
			f.Tree = tree
		}
	}
	unread(cl, fsys, dir, team, slices.Sorted(maps.Keys(folders)), valuesFiles, log)
}

// unread reports files under the client's team folder that no
// Application reads: outside the stacks' values folders (at the top, or in
// a misspelled folder), or in a subfolder of one (Argo CD reads values
// files by path, at the top of their folders). Only files Helm could take
// for values count: YAML, or named as a module's file; hidden ones and
// READMEs do not. A team folder at the repository root is searched only
// below the values folders.
func unread(cl *model.Client, fsys fs.FS, dir, team string, folders []string, valuesFiles map[string]bool, log *diag.Log) {
	var firsts []string // the first folder of each values folder's path below the team folder
	for _, f := range folders {
		first, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(f, team), "/"), "/")
		if !slices.Contains(firsts, first) {
			firsts = append(firsts, first)
		}
	}
	where := "from " + strings.Join(folders, "/, ") + "/"
	if len(folders) == 0 {
		where = "from nowhere: the client has no stack"
	}
	report := func(file, why string) {
		log.Reportf(diag.UnreadValues, diag.Pos{File: path.Join(dir, file)}, "", "no Application reads this file: %s; client %s's values files are read %s; move or remove it", why, cl.Name, where)
	}
	isRoot := team == "." || team == ""
	roots := []string{team}
	if isRoot {
		roots = folders
	}
	for _, root := range roots {
		fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil || p == root:
				return nil
			case strings.HasPrefix(d.Name(), "."):
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			case d.IsDir():
				return nil
			case d.Type()&fs.ModeSymlink != 0:
				if link, target, outside := manifests.OutsideLink(fsys, p); outside {
					if !slices.Contains(folders, path.Dir(p)) { // readClient reports those
						log.Reportf(diag.Path, diag.Pos{File: path.Join(dir, link)}, "", "%s", manifests.OutsideMsg(target))
					}
					return nil
				}
			}
			folder := path.Dir(p)
			if slices.Contains(folders, folder) || !isYAML(d.Name()) && !valuesFiles[d.Name()] {
				return nil // read, or reported, by readClient; or not values
			}
			if i := slices.IndexFunc(folders, func(f string) bool { return strings.HasPrefix(folder, f+"/") }); i >= 0 {
				report(p, "it is in a folder below "+folders[i]+"/, and Argo CD reads the values files at the top of it")
				return nil
			}
			if isRoot {
				return nil
			}
			if folder == team {
				report(p, "it is at the top of the team folder "+team+"/, not in a stack's values folder")
				return nil
			}
			sub := strings.TrimPrefix(folder, team+"/")
			first, _, _ := strings.Cut(sub, "/")
			why := "folder " + path.Join(team, first) + "/ is no stack's values folder"
			if s := diag.Suggest(first, firsts); s != "" {
				why += fmt.Sprintf(" (did you mean %q?)", s)
			}
			report(p, why)
			return nil
		})
	}
}

// consumes reports whether the client gets the module in some environment:
// its includeWhen is not false for every instance of the client. A
// condition only the cluster can decide counts as getting it.
func consumes(stacks *rgd.Compiled, cl *model.Client, st *model.Stack, m *model.StackModule) bool {
	if stacks == nil {
		return true
	}
	for _, inst := range stacks.Instances {
		if inst.Client != cl || inst.Stack.Model != st {
			continue
		}
		p, err := stacks.PreviewInstance(st.Name, cl.Name, inst.Env.Name)
		if err != nil {
			return true
		}
		for _, r := range p.Resources {
			if r.ID == m.ID && r.Object != nil {
				return true
			}
		}
	}
	return false
}

// checkTeamFolders reports folders beside the clients' folders in this
// repository that no client names: a team's files that nothing reads.
func checkTeamFolders(repo fs.FS, inRepo map[string][]*model.Client, log *diag.Log) {
	for _, parent := range slices.Sorted(maps.Keys(inRepo)) {
		entries, err := fs.ReadDir(repo, parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			folder := path.Join(parent, e.Name())
			named := slices.ContainsFunc(inRepo[parent], func(c *model.Client) bool { return c.Values.Prefix == folder })
			if e.Type()&fs.ModeSymlink != 0 && !named { // a client's own folder is checked with the client
				if link, target, outside := manifests.OutsideLink(repo, folder); outside {
					log.Reportf(diag.Path, diag.Pos{File: link}, "", "%s", manifests.OutsideMsg(target))
					continue
				}
			}
			if !e.IsDir() {
				continue
			}
			if !named {
				log.Reportf(diag.UnreadValues, diag.Pos{File: folder}, "", "folder has no client in the spec, so nothing reads its files: add a client whose values prefix is %q, or remove the folder", folder)
			}
		}
	}
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

func sortedFileKeys(m map[fileKey]*File) []fileKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b fileKey) int {
		return cmp.Or(strings.Compare(a.client, b.client), strings.Compare(a.stack, b.stack), strings.Compare(a.module, b.module))
	})
}

// ValuesPath joins a Helm values path for messages: dotted, with a key
// holding a dot escaped as platc's wiring keys write it.
func ValuesPath(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = strings.ReplaceAll(l, ".", `\.`)
	}
	return strings.Join(parts, ".")
}

// Files returns the client files read, sorted by client, stack and module.
func (r *Result) Files() []*File {
	var out []*File
	for _, k := range sortedFileKeys(r.files) {
		out = append(out, r.files[k])
	}
	return out
}

// Leaves calls fn for every leaf of the file's values (a scalar, a list, an
// empty mapping), with its dotted path and position.
func (f *File) Leaves(fn func(path []string, value any, pos diag.Pos)) {
	if f.Tree != nil {
		nodeLeaves(nil, f.Tree, f.Tree.Pos, fn)
	}
}

func nodeLeaves(labels []string, n *Node, pos diag.Pos, fn func([]string, any, diag.Pos)) {
	if n.Kind == Map && (len(n.Keys) > 0 || labels == nil) {
		for i, k := range n.Keys {
			nodeLeaves(append(slices.Clip(labels), k.Name), n.Values[i], k.Pos, fn)
		}
		return
	}
	fn(labels, n.Plain(), pos)
}

// ValueLeaves calls fn for every leaf of a values tree (a scalar, a list, an
// empty mapping), in sorted order.
func ValueLeaves(labels []string, v any, fn func([]string, any)) {
	if m, ok := v.(map[string]any); ok && (len(m) > 0 || labels == nil) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			ValueLeaves(append(slices.Clip(labels), k), m[k], fn)
		}
		return
	}
	fn(labels, v)
}

// AppendLabels extends a spec path with the labels of a values path.
func AppendLabels(specPath string, labels []string) string {
	for _, l := range labels {
		specPath = diag.JoinPath(specPath, l)
	}
	return specPath
}
