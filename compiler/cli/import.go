package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/importer"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
)

func importFlags(flags *flag.FlagSet) func(*call) int {
	out := flags.String("o", compiler.DefaultSpecDir, "the `folder` of the spec to write, from the repository root")
	force := flags.Bool("force", false, "overwrite the spec's files where they exist")
	repo := flags.String("repo", "", "the imported repository's Git `URL` (default its remote origin, else the one most Applications sync a folder of that is here)")
	name := flags.String("name", "", "the platform's `name` (default imported)")
	dry := flags.Bool("n", false, "compare only: write nothing")
	var clusters clusterFiles
	flags.Var(&clusters, "clusters", "a YAML `[ENV=]FILE` of Argo CD's cluster Secrets (kubectl get secrets -n argocd -l argocd.argoproj.io/secret-type=cluster -o yaml), which ApplicationSets' clusters generators read: of environment ENV, or of every one; repeatable; their credentials are not read")
	return func(c *call) int {
		return runImport(c, importer.Options{Name: *name, RepoURL: *repo}, clusters, *out, *force, *dry)
	}
}

// clusterFiles is the repeatable -clusters [ENV=]FILE flag.
type clusterFiles []string

func (f *clusterFiles) String() string     { return strings.Join(*f, ",") }
func (f *clusterFiles) Set(v string) error { *f = append(*f, v); return nil }

// readClusters reads each -clusters file, by environment: a file named
// for no environment is every environment's.
func readClusters(dir string, files clusterFiles, envs []string) (map[string][]importer.Cluster, error) {
	if len(files) == 0 {
		return nil, nil
	}
	byEnv := map[string][]importer.Cluster{}
	for _, f := range files {
		env, name, named := strings.Cut(f, "=")
		if !named {
			env, name = "", f
		} else if !slices.Contains(envs, env) {
			return nil, fmt.Errorf("-clusters %s: no folder imported is environment %q (they are: %s): name one of them", f, env, strings.Join(envs, ", "))
		}
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		data, err := readInput(file, importer.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("-clusters %s: %v", f, err)
		}
		clusters, err := importer.ReadClusters(name, data)
		if err != nil {
			return nil, err
		}
		for _, e := range envs {
			if !named || e == env {
				byEnv[e] = append(byEnv[e], clusters...)
			}
		}
	}
	return byEnv, nil
}

// importRoots reads the positional arguments, [ENV=]PATH, as the folders
// to import: one environment each, or several named for one environment.
func importRoots(args []string) ([]importer.Root, error) {
	var roots []importer.Root
	namedEnv := map[string]bool{} // environment -> named by ENV=
	for _, a := range args {
		env, p, named := strings.Cut(a, "=")
		if !named {
			p = a
		}
		p = path.Clean(strings.TrimPrefix(p, "./"))
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("%q is not a folder inside the repository: give its path from the repository root", a)
		}
		if !named {
			env = labelOf(path.Base(p))
		}
		if !dnsLabel.MatchString(env) {
			return nil, fmt.Errorf("environment %q (of %s) is not a DNS-1123 label: name it, as ENV=%s", env, p, p)
		}
		// Folders are one environment only where each says so.
		if was, seen := namedEnv[env]; seen && (!was || !named) {
			return nil, fmt.Errorf("two folders would be environment %s: name them, as ENV=PATH", env)
		}
		namedEnv[env] = named
		roots = append(roots, importer.Root{Env: env, Path: p})
	}
	return roots, nil
}

