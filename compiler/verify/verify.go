// Package verify checks the rendered output as its consumers will: Argo
// CD's rules across objects (compiler/argocd decides; verify places each
// answer at the spec position that can fix it), platc's own rules (unique
// names, a root include matching exactly its files, values files exist),
// and security lints (wildcards in customer projects, secrets in values).
// It reads the rendered objects, the Applications kro will create, and the
// spec; it renders Helm sources and builds repo-path folders to check what
// they yield. It changes nothing in the output.
package verify

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/internal/cache"
)

// Input is what Verify reads.
type Input struct {
	Spec   *model.Spec
	Stacks *rgd.Compiled
	Layers *layers.Result
	Files  []render.File
	// Repo is the platform's repository, for the files Applications name.
	Repo fs.FS
	// CRDs, when set, replace the embedded CRDs (a cluster's own), by file
	// name.
	CRDs map[string][]byte
	// Folders, when set, are the repo-path modules' folders (BuildFolders,
	// NewFolders); otherwise Verify builds them.
	Folders *Folders
	// Charts, when set, renders the Applications' Helm sources for
	// checking.
	Charts *charts.Renderer
	// SpecDir is the spec's folder, for messages about the lock file.
	SpecDir string
	// Strict makes a values key a chart does not know an error.
	Strict bool
	// Cache, when set, keeps schema verdicts between runs
	// (validate.Memo.Write).
	Cache cache.Cache
}

// app is an Application as Argo CD will see it, with where it comes from.
type app struct {
	obj    any    // an *object.Map as rendered, or plain data from kro's preview
	file   string // the rendered file, or "kro" for an Application kro creates
	origin string // the spec path that makes it
	root   bool
	client *model.Client // whose instance made it, for an Application kro creates
	// stack and stackModule make an Application kro creates.
	stack       *model.Stack
	stackModule *model.StackModule
	mod         *model.Module // the module named like a rendered Application, or nil
	spec        *argocd.App   // what Argo CD's rules read of it
}

func (a app) name() string      { return str(a.obj, "metadata", "name") }
func (a app) namespace() string { return str(a.obj, "metadata", "namespace") }

type verifier struct {
	in  Input
	log *diag.Log

	// folderFiles and folderIndex are the files rendered in each folder
	// of the output root, by name and by index in Input.Files.
	folderFiles map[string][]string
	folderIndex map[string][]int
	// pins are the spec's charts by the source that reads them.
	pins map[pinSource]*model.Chart
	// crds validates the output and what charts render (validator);
	// crdsErr is why the CRDs do not compile.
	crdsOnce sync.Once
	crds     *validate.Validator
	crdsErr  error
	// groups are the kinds the spec defines, by group (platformGroups).
	groupsOnce sync.Once
	groups     map[string]map[string]bool
	// helmFolders memoizes isHelmFolder per folder.
	helmFolders sync.Map // dir -> bool
	// duplicatesRead are the files of this repository Helm reads whose
	// keys set twice are warned of (duplicateKeys), each once.
	duplicatesRead sync.Map // file -> bool
	// envKinds are each environment's kinds with its charts' CRDs
	// (renderedKindsExist), for the folders' kinds.
	envKindsMu sync.Mutex
	envKinds   map[*model.Environment]*envKinds
	// empty are the environments where a stacks module syncs an empty
	// folder (emptyFolders).
	emptyMu sync.Mutex
	empty   map[*model.Module][]string
	// judged are the objects of each chart outcome, judged once
	// (objectsOf).
	judgedMu sync.Mutex
	judged   map[*charts.Outcome]*judgedOutcome
	// values are the JSON of the valuesObject maps of Helm sources
	// (valuesJSON).
	values sync.Map // unsafe.Pointer of a map[string]any -> encodedValues
	// unknown are the values keys charts do not have, one entry per
	// cause with the Applications that set it (noteUnknownKeys).
	unknownMu sync.Mutex
	unknown   map[unknownCause][]unknownSetter
	// schemaNotes are the chart-schema-ref notes reported, by chart and
	// note, once each.
	schemaNotes sync.Map
	// causes are the problems of one cause that affect several
	// Applications, reported once each (affects).
	causes diag.Causes
}

// isHelmFolder reports whether Argo CD renders the repository's folder dir
// with Helm (manifests.IsHelmFolder), reading each folder once. The
// output root's folders are platc's own: never a chart.
func (v *verifier) isHelmFolder(dir string) bool {
	if out := v.in.Spec.Platform.OutDir; dir == out || strings.HasPrefix(dir, out+"/") {
		return false
	}
	if is, ok := v.helmFolders.Load(dir); ok {
		return is.(bool)
	}
	is := manifests.IsHelmFolder(v.in.Repo, dir)
	v.helmFolders.Store(dir, is)
	return is
}

// manifestsFolders are the repository folders whose manifests m's
// Application syncs as-is in env: its RepoFolder unless that is a chart
// (Argo CD renders it with Helm), then its extra sources that are not
// charts.
func (v *verifier) manifestsFolders(m *model.Module, env *model.Environment) []string {
	var out []string
	if dir := m.RepoFolderIn(env); dir != "" && !(m.Kind.Info().Syncs == model.SyncsRepoFolder && v.in.Charts != nil && v.isHelmFolder(dir)) {
		out = append(out, dir)
	}
	for _, dir := range m.ExtraFoldersIn(env) {
		if !(v.in.Charts != nil && v.isHelmFolder(dir)) && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// Verify checks the output of every environment. Environments are
// independent and checked in parallel; the log sorts what they report, so
// the output does not depend on the order they finish in.
func Verify(in Input, log *diag.Log) {
	v := &verifier{in: in, log: log, folderFiles: map[string][]string{}, folderIndex: map[string][]int{}, pins: chartPins(in.Spec),
		envKinds: map[*model.Environment]*envKinds{}, empty: map[*model.Module][]string{}, judged: map[*charts.Outcome]*judgedOutcome{}, unknown: map[unknownCause][]unknownSetter{}}
	if v.in.Folders == nil {
		v.in.Folders = BuildFolders(in.Spec, in.Repo, nil)
	}
	byEnv := map[string][]int{}
	for i, f := range in.Files {
		byEnv[f.Env] = append(byEnv[f.Env], i)
		v.folderFiles[path.Dir(f.Path)] = append(v.folderFiles[path.Dir(f.Path)], path.Base(f.Path))
		v.folderIndex[path.Dir(f.Path)] = append(v.folderIndex[path.Dir(f.Path)], i)
	}
	// The schema check reads only the rendered objects: it runs beside
	// the other checks, and the schemas of the kinds it meets compile
	// meanwhile. The environments read the folders they need as
	// kustomize finishes them; the folders' own checks come after, when
	// all are built.
	object.Parallel(2, func(part int) {
		if part == 1 {
			v.schemasCheck()
			return
		}
		object.Parallel(len(in.Spec.Environments), func(i int) {
			env := in.Spec.Environments[i]
			v.environment(env, byEnv[env.Name])
		})
		v.noteEmptyFolders()
		v.noteUnknownKeys()
		v.causes.Report(v.log)
		v.folders()
		v.secrets()
	})
	v.limits()
}

func (v *verifier) reportf(id diag.ID, specPath, format string, args ...any) {
	v.log.Reportf(id, v.in.Spec.PosOf(specPath), specPath, format, args...)
}

// affects records a problem whose cause is at specPath, the place to
// change, and that affects Application a (its message holds
// diag.Affected where the Applications go): problems of one message at
// one place are reported once (diag.Causes), naming every Application.
func (v *verifier) affects(id diag.ID, specPath string, a app, env *model.Environment, format string, args ...any) {
	v.causes.Reportf(id, v.in.Spec.PosOf(specPath), specPath, diag.Item{What: "Application", Name: a.name(), Where: where(a, env)}, format, args...)
}

func (v *verifier) environment(env *model.Environment, files []int) {
	spec := v.in.Spec
	argo := v.argo(env, files)
	kroApps := v.kroApps(env)
	// Counted first: apps is the largest of verify's tables, and one that
	// grows by appending holds it twice over.
	n := len(kroApps)
	for _, fi := range files {
		if f := v.in.Files[fi]; !f.Values {
			for _, obj := range f.Objects {
				if obj.Get("kind") == "Application" {
					n++
				}
			}
		}
	}
	apps := make([]app, 0, n)
	for _, fi := range files {
		f := v.in.Files[fi]
		if f.Values {
			continue
		}
		file := path.Join(spec.Platform.OutDir, f.Path)
		root := strings.HasPrefix(f.Path, render.RootAppsDir+"/")
		for _, obj := range f.Objects {
			if obj.Get("kind") != "Application" {
				continue
			}
			a := app{obj: obj, file: file, root: root}
			a.mod = spec.Module(a.name())
			if a.mod != nil && !a.root {
				a.origin = a.mod.Path
			} else {
				a.origin = env.Path
			}
			apps = append(apps, a)
		}
	}
	apps = append(apps, kroApps...)
	specs := make([]argocd.App, len(apps))
	for i := range apps {
		specs[i] = argocd.AppFromObject(apps[i].obj)
		apps[i].spec = &specs[i]
	}

	v.names(env, apps)
	// What each Application syncs, where platc knows it: its kinds are
	// checked against its project, and no two may sync one object.
	synced := make([][]syncedObject, len(apps))
	for i, a := range apps {
		synced[i] = v.syncedObjects(env, a)
		v.permitted(env, a, argo, synced[i])
		v.valueFiles(a)
		if a.root || object.Lookup(a.obj, "spec", "source") != nil {
			v.include(a)
		}
		if env.Pinned {
			v.pinnedSources(env, a)
		}
	}
	v.emptyFolders(env, apps, files)
	v.sharedObjects(env, apps, synced)
	v.charts(env, apps, argo)
	if env.Pinned {
		for _, p := range env.Projects {
			v.wildcards(p)
		}
	}
}

// emptyFolders records a stacks module's Application whose folder holds
// no instance in env: no client has one of its stacks there, so Argo CD
// syncs nothing (the folder's files are there, empty, for the path to
// exist). It is not wrong, but rarely meant: noteEmptyFolders says so,
// once per module.
func (v *verifier) emptyFolders(env *model.Environment, apps []app, files []int) {
	objects := map[string]int{} // rendered objects by folder
	for _, fi := range files {
		f := v.in.Files[fi]
		objects[path.Dir(f.Path)] += len(f.Objects)
	}
	out := v.in.Spec.Platform.OutDir + "/"
	for _, a := range apps {
		if a.root || a.mod == nil || a.mod.Kind.Info().Syncs != model.SyncsInstances {
			continue
		}
		dir := strings.TrimPrefix(str(a.obj, "spec", "source", "path"), out)
		if objects[dir] == 0 {
			v.emptyMu.Lock()
			v.empty[a.mod] = append(v.empty[a.mod], env.Name)
			v.emptyMu.Unlock()
		}
	}
}

// noteEmptyFolders notes each stacks module that syncs an empty folder in
// some environments, naming them.
func (v *verifier) noteEmptyFolders() {
	for m, envs := range v.empty {
		slices.Sort(envs)
		where := "environment " + envs[0]
		if len(envs) > 1 {
			where = fmt.Sprintf("%d environments (%s)", len(envs), diag.List(envs))
		}
		v.log.Reportf(diag.NoInstances, v.in.Spec.PosOf(m.Path), m.Path, "no client has an instance of %s in %s: its Application syncs an empty folder there; give a client the stack, or disable the module there", diag.List(m.Stacks), where)
	}
}

// pinnedSources is release coherence: in a pinned environment every source
// in this repository reads the environment's tag, and no Git source follows
// a branch or HEAD (a chart's version is a pin already).
func (v *verifier) pinnedSources(env *model.Environment, a app) {
	for _, src := range sources(object.Lookup(a.obj, "spec")) {
		repo, rev := str(src, "repoURL"), str(src, "targetRevision")
		if object.Lookup(src, "chart") != nil || object.Lookup(src, "path") == "." || strings.HasPrefix(repo, "oci://") || rgd.HasPlaceholder(rev) {
			continue // a chart: its version is checked as a pin
		}
		fixed := fixedRevision().MatchString(rev)
		switch {
		case repo == v.in.Spec.Platform.RepoURL && rev != env.Revision:
			v.reportf(diag.Pinned, a.origin, "Application %q (%s) reads this repository at %q, but pinned environment %s is at %q: every source in this repository must name the environment's tag", a.name(), where(a, env), rev, env.Name, env.Revision)
		case !fixed && a.client != nil && object.Lookup(src, "ref") == argocd.ValuesRef:
			v.affects(diag.Pinned, a.client.Values.FieldPath("revision"), a, env, "pinned environment %s reads client %s's values at %q of %s, which affects %s: a pinned environment reads fixed releases; set values.revision to a tag", env.Name, a.client.Name, rev, repo, diag.Affected)
		case !fixed:
			v.reportf(diag.Pinned, a.origin, "Application %q (%s) follows %q of %s: a pinned environment reads fixed releases; pin a tag", a.name(), where(a, env), rev, repo)
		}
	}
}

// fixedRevision matches a revision of another repository (a client's
// values, a module's Git source) that names a release: a semantic version
// tag, with or without the leading v (repositories differ, and platc does
// not own their tags, unlike model.IsReleaseTag for its own). A branch or
// HEAD moves, and is not fixed.
var fixedRevision = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$`) })

// kroApps are the Applications kro will create for the instances in env,
// evaluated offline: what only the cluster knows is a placeholder.
func (v *verifier) kroApps(env *model.Environment) []app {
	if v.in.Stacks == nil {
		return nil
	}
	var out []app
	for _, inst := range v.in.Stacks.Instances {
		if inst.Env != env {
			continue
		}
		p, err := v.in.Stacks.PreviewInstance(inst.Stack.Model.Name, inst.Client.Name, env.Name)
		if err != nil {
			// kro would fail the same way in the cluster.
			where := inst.Client.Node.FieldPath("stacks")
			if cs := inst.Client.Stack(inst.Stack.Model.Name); cs != nil {
				where = cs.Path
			}
			v.reportf(diag.StackEval, where, "the %s instance for %s in %s does not evaluate: %v: fix the stack's expression or the instance's spec", inst.Stack.Model.Name, inst.Client.Name, env.Name, err)
			continue
		}
		for _, r := range p.Resources {
			if r.Object == nil || r.Kind != "Application" {
				continue
			}
			m, origin := stackModule(inst.Stack.Model, r.ID)
			out = append(out, app{obj: r.Object, file: "kro", origin: origin, client: inst.Client, stack: inst.Stack.Model, stackModule: m})
		}
	}
	return out
}

// stackModule is the module of st whose resource has id, or nil, and the
// spec path that makes the resource: the module's, else the stack's.
func stackModule(st *model.Stack, id string) (*model.StackModule, string) {
	for _, m := range st.Modules {
		if m.ID == id {
			return m, m.Path
		}
	}
	return nil, st.Path
}

// names checks Application names: valid resource names, unique in their
// namespace, and short enough for a label where the platform tracks
// resources by label (a label value is cut at 63 characters).
func (v *verifier) names(env *model.Environment, apps []app) {
	seen := make(map[string]int, len(apps)) // the first of each name, by its index in apps
	for i, a := range apps {
		name := a.name()
		if rgd.HasPlaceholder(name) {
			continue
		}
		if !argocd.IsValidAppName(name) {
			v.reportf(diag.ResourceName, a.origin, "Application %q (%s) is not a valid resource name: use lower-case letters, digits, '-' and '.'", name, where(a, env))
		}
		if v.in.Spec.Platform.ResourceTracking != "annotation" && len(name) > 63 {
			v.reportf(diag.ResourceName, a.origin, "Application %q (%s) has %d characters: with %s resource tracking its name is a label value, which Kubernetes cuts at 63; shorten it", name, where(a, env), len(name), v.in.Spec.Platform.ResourceTracking)
		}
		key := a.namespace() + "/" + name
		if other, dup := seen[key]; dup {
			v.reportf(diag.Duplicate, a.origin, "two Applications named %q in namespace %s of environment %s (%s, and %s): Argo CD keeps one; rename one", name, a.namespace(), env.Name, where(apps[other], env), where(a, env))
			continue
		}
		seen[key] = i
	}
}

// where names an Application's place for a message.
func where(a app, env *model.Environment) string {
	if a.file == "kro" {
		return "created by kro in " + env.Name
	}
	return a.file
}

// folders checks what every repo-path module's folder yields: a
// kustomization that does not build, a file that is not a manifest, an
// object declared twice; and the kinds of its objects in each environment
// that delivers it (kindProblem, with the CRDs of the environment's
// charts where they are rendered: envKinds).
func (v *verifier) folders() {
	kinds := map[*model.Environment]*envKinds{}
	for _, m := range v.in.Spec.Modules {
		// The environments that deliver m, by the folder each syncs:
		// the module's, or an environment's own.
		in := map[string][]*model.Environment{}
		own := v.manifestsFolders(m, nil)
		for _, env := range v.in.Spec.Environments {
			if s, ok := env.Settings[m.Name]; ok && !s.Enabled {
				continue
			}
			envDirs := own
			if env.SetsSources() {
				envDirs = v.manifestsFolders(m, env)
			}
			// None: not a folder of manifests; a chart is rendered and
			// checked with the charts.
			for _, dir := range envDirs {
				in[dir] = append(in[dir], env)
			}
		}
		if len(in) == 0 {
			// Delivered nowhere: its own folders are checked all the same.
			for _, dir := range own {
				in[dir] = nil
			}
		}
		for dir, envs := range in {
			v.folder(m, dir, envs, kinds)
		}
	}
}

// folder checks what dir yields for m in the environments envs.
func (v *verifier) folder(m *model.Module, dir string, envs []*model.Environment, kinds map[*model.Environment]*envKinds) {
	b := v.in.Folders.build(dir)
	// Folders keeps the folder's problems: add to a copy.
	for _, p := range slices.Concat(b.Problems, manifests.Check(b.Objects, m.Namespace)) {
		if manifests.NeedsHelm(p) && slices.Contains(strings.Fields(v.in.Spec.Platform.KustomizeBuildOptions), "--enable-helm") {
			// Argo CD inflates the charts; platc, offline, does not.
			v.log.Reportf(diag.NotChecked, diag.Pos{File: p.File, Line: p.Line}, m.Path, "folder %s inflates Helm charts (helmCharts), as Argo CD's kustomize does with --enable-helm (platform.kustomizeBuildOptions) and platc, offline, does not: its objects are not checked", dir)
			continue
		}
		v.log.Reportf(p.ID, diag.Pos{File: p.File, Line: p.Line, Col: p.Col}, m.Path, "%s", p.Msg)
	}
	for _, o := range b.Objects {
		// One problem per object and message, with the environments it
		// holds in.
		held := map[kindVerdict][]string{}
		for _, env := range envs {
			if kinds[env] == nil {
				kinds[env] = v.envKindsOf(env)
			}
			if verdict := kinds[env].verdict(o.APIVersion, o.Kind); verdict.msg != "" {
				held[verdict] = append(held[verdict], env.Name)
			}
		}
		for _, verdict := range slices.SortedFunc(maps.Keys(held), func(a, b kindVerdict) int { return strings.Compare(a.msg, b.msg) }) {
			v.log.Reportf(verdict.id, diag.Pos{File: o.File, Line: o.Line}, m.Path, "%s %q %s be synced %s: %s", o.Kind, o.Name, verdict.can(), inEnvironments(held[verdict]), verdict.msg)
		}
	}
}

// sources are the sources of an Application's spec, single or multiple.
func sources(spec any) []any {
	l, _ := object.Lookup(spec, "sources").([]any)
	return slices.DeleteFunc(slices.Concat([]any{object.Lookup(spec, "source")}, l), func(x any) bool { return !isMap(x) })
}

func isMap(v any) bool {
	switch v.(type) {
	case *object.Map, map[string]any:
		return true
	}
	return false
}

// include checks that a directory source's include matches exactly the
// files platc renders in its folder (Argo CD does not recurse: only the
// folder's own files count). A root Application that misses apps.yaml
// would sync nothing; one that matches more would sync it twice.
func (v *verifier) include(a app) {
	dir, include, ok := v.renderedFolder(a)
	if !ok {
		return // a chart, or a folder of sources (the manifests checks)
	}
	switch inFolder := v.folderFiles[dir]; {
	case len(inFolder) == 0:
		v.reportf(diag.SyncsNothing, a.origin, "Application %q (%s) syncs %s, where platc renders no file: Argo CD would fail to find the path", a.name(), a.file, str(a.obj, "spec", "source", "path"))
	case include != "" && !slices.ContainsFunc(inFolder, argocd.IncludeMatcher(include)):
		v.reportf(diag.SyncsNothing, a.origin, "the include %q of Application %q (%s) matches none of %s in %s: it would sync nothing", include, a.name(), a.file, strings.Join(inFolder, ", "), str(a.obj, "spec", "source", "path"))
	}
}

// valueFiles checks that every $values file of an Application exists, where
// the values repository is this one, unless the source ignores missing
// files.
func (v *verifier) valueFiles(a app) {
	srcs := sources(object.Lookup(a.obj, "spec"))
	refs := map[string]any{}
	for _, s := range srcs {
		if ref := str(s, "ref"); ref != "" {
			refs[ref] = s
		}
	}
	for _, s := range srcs {
		helm := object.Lookup(s, "helm")
		if ignore, _ := object.Lookup(helm, "ignoreMissingValueFiles").(bool); ignore {
			continue
		}
		for _, f := range strings_(object.Lookup(helm, "valueFiles")) {
			ref, rest, ok := strings.Cut(strings.TrimPrefix(f, "$"), "/")
			if !strings.HasPrefix(f, "$") || !ok {
				continue
			}
			r := refs[ref]
			if r == nil {
				v.reportf(diag.ValueFile, a.origin, "value file %s of Application %q names ref %q, which no source of it has", f, a.name(), ref)
				continue
			}
			if repo := str(r, "repoURL"); repo != v.in.Spec.Platform.RepoURL || rgd.HasPlaceholder(rest) {
				continue // not in reach
			}
			if _, err := fs.Stat(v.in.Repo, rest); err != nil {
				v.reportf(diag.ValueFile, a.origin, "value file %s of Application %q does not exist in this repository: create %s, or set ignoreMissingValueFiles", f, a.name(), rest)
			}
		}
	}
}

// wildcards is the lint that a pinned environment's projects name what they
// permit: a * lets any repository, cluster or kind in.
func (v *verifier) wildcards(p *model.Project) {
	if _, ok := p.Allow[model.LintWildcard]; ok {
		return
	}
	var found []string
	for _, r := range p.SourceRepos {
		if strings.Contains(r, "*") {
			found = append(found, fmt.Sprintf("source repository %q", r))
		}
	}
	for _, d := range p.Destinations {
		for _, x := range []struct{ what, val string }{{"server", d.Server}, {"name", d.Name}, {"namespace", d.Namespace}} {
			if strings.Contains(x.val, "*") {
				found = append(found, fmt.Sprintf("destination %s %q", x.what, x.val))
			}
		}
	}
	for _, gk := range p.ClusterResourceWhitelist {
		if strings.Contains(gk.Group, "*") || strings.Contains(gk.Kind, "*") {
			found = append(found, fmt.Sprintf("cluster resource %q/%q", gk.Group, gk.Kind))
		}
	}
	if len(found) > 0 {
		v.reportf(diag.Wildcard, p.Path, "a pinned environment's project permits by wildcard: %s; name what it permits, or add allow: wildcard: \"<reason>\" to the project", strings.Join(found, ", "))
	}
}

// str is the string at keys below v, or "".
func str(v any, keys ...string) string {
	s, _ := object.Lookup(v, keys...).(string)
	return s
}

func strings_(v any) []string {
	var out []string
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