func runImport(c *call, opts importer.Options, clusterFiles clusterFiles, specDir string, force, dry bool) int {
	specDir = path.Clean(specDir)
	if !fs.ValidPath(specDir) || specDir == "." {
		return c.usagef("-o %q is not a folder inside the repository", specDir)
	}
	roots, err := importRoots(c.args)
	if err != nil {
		return c.usagef("%v", err)
	}
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		return c.errorf(ExitUsage, "opening the repository: %v", err)
	}
	defer root.Close()
	repo := newRepoFS(root)
	opts.RepoURL = cmp.Or(opts.RepoURL, originURL(root))
	objs, skips, err := importer.Read(repo, roots)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	// The AppProjects elsewhere in the repository, for Applications whose
	// folders do not hold theirs.
	if all, _, err := importer.Read(repo, []importer.Root{{Path: ".", Projects: true}}); err == nil {
		for _, o := range all {
			if o.Kind == "AppProject" {
				objs = append(objs, o)
			}
		}
	}
	var envs []string
	for _, r := range roots {
		if !slices.Contains(envs, r.Env) {
			envs = append(envs, r.Env)
		}
	}
	opts.Roots = roots
	if opts.Clusters, err = readClusters(c.dir, clusterFiles, envs); err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	spec, files, res := importCompile(repo, objs, envs, opts, specDir)
	if slices.ContainsFunc(res.Log.Problems(), func(p diag.Problem) bool { return manifests.NeedsHelm(manifests.Problem{ID: p.ID, Msg: p.Msg}) }) {
		// Its folders inflate Helm charts, which Argo CD builds only with
		// --enable-helm: the repository's Argo CD has it.
		opts.KustomizeBuildOptions = "--enable-helm"
		spec, files, res = importCompile(repo, objs, envs, opts, specDir)
		fmt.Fprintf(c.stderr, "platc import: kustomizations inflate Helm charts, which Argo CD builds only with kustomize.buildOptions --enable-helm, so the spec says so (platform.kustomizeBuildOptions)\n")
	}
	// Modules whose spec, written, has problems of its own are left out,
	// so that the others are compared: a few rounds, as one left out may
	// be another's need.
	for round := 0; round < 3 && res.Log.HasErrors() && res.Files == nil; round++ {
		refused, ok := importer.ModuleProblems(res.Log.Problems())
		if !ok {
			break
		}
		if opts.Refused == nil {
			opts.Refused = map[string]string{}
		}
		maps.Copy(opts.Refused, refused)
		spec, files, res = importCompile(repo, objs, envs, opts, specDir)
	}
	unread := 0 // files, or folders, whose objects could not be read
	for _, s := range skips {
		if s.Kind != "" {
			spec.NotImported = append(spec.NotImported, s)
		} else {
			unread++
			fmt.Fprintf(c.stderr, "platc import: %s: %s\n", s.Where(), s.Reason)
		}
	}

	for _, p := range res.Log.Problems() {
		fmt.Fprintf(c.stderr, "%s\n", p)
	}
	rendered := map[string][]map[string]any{}
	for _, f := range res.Files {
		for _, env := range envs {
			if strings.HasPrefix(f.Path, render.ClusterDir(env)+"/") {
				for _, o := range f.Objects {
					if m, ok := object.Plain(o).(map[string]any); ok {
						rendered[env] = append(rendered[env], m)
					}
				}
			}
		}
	}
	if res.Log.HasErrors() && res.Files == nil {
		spec.Failed = "the spec written has problems (above)"
	}
	results := importer.Compare(spec, rendered)
	printImport(c.stdout, results)
	printSwitch(c.stdout, spec, envs, cmp.Or(res.OutDir, "out"), results)

	written := "nothing written (-n)"
	if !dry {
		var inTheWay []string
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if _, err := root.Lstat(name); !errors.Is(err, fs.ErrNotExist) && !force {
				inTheWay = append(inTheWay, name)
			}
		}
		if len(inTheWay) > 0 {
			verb := map[bool]string{true: "exists", false: "exist"}[len(inTheWay) == 1]
			return c.errorf(ExitUsage, "%s %s: nothing written; pass -force to overwrite, or -o another folder", strings.Join(inTheWay, ", "), verb)
		}
		if err := root.MkdirAll(specDir, 0o777); err != nil {
			return c.errorf(ExitUsage, "%v", err)
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if err := writeFileAtomic(root, name, files[name]); err != nil {
				return c.errorf(ExitUsage, "%v", err)
			}
		}
		written = "wrote " + specDir + "/"
	}
	counts := map[importer.Status]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	problems := ""
	n := 0
	for _, p := range res.Log.Problems() {
		if p.Severity == diag.Error {
			n++
		}
	}
	if n > 0 && res.Files != nil {
		// The render's own findings, in the objects as they are.
		problems = fmt.Sprintf("; %s (above) in what the original objects say", diag.Plural(n, "problem", "problems"))
	}
	fmt.Fprintf(c.stdout, "import: %d objects, %d equal, %d differ, %d not imported%s; %s\n",
		len(results), counts[importer.Equal], counts[importer.Differs], counts[importer.NotImported], problems, written)
	if counts[importer.Equal] == len(results) && !res.Log.HasErrors() && unread == 0 {
		return ExitOK
	}
	return ExitProblems
}

// printImport writes the table of results: each object, and how it came
// out.
func printImport(w io.Writer, results []importer.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENVIRONMENT\tKIND\tNAME\tRESULT")
	for _, r := range results {
		what := r.Status.String()
		switch r.Status {
		case importer.Differs:
			what += ": " + strings.Join(r.Fields, ", ")
		case importer.NotImported:
			what += ": " + r.Reason + " (" + r.Where + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Env, r.Kind, r.Name, what)
	}
	tw.Flush()
}

// importCompile builds the spec of the objects and compiles it in
// memory over the repository as it is, its files (by path) in place of
// the spec folder's .cue files.
func importCompile(repo fs.FS, objs []*importer.Object, envs []string, opts importer.Options, specDir string) (*importer.Spec, map[string][]byte, *compiler.Result) {
	spec := importer.Build(repo, objs, envs, opts)
	files := map[string][]byte{}
	for name, b := range spec.Files {
		files[path.Join(specDir, name)] = b
	}
	res := compiler.Compile(overlay{FS: repo, files: files, specDir: specDir}, compiler.Options{SpecDir: specDir, KeepFiles: true})
	return spec, files, res
}

// printSwitch says how to move each environment's cluster to platc,
// step by step: what deletes what, in which order, and what to run.
func printSwitch(w io.Writer, spec *importer.Spec, envs []string, outDir string, results []importer.Result) {
	platform := &model.Platform{DefaultEnvironment: envs[0]}
	for _, env := range envs {
		differ := 0
		for _, r := range results {
			if r.Env == env && r.Status == importer.Differs {
				differ++
			}
		}
		fmt.Fprintf(w, "\nTo switch environment %s to platc, in this order:\n", env)
		fmt.Fprintf(w, "  1. platc render; review and commit out/. The Applications keep their names, so Argo CD changes them in place: none is deleted or created again.\n")
		step := 2
		for _, a := range spec.AppsOfApps {
			if a.Env != env {
				continue
			}
			children := "the Applications of " + a.Folder
			if len(a.Children) > 0 {
				children = diag.List(a.Children)
			}
			if a.Set {
				fmt.Fprintf(w, "  %d. ApplicationSet %s (%s) generates %s, which platc's root takes over: delete it, and keep what it generated:\n", step, a.Name, a.Where, children)
				fmt.Fprintf(w, "       kubectl -n %s delete applicationset %s --cascade=orphan\n", spec.ArgoCDNamespace, a.Name)
				step++
				continue
			}
			fmt.Fprintf(w, "  %d. Application %s (%s) creates %s, which platc's root takes over: delete it", step, a.Name, a.Where, children)
			if apps := slices.ContainsFunc(a.Children, func(c string) bool { return !strings.HasPrefix(c, "AppProject ") }); a.Cascades && !apps && len(a.Children) > 0 {
				fmt.Fprintf(w, " without cascading, for its finalizer would delete %s with it:\n", map[bool]string{true: "the AppProject", false: "the AppProjects"}[len(a.Children) == 1])
				fmt.Fprintf(w, "       kubectl -n %s patch application %s --type json -p '[{\"op\": \"remove\", \"path\": \"/metadata/finalizers\"}]'\n", spec.ArgoCDNamespace, a.Name)
			} else if a.Cascades {
				fmt.Fprintf(w, " without cascading, for its finalizer would delete them, and what they deployed, with it:\n")
				fmt.Fprintf(w, "       kubectl -n %s patch application %s --type json -p '[{\"op\": \"remove\", \"path\": \"/metadata/finalizers\"}]'\n", spec.ArgoCDNamespace, a.Name)
			} else {
				stay := "its Applications stay"
				sets := 0
				for _, c := range a.Children {
					if strings.HasPrefix(c, "ApplicationSet ") {
						sets++
					}
				}
				if sets > 0 && !slices.ContainsFunc(a.Children, func(c string) bool { return !strings.Contains(c, " ") }) {
					stay = map[bool]string{true: "the ApplicationSet stays", false: "the ApplicationSets stay"}[sets == 1]
				}
				fmt.Fprintf(w, " (it has no finalizer: %s):\n", stay)
			}
			fmt.Fprintf(w, "       kubectl -n %s delete application %s\n", spec.ArgoCDNamespace, a.Name)
			if len(a.Manifests) > 0 {
				fmt.Fprintf(w, "     Its folder also holds %s, which platc's root does not sync: first move %s into a module of its own (a path module of a folder), or nothing delivers %s after the switch.\n",
					diag.Plural(len(a.Manifests), "object that is not an Application ("+diag.List(a.Manifests)+")", "objects that are not Applications ("+diag.List(a.Manifests)+")"), map[bool]string{true: "it", false: "them"}[len(a.Manifests) == 1], map[bool]string{true: "it", false: "them"}[len(a.Manifests) == 1])
			}
			step++
		}
		fmt.Fprintf(w, "  %d. Create platc's root Application, %s, which takes over the Applications by name:\n", step, model.DefaultRootName(env))
		fmt.Fprintf(w, "       kubectl apply -f %s\n", path.Join(outDir, render.RootFile(platform, env)))
		if differ > 0 {
			fmt.Fprintf(w, "  %s (above): after the switch, Argo CD runs %s as the spec renders %[2]s, not as %s.\n", diag.Plural(differ, "object differs", "objects differ"), map[bool]string{true: "it", false: "them"}[differ == 1], map[bool]string{true: "it was", false: "they were"}[differ == 1])
		}
	}
}

// originURL is the URL of the repository's Git remote origin, as
// .git/config says it, or "".
func originURL(root *os.Root) string {
	data, err := root.ReadFile(".git/config")
	if err != nil || len(data) > 1<<20 {
		return ""
	}
	inOrigin := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && inOrigin && strings.TrimSpace(k) == "url" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
