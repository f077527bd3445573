package importer

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/object"
)

// Options say what the objects do not.
type Options struct {
	// Name of the platform; default "imported".
	Name string
	// RepoURL of the repository being imported; default the Git
	// repository most Applications read a folder of.
	RepoURL string
	// KustomizeBuildOptions are the platform's Argo CD's.
	KustomizeBuildOptions string
	// Roots are the folders the objects were read from (Read's): an
	// Application that syncs one of its environment's is an app-of-apps
	// that platc's root Application replaces.
	Roots []Root
	// Refused are Applications, by name, left out with a reason: those
	// whose module, written, has a problem of its own (ModuleProblems).
	Refused map[string]string
	// Clusters are the cluster Secrets of each environment's Argo CD, by
	// environment, which ApplicationSets' clusters generators read; nil
	// where they were not given.
	Clusters map[string][]Cluster
}

// AppOfApps is an Application of the repository that creates imported
// Applications: it syncs a folder the import read. platc's root
// Application of its environment takes them over, so it is not a module;
// a switch to platc deletes it, which must not cascade.
type AppOfApps struct {
	Env, Name string
	Where     string // file:line
	Folder    string
	// Cascades: it has the resources finalizer, so deleting it as it is
	// deletes the Applications it created, and with their own
	// finalizers what they deployed.
	Cascades bool
	// Children are the Applications it creates, by name, and the
	// ApplicationSets expanded ("ApplicationSet name"), or where it
	// creates neither, the AppProjects it creates ("AppProject name").
	Children []string
	// Depth is how many app-of-apps create it: the outermost goes first.
	Depth int
	// Set: it is an ApplicationSet, which generates its Children.
	Set bool
	// Manifests are the other objects its folder holds ("Kind name"),
	// which platc's root does not deliver.
	Manifests []string
}

// Spec is the spec Build writes, and what it could not say.
type Spec struct {
	// Files are the spec's .cue files, by name in the spec folder.
	Files map[string][]byte
	// Imported are the objects the spec renders, to compare with what it
	// renders (Compare).
	Imported []*Object
	// NotImported are objects the spec does not render, and why.
	NotImported []Skip
	// Failed, when set, says why the spec renders nothing: Compare
	// reports every object imported as not imported, for that reason.
	Failed string
	// RepoURL and ArgoCDNamespace are the platform's, as Build chose them.
	RepoURL, ArgoCDNamespace string
	// AppsOfApps are the Applications platc's roots replace, outermost
	// first.
	AppsOfApps []AppOfApps
}

// app is one Application as a module of one environment.
type app struct {
	fields  *object.Map // the module's fields, in the spec's order
	project string
	dest    *object.Map // {server} or {name}
	rev     string      // targetRevision of its folder, "" for a chart
	ownRepo bool        // its folder is in the imported repository
	chart   *chartPin   // its chart, or nil
	// extraCharts are the charts of its further sources (extraSources),
	// nil for a folder, named when the charts are pinned.
	extraCharts []*chartPin
}

type chartPin struct{ repoURL, chart, version string }

// settingFields are the module fields an environment's module settings
// can set in its place (#ModuleSettings).
var settingFields = []string{"values", "createNamespace", "syncOptions", "cascadeDelete", "syncPolicy", "ignoreDifferences", "labels", "annotations", "helm", "extraSources"}

// Build makes a spec that renders the objects: one environment per name
// in envs (objects name theirs), one module per Application name, its
// differences between environments as the environments' settings, and
// each environment's AppProjects. fsys is the repository: a folder an
// Application syncs from it is a path module of this repository only
// where the folder is there.
func Build(fsys fs.FS, objs []*Object, envs []string, opts Options) *Spec {
	if opts.Name == "" {
		opts.Name = "imported"
	}
	b := &builder{s: &Spec{Files: map[string][]byte{}}, fsys: fsys, envs: envs, opts: opts,
		apps: map[string]map[string]*app{}, projects: map[string]map[string]*Object{},
		attached: map[*Object]bool{}, ambiguous: map[string][]string{}, builds: map[string]folderBuild{}}
	for _, e := range envs {
		b.apps[e], b.projects[e] = map[string]*app{}, map[string]*Object{}
	}
	// The other objects of the folders read matter only to the
	// app-of-apps that deliver them.
	objs = slices.DeleteFunc(slices.Clone(objs), func(o *Object) bool {
		if o.Manifest {
			b.manifests = append(b.manifests, o)
		}
		return o.Manifest
	})
	b.platform(objs)
	objs = b.expandSets(objs)
	objs, named := b.attachProjects(objs)
	b.sort(objs, named)
	b.dropUnnamed()
	b.orderAppsOfApps()
	b.findDefaults()
	b.pinCharts()
	b.write(b.modules())
	return b.s
}

// builder is Build's state, step by step.
type builder struct {
	s    *Spec
	fsys fs.FS
	envs []string
	opts Options
	// home is the repository the objects live in.
	home string
	// manifests are the other objects of the folders read.
	manifests []*Object
	// sets are the ApplicationSets expanded, which platc's root
	// replaces: an Application that syncs their folder creates them.
	sets []*Object
	// attached are the AppProjects read elsewhere that an environment
	// got for an Application that names it (attachProjects).
	attached map[*Object]bool
	// ambiguous are the AppProjects, by "environment/name", that an
	// Application names and that are found elsewhere in several
	// versions, where each is: which Argo CD runs, import cannot tell.
	ambiguous map[string][]string
	// Each environment's Applications and AppProjects, by name.
	apps     map[string]map[string]*app
	projects map[string]map[string]*Object
	defaults map[string]envDefaults
	// charts are the platform's pins by name, chartName each pin's
	// name, envPins each environment's own versions.
	charts    map[string]*chartPin
	chartName map[chartPin]string
	envPins   map[string]*object.Map
	// builds are the kustomize builds of folders, by folder (built).
	builds map[string]folderBuild
}

// folderBuild is what a folder's kustomization yields: kustomization
// says whether the folder holds one, ok whether it builds offline.
type folderBuild struct {
	objs              []manifests.Kustomized
	kustomization, ok bool
}

// built builds the kustomization of dir once, for appOfApps and
// dropUnnamed alike.
func (b *builder) built(dir string) folderBuild {
	if f, seen := b.builds[dir]; seen {
		return f
	}
	var f folderBuild
	if f.kustomization = isKustomization(b.fsys, dir); f.kustomization {
		var problem *manifests.Problem
		f.objs, problem = manifests.Kustomize(b.fsys, dir)
		f.ok = problem == nil
	}
	b.builds[dir] = f
	return f
}

// envDefaults are what most of an environment's Applications say.
type envDefaults struct {
	revision, project string
	dest              *object.Map
}

// platform chooses the platform's repository and Argo CD namespace, and
// the repository the objects live in.
func (b *builder) platform(objs []*Object) {
	s, fsys := b.s, b.fsys
	s.RepoURL = b.opts.RepoURL
	if s.RepoURL == "" {
		// The repository most Applications sync a folder of that is
		// here.
		s.RepoURL = mostCommonOf(objs, func(o *Object) string {
			if o.Kind == "ApplicationSet" {
				return gitGeneratorHere(fsys, o)
			}
			if o.Kind != "Application" {
				return ""
			}
			src, _ := object.Lookup(o.Body, "spec", "source").(map[string]any)
			if p := path.Clean(str(src["path"])); str(src["path"]) != "" && fs.ValidPath(p) && p != "." {
				if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
					return str(src["repoURL"])
				}
			}
			return ""
		})
	}
	s.RepoURL = cmp.Or(s.RepoURL, "https://git.example.com/platform.git")
	// The repository as its Applications spell it: the origin remote
	// may end in .git, or be an SSH URL, where they name it otherwise.
	// Written as they write it, the render is theirs, and their folders
	// are this repository's.
	key := repoKey(s.RepoURL)
	s.RepoURL = cmp.Or(mostCommonOf(objs, func(o *Object) string {
		for _, u := range gitURLs(o) {
			if repoKey(u) == key {
				return u
			}
		}
		return ""
	}), s.RepoURL)
	s.ArgoCDNamespace = cmp.Or(mostCommonOf(objs, func(o *Object) string { return cmp.Or(o.Namespace, "argocd") }), "argocd")

	// The repository the objects live in: the platform's where its
	// Applications read it, else the one most of their folders are of
	// (the platform may be a new repository).
	b.home = sameRepo(s.RepoURL)
	gitRepo := func(o *Object) string {
		src, _ := object.Lookup(o.Body, "spec", "source").(map[string]any)
		if o.Kind == "Application" && src != nil && str(src["chart"]) == "" {
			return sameRepo(str(src["repoURL"]))
		}
		return ""
	}
	if !slices.ContainsFunc(objs, func(o *Object) bool { return gitRepo(o) == b.home }) {
		b.home = cmp.Or(mostCommonOf(objs, gitRepo), b.home)
	}
}

// expandSets replaces each ApplicationSet with the Applications it
// generates, where their generators' inputs are in the repository.
func (b *builder) expandSets(objs []*Object) []*Object {
	s := b.s
	var expanded []*Object
	for _, o := range objs {
		if o.Kind != "ApplicationSet" {
			expanded = append(expanded, o)
			continue
		}
		if o.Env == "" {
			continue
		}
		apps, reason := expandSet(b.fsys, o, b.home, b.opts.Clusters[o.Env])
		if reason != "" {
			s.skip(o, "an ApplicationSet that is not expanded offline: "+reason+"; import the Applications it makes (argocd appset generate) instead")
			continue
		}
		set := AppOfApps{Env: o.Env, Name: o.Name, Where: o.Where(), Folder: o.Root, Set: true}
		for _, a := range apps {
			set.Children = append(set.Children, a.Name)
		}
		s.AppsOfApps = append(s.AppsOfApps, set)
		s.skip(o, fmt.Sprintf("an ApplicationSet, expanded offline into %s, imported: platc's root Application of environment %s delivers them instead (see how to switch, below)", diag.Plural(len(apps), "Application", "Applications"), o.Env))
		expanded = append(expanded, apps...)
		b.sets = append(b.sets, o)
	}
	return expanded
}

// attachProjects gives each environment the AppProjects its
// Applications name that were read for no environment (elsewhere in the
// repository), and drops the others; named are the environments'
// AppProjects, by "environment/name".
func (b *builder) attachProjects(objs []*Object) ([]*Object, map[string]bool) {
	var elsewhere []*Object
	named := map[string]bool{}
	for _, o := range objs {
		switch {
		case o.Env == "" && o.Kind == "AppProject":
			elsewhere = append(elsewhere, o)
		case o.Kind == "AppProject":
			named[o.Env+"/"+o.Name] = true
		}
	}
	var withProjects []*Object
	for _, o := range objs {
		if o.Env == "" {
			continue
		}
		withProjects = append(withProjects, o)
		if o.Kind != "Application" {
			continue
		}
		proj := cmp.Or(str(object.Lookup(o.Body, "spec", "project")), argocd.DefaultProjectName)
		if proj == argocd.DefaultProjectName || named[o.Env+"/"+proj] || b.ambiguous[o.Env+"/"+proj] != nil {
			continue
		}
		// The AppProject of that name, where the repository holds one
		// (or several that are the same).
		var found *Object
		var where []string
		for _, p := range elsewhere {
			if p.Name != proj {
				continue
			}
			if found == nil {
				found = p
			} else if !reflect.DeepEqual(Normalize(p.Body, ""), Normalize(found.Body, "")) {
				where = append(where, p.Where())
			}
		}
		if len(where) > 0 {
			b.ambiguous[o.Env+"/"+proj] = append([]string{found.Where()}, where...)
			continue
		}
		if found != nil {
			c := *found
			c.Env = o.Env
			withProjects = append(withProjects, &c)
			b.attached[&c] = true
			named[o.Env+"/"+proj] = true
		}
	}
	return withProjects, named
}

// sort files each object as an environment's module or project, or as
// not imported, and why.
func (b *builder) sort(objs []*Object, named map[string]bool) {
	s := b.s
	seen := map[string]*Object{}
	for _, o := range objs {
		key := o.Env + "/" + o.Kind + "/" + o.Name
		if first := seen[key]; first != nil {
			s.skip(o, fmt.Sprintf("another %s of this name in environment %s, at %s: an environment has one of each", o.Kind, o.Env, first.Where()))
			continue
		}
		seen[key] = o
		if ns := cmp.Or(o.Namespace, s.ArgoCDNamespace); ns != s.ArgoCDNamespace {
			s.skip(o, fmt.Sprintf("in namespace %s: the platform's Applications and AppProjects live in %s (its argocdNamespace)", ns, s.ArgoCDNamespace))
			continue
		}
		if !dnsLabel.MatchString(o.Name) {
			s.skip(o, fmt.Sprintf("name %q is not a DNS-1123 label, which platc's names are", o.Name))
			continue
		}
		switch o.Kind {
		case "Application":
			if a, ok := b.appOfApps(o, objs); ok {
				s.AppsOfApps = append(s.AppsOfApps, a)
				s.skip(o, fmt.Sprintf("an app-of-apps over %s, which this import read: platc's root Application of environment %s delivers its Applications instead (see how to switch, below)", a.Folder, o.Env))
				continue
			}
			if proj := cmp.Or(str(object.Lookup(o.Body, "spec", "project")), argocd.DefaultProjectName); proj != argocd.DefaultProjectName && !named[o.Env+"/"+proj] {
				if where := b.ambiguous[o.Env+"/"+proj]; where != nil {
					s.skip(o, fmt.Sprintf("its project %s is in the repository in %d versions that differ (%s): import the file of the one Argo CD runs with it (%s=FILE)", proj, len(where), diag.List(where), o.Env))
					continue
				}
				s.skip(o, fmt.Sprintf("its project %s is not in the repository: import the folder that holds its AppProject too", proj))
				continue
			}
			if why, ok := b.opts.Refused[o.Name]; ok {
				s.skip(o, why)
				continue
			}
			a, reason := s.application(b.fsys, o)
			if reason != "" {
				s.skip(o, reason)
				continue
			}
			b.apps[o.Env][o.Name] = a
		case "AppProject":
			if o.Name == argocd.DefaultProjectName {
				s.skip(o, "Argo CD's default project: platc leaves it as Argo CD makes it; give the Applications a project of their own")
				continue
			}
			b.projects[o.Env][o.Name] = o
			s.Imported = append(s.Imported, o)
		}
	}
}

// dropUnnamed drops the AppProjects no imported Application names that
// the spec need not write: one read elsewhere, whose folder (that another
// Application may sync) keeps it, and one that a module's folder of this
// repository delivers, as the module goes on syncing it after the switch
// (the spec writing it too would make platc's root sync it beside the
// module).
func (b *builder) dropUnnamed() {
	s := b.s
	// A folder yields what its kustomization builds, or, where it holds
	// none or it does not build offline, its own files.
	delivers := func(dir string, o *Object) bool {
		if f := b.built(dir); f.ok {
			return slices.ContainsFunc(f.objs, func(k manifests.Kustomized) bool {
				return str(k.Body["kind"]) == "AppProject" && str(object.Lookup(k.Body, "metadata", "name")) == o.Name
			})
		}
		return o.Line > 0 && path.Dir(o.File) == dir
	}
	s.Imported = slices.DeleteFunc(s.Imported, func(o *Object) bool {
		apps := b.apps[o.Env]
		if o.Kind != "AppProject" || slices.ContainsFunc(slices.Collect(maps.Values(apps)), func(a *app) bool { return a.project == o.Name }) {
			return false
		}
		if !b.attached[o] {
			names := slices.Sorted(maps.Keys(apps))
			i := slices.IndexFunc(names, func(name string) bool {
				dir, ok := apps[name].fields.Get("path").(string)
				return ok && apps[name].ownRepo && delivers(dir, o)
			})
			if i < 0 {
				return false
			}
			s.skip(o, fmt.Sprintf("delivered by the folder of module %s, which goes on syncing it after the switch, and no imported Application names it: platc's root does not sync it too", names[i]))
		}
		delete(b.projects[o.Env], o.Name)
		return true
	})
}

// orderAppsOfApps sorts them outermost first: one left in place would
// create again what is deleted under it.
func (b *builder) orderAppsOfApps() {
	s := b.s
	// By environment and "Kind/name": the Application that creates it.
	parent := map[[2]string]string{}
	for _, a := range s.AppsOfApps {
		if a.Set {
			continue
		}
		for _, c := range a.Children {
			if set, ok := strings.CutPrefix(c, "ApplicationSet "); ok {
				parent[[2]string{a.Env, "ApplicationSet/" + set}] = "Application/" + a.Name
			} else if c != a.Name { // one that syncs its own file manages itself
				parent[[2]string{a.Env, "Application/" + c}] = "Application/" + a.Name
			}
		}
		// The ApplicationSets of its folder are its too.
		for _, set := range s.AppsOfApps {
			if set.Set && set.Env == a.Env && set.Folder == a.Folder {
				parent[[2]string{a.Env, "ApplicationSet/" + set.Name}] = "Application/" + a.Name
			}
		}
	}
	// An ApplicationSet's Applications are its, not the folder's
	// app-of-apps': it creates them.
	for _, a := range s.AppsOfApps {
		if a.Set {
			for _, c := range a.Children {
				parent[[2]string{a.Env, "Application/" + c}] = "ApplicationSet/" + a.Name
			}
		}
	}
	for i := range s.AppsOfApps {
		a := &s.AppsOfApps[i]
		n := "Application/" + a.Name
		if a.Set {
			n = "ApplicationSet/" + a.Name
		}
		for ; parent[[2]string{a.Env, n}] != "" && a.Depth < len(s.AppsOfApps); a.Depth++ {
			n = parent[[2]string{a.Env, n}]
		}
	}
	slices.SortFunc(s.AppsOfApps, func(a, b AppOfApps) int {
		return cmp.Or(cmp.Compare(a.Env, b.Env), cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.Name, b.Name))
	})
}

// findDefaults sets each environment's defaults: what most of its
// Applications say.
func (b *builder) findDefaults() {
	envs, apps := b.envs, b.apps
	b.defaults = map[string]envDefaults{}
	for _, e := range envs {
		list := slices.Collect(maps.Values(apps[e]))
		d := envDefaults{
			revision: cmp.Or(mostCommonOf(list, func(a *app) string {
				if a.ownRepo {
					return a.rev
				}
				return ""
			}), "HEAD"),
			project: cmp.Or(mostCommonOf(list, func(a *app) string { return a.project }), argocd.DefaultProjectName),
		}
		destKey := mostCommonOf(list, func(a *app) string { return destKeyOf(a.dest) })
		if i := slices.IndexFunc(list, func(a *app) bool { return destKey != "" && destKeyOf(a.dest) == destKey }); i >= 0 {
			d.dest = list[i].dest
		}
		b.defaults[e] = d
	}
}

// pinCharts names the charts and pins them. A chart (its repository and
// name) is pinned at the version of the first environment that runs it,
// and another environment's version is that environment's own pin
// (environments.X.charts); where one environment runs it at two
// versions, each version is a chart of its own, named with it.
func (b *builder) pinCharts() {
	envs, apps := b.envs, b.apps
	type chartKey struct{ repoURL, chart string }
	versions := map[chartKey]map[string][]string{} // environment -> versions
	var keys []chartKey
	for _, e := range envs {
		for _, n := range slices.Sorted(maps.Keys(apps[e])) {
			for _, c := range append([]*chartPin{apps[e][n].chart}, apps[e][n].extraCharts...) {
				if c == nil {
					continue
				}
				k := chartKey{c.repoURL, c.chart}
				if versions[k] == nil {
					versions[k] = map[string][]string{}
					keys = append(keys, k)
				}
				if !slices.Contains(versions[k][e], c.version) {
					versions[k][e] = append(versions[k][e], c.version)
				}
			}
		}
	}
	slices.SortFunc(keys, func(a, b chartKey) int {
		return cmp.Or(cmp.Compare(a.chart, b.chart), cmp.Compare(a.repoURL, b.repoURL))
	})
	b.charts = map[string]*chartPin{}
	b.chartName = map[chartPin]string{}
	b.envPins = map[string]*object.Map{} // environment -> chart -> {version}
	for _, e := range envs {
		b.envPins[e] = object.NewMap()
	}
	free := func(name string) string {
		base := name
		for i := 2; b.charts[name] != nil; i++ {
			name = chartLabel(fmt.Sprintf("%s-%d", base, i))
		}
		return name
	}
	for _, k := range keys {
		split := false
		var first string
		for _, e := range envs {
			vs := versions[k][e]
			split = split || len(vs) > 1
			if first == "" && len(vs) > 0 {
				first = vs[0]
			}
		}
		if split {
			all := slices.Concat(slices.Collect(maps.Values(versions[k]))...)
			slices.Sort(all)
			for _, v := range slices.Compact(all) {
				name := free(chartLabel(k.chart + "-" + v))
				b.charts[name] = &chartPin{k.repoURL, k.chart, v}
				b.chartName[chartPin{k.repoURL, k.chart, v}] = name
			}
			continue
		}
		name := free(chartLabel(k.chart))
		b.charts[name] = &chartPin{k.repoURL, k.chart, first}
		for _, e := range envs {
			for _, v := range versions[k][e] {
				b.chartName[chartPin{k.repoURL, k.chart, v}] = name
				if v != first {
					b.envPins[e].Set(name, object.NewMap().Set("version", v))
				}
			}
		}
	}
}

// modules makes each Application name a module, from the first
// environment that has it, and what the others say otherwise their
// settings.
func (b *builder) modules() (modules *object.Map, settings map[string]*object.Map) {
	envs, apps := b.envs, b.apps
	modules = object.NewMap()
	settings = map[string]*object.Map{} // environment -> module -> settings
	for _, e := range envs {
		settings[e] = object.NewMap()
	}
	names := map[string]bool{}
	for _, e := range envs {
		for n := range apps[e] {
			names[n] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		var base *app
		var in []string
		for _, e := range envs {
			if a := apps[e][name]; a != nil {
				if base == nil {
					base = a
				}
				in = append(in, e)
			}
		}
		m := base.fields
		if base.chart != nil {
			m.Set("chart", b.chartName[*base.chart])
		}
		// The further charts by name, in every environment, before the
		// environments' sources are compared; a chart's folder of this
		// repository at another revision than its environment's (which
		// manifests are read at), a further source at its own.
		for _, e := range in {
			a := apps[e][name]
			if dir, ok := a.fields.Get("manifests").(string); ok && a.chart != nil && a.rev != b.defaults[e].revision && a.fields.Get("helm") == nil {
				extra := object.NewMap().Set("path", dir).Set("revision", a.rev)
				a.fields.Set("extraSources", append([]any{extra}, anyList(a.fields.Get("extraSources"))...))
				a.extraCharts = append([]*chartPin{nil}, a.extraCharts...)
				a.fields.Set("manifests", nil)
			}
			for i, x := range anyList(a.fields.Get("extraSources")) {
				if c := a.extraCharts[i]; c != nil {
					x.(*object.Map).Set("chart", b.chartName[*c])
				}
			}
		}
		// A field that differs between environments goes to each
		// environment's settings where the settings can say it.
		moved := map[string]bool{}
		for _, f := range settingFields {
			for _, e := range in[1:] {
				if !equalValues(apps[e][name].fields.Get(f), m.Get(f)) {
					moved[f] = true
				}
			}
		}
		// Helm options are set field by field (Module.HelmIn): the module
		// keeps those its environments share.
		var helmMoved []string
		if moved["helm"] {
			moved["helm"] = false
			baseHelm, _ := object.Plain(m.Get("helm")).(map[string]any)
			for _, e := range in {
				h, _ := object.Plain(apps[e][name].fields.Get("helm")).(map[string]any)
				for _, k := range slices.AppendSeq(slices.Collect(maps.Keys(h)), maps.Keys(baseHelm)) {
					if !slices.Contains(helmMoved, k) && !equalValues(h[k], baseHelm[k]) {
						helmMoved = append(helmMoved, k)
					}
				}
			}
		}
		for _, e := range envs {
			a := apps[e][name]
			set := object.NewMap()
			if a == nil {
				set.Set("enabled", false)
				settings[e].Set(name, set)
				continue
			}
			for _, f := range settingFields {
				if h, _ := a.fields.Get(f).(*object.Map); f == "helm" && len(helmMoved) > 0 {
					if own := onlyKeys(h, helmMoved, true); own.Len() > 0 {
						set.Set("helm", own)
					}
				}
				if v := a.fields.Get(f); moved[f] && v != nil {
					set.Set(f, v)
				}
			}
			set.SetIf(a.project != b.defaults[e].project, "project", a.project)
			if p := a.fields.Get("path"); p != nil && base.fields.Get("path") != nil && p != base.fields.Get("path") {
				set.Set("path", p)
			}
			if a.chart == nil && base.chart == nil && a.fields.Get("path") != nil && !equalValues(a.fields.Get("repoURL"), base.fields.Get("repoURL")) {
				// Another repository here: this one written out where
				// the module's own is another.
				set.Set("repoURL", cmp.Or(str(a.fields.Get("repoURL")), b.s.RepoURL))
			}
			if ns := a.fields.Get("namespace"); ns != nil && base.fields.Get("namespace") != nil && ns != base.fields.Get("namespace") {
				set.Set("namespace", ns)
			}
			if a.rev != "" && a.chart == nil {
				def := "HEAD"
				if a.ownRepo {
					def = b.defaults[e].revision
				}
				if baseRev := base.fields.Get("revision"); baseRev != nil {
					def = baseRev.(string)
				}
				set.SetIf(a.rev != def, "revision", a.rev)
			}
			set.SetIf(destKeyOf(a.dest) != destKeyOf(b.defaults[e].dest), "destination", a.dest)
			if set.Len() > 0 {
				settings[e].Set(name, set)
			}
		}
		if h, _ := m.Get("helm").(*object.Map); len(helmMoved) > 0 && h != nil {
			if shared := onlyKeys(h, helmMoved, false); shared.Len() > 0 {
				m.Set("helm", shared)
			} else {
				moved["helm"] = true
			}
		}
		modules.Set(name, orderModule(m, moved))
	}
	return modules, settings
}

// onlyKeys is m with the keys among keys (in), or the others (!in).
func onlyKeys(m *object.Map, keys []string, in bool) *object.Map {
	out := object.NewMap()
	if m != nil {
		m.Each(func(k string, v any) {
			if slices.Contains(keys, k) == in {
				out.Set(k, v)
			}
		})
	}
	return out
}

// write writes the spec's files: the platform and its charts, the
// modules, the environments.
func (b *builder) write(modules *object.Map, settings map[string]*object.Map) {
	s, opts := b.s, b.opts
	// The platform, its charts and environments.
	platform := object.NewMap().
		Set("name", chartLabel(opts.Name)).
		Set("repoURL", s.RepoURL).
		Set("manifestGeneratePaths", false)
	platform.SetIf(s.ArgoCDNamespace != "argocd", "argocdNamespace", s.ArgoCDNamespace)
	platform.SetIf(opts.KustomizeBuildOptions != "", "kustomizeBuildOptions", opts.KustomizeBuildOptions)
	if len(b.envs) > 0 {
		platform.Set("defaultEnvironment", b.envs[0])
	}
	chartsMap := object.NewMap()
	for _, n := range slices.Sorted(maps.Keys(b.charts)) {
		c := b.charts[n]
		chartsMap.Set(n, object.NewMap().Set("repoURL", c.repoURL).Set("chart", c.chart).Set("version", c.version))
	}
	environments := object.NewMap()
	for _, e := range b.envs {
		d := b.defaults[e]
		env := object.NewMap().Set("revision", d.revision)
		env.SetIf(d.dest != nil && destKeyOf(d.dest) != "server="+argocd.InClusterServer, "destination", d.dest)
		env.SetIf(d.project != argocd.DefaultProjectName, "project", d.project)
		if len(b.projects[e]) > 0 {
			pm := object.NewMap()
			for _, n := range slices.Sorted(maps.Keys(b.projects[e])) {
				pm.Set(n, projectFields(b.projects[e][n]))
			}
			env.Set("projects", pm)
		}
		env.SetIf(b.envPins[e].Len() > 0, "charts", b.envPins[e])
		env.SetIf(settings[e].Len() > 0, "modules", settings[e])
		environments.Set(e, env)
	}
	s.Files["platform.cue"] = writeCUE("platform", object.NewMap().Set("platform", platform).Set("charts", chartsMap))
	s.Files["modules.cue"] = writeCUE("platform", object.NewMap().Set("modules", modules))
	s.Files["environments.cue"] = writeCUE("platform", object.NewMap().Set("environments", environments))
}

func (s *Spec) skip(o *Object, reason string) {
	s.NotImported = append(s.NotImported, Skip{Env: o.Env, File: o.File, Line: o.Line, Kind: o.Kind, Name: o.Name, Reason: reason})
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// appOfApps says whether o syncs a folder of its environment that the
// import read, of the repository the objects live in (home), and what it
// creates there: Applications, the ApplicationSets of sets (expanded, so
// that platc's root delivers their Applications) or AppProjects. A
// folder that delivers AppProjects beside other objects, and no
// Application, is a module's: deleted as an app-of-apps, it would leave
// those objects to nothing. A folder inside the folders read that holds a
// kustomization is judged by what its build yields, as Argo CD syncs it.
func (b *builder) appOfApps(o *Object, objs []*Object) (AppOfApps, bool) {
	sets, held, roots, home := b.sets, b.manifests, b.opts.Roots, b.home
	src, _ := object.Lookup(o.Body, "spec", "source").(map[string]any)
	if src == nil {
		if l := anyList(object.Lookup(o.Body, "spec", "sources")); len(l) == 1 {
			src, _ = l[0].(map[string]any)
		}
	}
	if src == nil || str(src["chart"]) != "" || sameRepo(str(src["repoURL"])) != home {
		return AppOfApps{}, false
	}
	p := path.Clean(str(src["path"])) // "" is the repository's root, as "."
	// The folder is one the import read, or one inside such a folder
	// (walked with its sub-folders) that holds what the import read:
	// Argo CD syncs the files of the folder, and with recurse those of
	// its sub-folders.
	exact := slices.ContainsFunc(roots, func(r Root) bool { return r.Env == o.Env && r.Path == p })
	recurse := object.Lookup(src, "directory", "recurse") == true
	inFolder := func(c *Object) bool {
		if c.Env != o.Env || !slices.ContainsFunc(roots, func(r Root) bool { return r.Env == o.Env && r.Path == c.Root && within(p, r.Path) }) {
			return false
		}
		d := path.Dir(c.File)
		if exact && c.Root == p && c.Line == 0 {
			return true // built by kustomize, as Argo CD builds the folder
		}
		return d == p || recurse && within(d, p)
	}
	if !exact && !slices.ContainsFunc(objs, func(c *Object) bool { return c.GeneratedBy == "" && inFolder(c) }) && !slices.ContainsFunc(sets, inFolder) {
		return AppOfApps{}, false
	}
	unbuilt := false // a kustomization that does not build offline
	if !exact {
		f := b.built(p)
		// What the build yields, by kind and name: the folder's files
		// and those of its bases, not its own files alone.
		unbuilt = f.kustomization && !f.ok
		if f.ok {
			yields := map[string]bool{}
			var others []*Object
			for _, k := range f.objs {
				apiVersion, kind, name := str(k.Body["apiVersion"]), str(k.Body["kind"]), str(object.Lookup(k.Body, "metadata", "name"))
				yields[kind+" "+name] = true
				if apiVersion != "" && kind != "" && name != "" && !(strings.HasPrefix(apiVersion, "argoproj.io/") && argoKinds[kind]) {
					others = append(others, &Object{Kind: kind, Name: name, Env: o.Env})
				}
			}
			inFolder = func(c *Object) bool { return c.Env == o.Env && yields[c.Kind+" "+c.Name] }
			held = others
		}
	}
	finalizers := anyList(object.Lookup(o.Body, "metadata", "finalizers"))
	where := o.Where()
	if o.GeneratedBy != "" {
		where = "generated by ApplicationSet " + o.GeneratedBy
	}
	a := AppOfApps{Env: o.Env, Name: o.Name, Where: where, Folder: p,
		Cascades: slices.ContainsFunc(finalizers, func(f any) bool { return strings.HasPrefix(str(f), argocd.ResourcesFinalizer) })}
	var projects []string
	for _, c := range objs {
		switch {
		case c.Kind == "Application" && inFolder(c) && (exact || c.GeneratedBy == ""):
			a.Children = append(a.Children, c.Name)
		case c.Kind == "AppProject" && inFolder(c):
			projects = append(projects, "AppProject "+c.Name)
		}
	}
	for _, c := range sets {
		if inFolder(c) {
			a.Children = append(a.Children, "ApplicationSet "+c.Name)
		}
	}
	for _, m := range held {
		if inFolder(m) {
			a.Manifests = append(a.Manifests, m.Kind+" "+m.Name)
		}
	}
	slices.Sort(a.Manifests)
	slices.Sort(a.Children)
	if len(a.Children) == 0 {
		if len(a.Manifests) > 0 || unbuilt {
			// AppProjects beside other objects, or beside what a
			// kustomization builds that import cannot see (a Helm
			// chart it inflates, a remote base): a module.
			return AppOfApps{}, false
		}
		// It creates AppProjects alone: say which.
		slices.Sort(projects)
		a.Children = projects
	}
	return a, true
}

// argoKinds are the kinds of Argo CD's an app-of-apps creates.
var argoKinds = map[string]bool{"Application": true, "ApplicationSet": true, "AppProject": true}

// within reports whether the slash path p is dir or inside it; every
// path is within ".".
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// repoKey is the host and path of a Git repository's URL, however it is
// spelled: HTTPS or SSH, with or without .git, a user or a trailing
// slash. Two URLs of one key are one repository, where its clone is:
// Argo CD takes them for two (credentials are by URL), so only the
// spelling of this repository's own URL is chosen by it.
func repoKey(url string) string {
	n := argocd.NormalizeGitURL(url)
	if _, rest, ok := strings.Cut(n, "://"); ok {
		n = rest
	}
	if at := strings.Index(n, "@"); at >= 0 && at < strings.Index(n+"/", "/") {
		n = n[at+1:]
	}
	return strings.TrimSuffix(n, "/")
}

// gitGeneratorHere is the repository of an ApplicationSet's Git
// generator whose directories or files are here (the folder before the
// pattern's first wildcard), or "".
func gitGeneratorHere(fsys fs.FS, o *Object) string {
	for _, g := range anyList(object.Lookup(o.Body, "spec", "generators")) {
		git, _ := object.Lookup(g, "git").(map[string]any)
		for _, d := range append(anyList(git["directories"]), anyList(git["files"])...) {
			p := str(object.Lookup(d, "path"))
			if i := strings.IndexAny(p, "*?[{"); i >= 0 {
				p = path.Dir(p[:i] + "x")
			}
			if p = path.Clean(p); p != "." && fs.ValidPath(p) {
				if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
					return str(git["repoURL"])
				}
			}
		}
	}
	return ""
}

// gitURLs are the repositories of an Application's Git sources (not its
// charts), as written.
func gitURLs(o *Object) []string {
	if o.Kind != "Application" {
		return nil
	}
	var out []string
	srcs := anyList(object.Lookup(o.Body, "spec", "sources"))
	if src, ok := object.Lookup(o.Body, "spec", "source").(map[string]any); ok {
		srcs = append([]any{src}, srcs...)
	}
	for _, x := range srcs {
		if src, _ := x.(map[string]any); src != nil && str(src["chart"]) == "" && str(src["repoURL"]) != "" {
			out = append(out, str(src["repoURL"]))
		}
	}
	return out
}

// sameRepo is a Git repository URL as Argo CD matches repositories: no
// trailing slash or .git, lower-case.
func sameRepo(url string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git"))
}

var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// chartLabel makes a name a DNS-1123 label.
func chartLabel(s string) string {
	s = strings.Trim(notLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	return cmp.Or(s, "chart")
}

// application reads an Application as a module, or says why it cannot.
func (s *Spec) application(fsys fs.FS, o *Object) (*app, string) {
	spec, _ := o.Body["spec"].(map[string]any)
	meta, _ := o.Body["metadata"].(map[string]any)
	a := &app{fields: object.NewMap()}
	a.project = cmp.Or(str(spec["project"]), argocd.DefaultProjectName)
	f := a.fields

	if info := anyList(spec["info"]); len(info) == 1 && str(object.Lookup(info[0], "name")) == "Description" {
		f.Set("description", str(object.Lookup(info[0], "value")))
	}

	// The source: a chart of a Helm repository, or a folder of a Git
	// repository.
	var extras []*object.Map
	if len(anyList(spec["sources"])) > 0 {
		// Argo CD reads sources where it lists some (HasMultipleSources),
		// else source: an empty list is none.
		ms, reason := s.multiSource(fsys, spec["sources"])
		if reason != "" {
			return nil, reason
		}
		spec = shallowWith(spec, "source", ms.src)
		if ms.rev != "" {
			// Its values files, or its folder, are this repository's,
			// at the environment's revision.
			a.rev, a.ownRepo = ms.rev, true
		}
		if ms.manifests != "" {
			if st, err := fs.Stat(fsys, ms.manifests); err != nil || !st.IsDir() {
				return nil, fmt.Sprintf("folder %s is not in the repository, so Argo CD cannot sync it: create it, or fix the path", ms.manifests)
			}
			f.Set("manifests", ms.manifests)
		}
		extras, a.extraCharts = ms.extras, ms.extraCharts
	}
	src, _ := spec["source"].(map[string]any)
	repo, p, rev := str(src["repoURL"]), str(src["path"]), str(src["targetRevision"])
	helm, _ := src["helm"].(map[string]any)
	switch {
	case str(src["chart"]) != "":
		var why string
		if a.chart, why = chartOf(src); why != "" {
			return nil, why
		}
	case p != "" || repo != "":
		dir := path.Clean(cmp.Or(p, "."))
		own := repoKey(repo) == repoKey(s.RepoURL)
		if dir == "." && own || dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
			return nil, fmt.Sprintf("syncs the repository's root folder (path %q): platc syncs a folder inside it", p)
		}
		f.Set("path", dir)
		a.rev = cmp.Or(rev, "HEAD")
		if own {
			if st, err := fs.Stat(fsys, dir); err != nil || !st.IsDir() {
				return nil, fmt.Sprintf("folder %s is not in the repository, so Argo CD cannot sync it: create it, or fix the path (or, if this is not the repository %s, name it with -repo)", dir, repo)
			}
			a.ownRepo = true
		}
		if !a.ownRepo {
			f.Set("repoURL", repo)
			f.SetIf(a.rev != "HEAD", "revision", a.rev)
		}
		if d, ok := src["directory"].(map[string]any); ok {
			f.Set("directory", copyKeys(d, "recurse", "exclude", "include"))
		}
		if k, ok := src["kustomize"].(map[string]any); ok {
			f.Set("kustomize", copyKeys(k, "namePrefix", "nameSuffix", "images", "commonLabels", "commonAnnotations", "patches"))
		}
		if pl, ok := src["plugin"].(map[string]any); ok {
			f.Set("plugin", copyKeys(pl, "name", "env", "parameters"))
		}
	default:
		return nil, "its source names neither a chart nor a path"
	}
	f.SetIf(len(extras) > 0, "extraSources", toAny(extras))
	if helm != nil {
		values, err := helmValues(helm)
		if err != "" {
			return nil, err
		}
		f.SetIf(len(values) > 0, "values", values)
		h := copyKeys(helm, "releaseName", "skipCrds", "passCredentials", "parameters", "valueFiles", "ignoreMissingValueFiles", "valuesRepo")
		if files := anyList(helm["valueFiles"]); a.chart == nil && len(files) > 0 {
			// A chart kept in Git names its values files from its
			// folder, as Argo CD resolves them; the spec names them
			// from the repository's root.
			dir := path.Clean(cmp.Or(p, "."))
			fromRoot := make([]any, len(files))
			for i, x := range files {
				name := str(x)
				if strings.HasPrefix(name, "$") || strings.Contains(name, "://") || path.IsAbs(name) {
					return nil, fmt.Sprintf("values file %q: the spec says values files of the chart's repository, by path, not yet this", name)
				}
				fromRoot[i] = path.Join(dir, name)
			}
			h.Set("valueFiles", fromRoot)
		}
		f.SetIf(h.Len() > 0, "helm", h)
	}

	// The destination.
	dest, _ := spec["destination"].(map[string]any)
	if name := str(dest["name"]); name != "" {
		a.dest = object.NewMap().Set("name", name)
	} else {
		a.dest = object.NewMap().Set("server", cmp.Or(str(dest["server"]), argocd.InClusterServer))
	}
	ns := str(dest["namespace"])
	if ns == "" && a.chart != nil {
		return nil, "its destination has no namespace: platc's chart modules name the namespace their release goes to"
	}
	f.SetIf(ns != "", "namespace", ns)

	// The sync wave, labels and annotations, finalizers.
	ann, _ := meta["annotations"].(map[string]any)
	ann = maps.Clone(ann)
	if w, ok := ann[argocd.SyncWave]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(fmt.Sprint(w)))
		switch {
		case err != nil:
			return nil, fmt.Sprintf("sync wave %q is not a number", fmt.Sprint(w))
		case n != 0:
			f.Set("wave", n)
		}
		delete(ann, argocd.SyncWave)
	}
	f.SetIf(len(ann) > 0, "annotations", stringMap(ann))
	l, _ := meta["labels"].(map[string]any)
	f.SetIf(len(l) > 0, "labels", stringMap(l))
	f.SetIf(!slices.Contains(anyList(meta["finalizers"]), any(argocd.ResourcesFinalizer)), "cascadeDelete", false)

	// How it syncs.
	sp, _ := spec["syncPolicy"].(map[string]any)
	var options []string
	for _, x := range anyList(sp["syncOptions"]) {
		options = append(options, str(x))
	}
	create := slices.Contains(options, argocd.CreateNamespace)
	respect := slices.Contains(options, argocd.RespectIgnoreDifferences)
	options = slices.DeleteFunc(options, func(o string) bool {
		return strings.HasPrefix(o, "CreateNamespace=") || o == argocd.RespectIgnoreDifferences
	})
	f.SetIf(!create, "createNamespace", false)
	f.SetIf(len(options) > 0, "syncOptions", options)
	policy := object.NewMap()
	auto, isAuto := sp["automated"].(map[string]any)
	if _, set := sp["automated"]; set && auto == nil {
		isAuto = true // automated: {} or automated: null
	}
	if e, ok := auto["enabled"].(bool); ok && !e {
		isAuto = false
	}
	policy.Set("automated", isAuto)
	if isAuto {
		policy.Set("prune", auto["prune"] == true).Set("selfHeal", auto["selfHeal"] == true)
		policy.SetIf(auto["allowEmpty"] == true, "allowEmpty", true)
	}
	if r, ok := sp["retry"].(map[string]any); ok {
		retry := copyKeys(r, "limit", "backoff", "refresh")
		retry.SetIf(retry.Get("limit") == nil, "limit", 0)
		policy.Set("retry", retry)
	}
	f.Set("syncPolicy", policy)
	if nm, ok := sp["managedNamespaceMetadata"].(map[string]any); ok {
		f.Set("managedNamespaceMetadata", copyKeys(nm, "labels", "annotations"))
	}
	if ids := anyList(spec["ignoreDifferences"]); len(ids) > 0 {
		f.Set("ignoreDifferences", copyEach(ids, "group", "kind", "name", "namespace", "jsonPointers", "jqPathExpressions", "managedFieldsManagers"))
		f.SetIf(!respect, "respectIgnoreDifferences", false)
	}
	if n, ok := spec["revisionHistoryLimit"]; ok {
		f.Set("revisionHistoryLimit", n)
	}
	s.Imported = append(s.Imported, o)
	return a, ""
}

// chartOf is the chart a source names, at an exact version, or why it
// cannot be pinned.
func chartOf(src map[string]any) (*chartPin, string) {
	chart, repo, rev := str(src["chart"]), str(src["repoURL"]), str(src["targetRevision"])
	switch {
	case str(src["path"]) != "":
		return nil, "a source with both chart and path"
	case repo == "":
		return nil, fmt.Sprintf("chart %s names no repository", chart)
	case !exactVersion.MatchString(rev):
		return nil, fmt.Sprintf("chart %s at %q: platc pins exact chart versions (a range or a branch moves under the same spec); pin the version it runs", chart, rev)
	}
	return &chartPin{repoURL: repo, chart: chart, version: rev}, ""
}

// exactVersion is an exact chart version, as platc pins them.
var exactVersion = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// ModuleProblems are the errors of a compiled spec that Build wrote, by
// the module each is of (at modules.NAME, or at an environment's
// settings of it), the first of each, as a reason for Options.Refused;
// ok is false where an error is of no module, so that leaving modules
// out cannot mend the spec.
func ModuleProblems(problems []diag.Problem) (reasons map[string]string, ok bool) {
	reasons = map[string]string{}
	for _, p := range problems {
		if p.Severity != diag.Error {
			continue
		}
		parts := strings.Split(p.Path, ".")
		var name string
		switch {
		case len(parts) >= 2 && parts[0] == "modules":
			name = parts[1]
		case len(parts) >= 4 && parts[0] == "environments" && parts[2] == "modules":
			name = parts[3]
		default:
			return nil, false
		}
		if _, seen := reasons[name]; !seen {
			reasons[name] = fmt.Sprintf("its module, written, has a problem: %s: %s [%s]", p.Path, p.Msg, p.ID)
		}
	}
	return reasons, len(reasons) > 0
}

// multiSources is what multiSource reads of an Application's sources.
type multiSources struct {
	src       map[string]any // the module's own source
	manifests string         // a folder of this repository beside its chart
	rev       string         // the revision of this repository its files are read at
	// extras are its further sources (extraSources), charts named by
	// extraCharts (nil for a folder) until the charts are pinned.
	extras      []*object.Map
	extraCharts []*chartPin
}

// multiSource reads the sources of an Application as platc's modules
// render them: the first source the module's own (a chart, or a folder);
// this repository as ref "values" for a chart's values files; a folder
// of this repository after a chart, its manifests; the others, in their
// order, further sources.
func (s *Spec) multiSource(fsys fs.FS, v any) (ms multiSources, reason string) {
	list := anyList(v)
	if len(list) == 1 {
		ms.src, _ = list[0].(map[string]any)
		return ms, ""
	}
	list = splitRefs(list)
	var values map[string]any
	var rest []map[string]any
	for _, x := range list {
		m, _ := x.(map[string]any)
		switch {
		case m == nil:
			return ms, "a source that is not a map"
		case str(m["ref"]) == "":
			rest = append(rest, m)
		case str(m["path"]) == "" && str(m["chart"]) == "" && values == nil:
			values = m
		default:
			return ms, fmt.Sprintf("%d sources: a source of ref %s that also renders a chart or a folder, or a second ref: the spec names one repository as ref %q for a chart's values files; give that ref a source of its own", len(list), str(m["ref"]), argocd.ValuesRef)
		}
	}
	if len(rest) == 0 {
		return ms, "its sources name only refs, and render nothing"
	}
	first := rest[0]
	if str(first["chart"]) == "" && values != nil {
		// A chart kept in a folder of this repository, its values files
		// named by a ref to this repository at the same revision: the
		// repo server reads the same files as from the folder, as a
		// path module names them.
		if len(rest) == 1 {
			if src, ok := refValuesFromFolder(first, values); ok {
				ms.src = src
				return ms, ""
			}
			if repoKey(str(values["repoURL"])) == repoKey(str(first["repoURL"])) {
				return ms, fmt.Sprintf("a chart of folder %s at %s with values files of ref %s at %s: the spec reads a chart kept here and its values files at one revision; give both sources one targetRevision",
					path.Clean(str(first["path"])), cmp.Or(str(first["targetRevision"]), "HEAD"), str(values["ref"]), cmp.Or(str(values["targetRevision"]), "HEAD"))
			}
		}
		return ms, fmt.Sprintf("a chart kept in Git (folder %s of %s) with values files of ref %s: the spec names the values files of such a chart from its own repository and revision only, not yet by ref", path.Clean(cmp.Or(str(first["path"]), ".")), str(first["repoURL"]), str(values["ref"]))
	}
	ms.src = first
	rest = rest[1:]
	if values != nil {
		if str(values["ref"]) != argocd.ValuesRef {
			return ms, fmt.Sprintf("%d sources: ref %s: the spec names the values files' repository as ref %q; rename the ref", len(list), str(values["ref"]), argocd.ValuesRef)
		}
		helm, _ := first["helm"].(map[string]any)
		files := anyList(helm["valueFiles"])
		prefix := "$" + argocd.ValuesRef + "/"
		if len(files) == 0 || slices.ContainsFunc(files, func(f any) bool { return !strings.HasPrefix(str(f), prefix) }) {
			return ms, fmt.Sprintf("%d sources: ref %s beside values files that do not all name it: the spec reads a chart's values files from one repository", len(list), argocd.ValuesRef)
		}
		paths := make([]any, len(files))
		for i, f := range files {
			paths[i] = strings.TrimPrefix(str(f), prefix)
		}
		helm = shallowWith(helm, "valueFiles", paths)
		if sameRepo(str(values["repoURL"])) == sameRepo(s.RepoURL) {
			ms.rev = cmp.Or(str(values["targetRevision"]), "HEAD")
		} else {
			// Another repository's values files: the chart's own.
			helm = shallowWith(helm, "valuesRepo", map[string]any{"repoURL": str(values["repoURL"]), "targetRevision": cmp.Or(str(values["targetRevision"]), "HEAD")})
		}
		ms.src = shallowWith(first, "helm", helm)
	}
	if str(first["chart"]) != "" && len(rest) > 0 && s.ownFolder(rest[0]) && (ms.rev == "" || ms.rev == cmp.Or(str(rest[0]["targetRevision"]), "HEAD")) {
		// A folder of this repository beside the chart, at the
		// revision its values files are read at: its manifests.
		ms.manifests = path.Clean(str(rest[0]["path"]))
		ms.rev = cmp.Or(ms.rev, str(rest[0]["targetRevision"]), "HEAD")
		rest = rest[1:]
	}
	for _, x := range rest {
		extra, pin, why := s.extraSource(fsys, x)
		if why != "" {
			return ms, fmt.Sprintf("%d sources: %s", len(list), why)
		}
		ms.extras = append(ms.extras, extra)
		ms.extraCharts = append(ms.extraCharts, pin)
	}
	return ms, ""
}

// ownFolder says whether src is a plain folder of the imported
// repository, as a chart module's manifests are rendered: no options.
func (s *Spec) ownFolder(src map[string]any) bool {
	return str(src["path"]) != "" && otherKeys(src, "repoURL", "path", "targetRevision") == "" && repoKey(str(src["repoURL"])) == repoKey(s.RepoURL)
}

// extraSource reads one further source: a chart of a chart repository at
// an exact version, with values, a release name, parameters or skipCrds;
// or a folder, of this repository (which must hold it) or another, with
// directory options.
func (s *Spec) extraSource(fsys fs.FS, src map[string]any) (*object.Map, *chartPin, string) {
	out := object.NewMap()
	repo, rev := str(src["repoURL"]), str(src["targetRevision"])
	if str(src["chart"]) != "" {
		pin, why := chartOf(src)
		if why != "" {
			return nil, nil, why
		}
		if extra := otherKeys(src, "repoURL", "chart", "targetRevision", "helm"); extra != "" {
			return nil, nil, fmt.Sprintf("a chart source with %s: the spec's further sources do not say it yet", extra)
		}
		out.Set("chart", "") // named when the charts are pinned
		helm, _ := src["helm"].(map[string]any)
		if extra := otherKeys(helm, "releaseName", "skipCrds", "parameters", "values", "valuesObject", "version"); extra != "" {
			return nil, nil, fmt.Sprintf("a further chart with helm.%s: the spec's further sources do not say it yet", extra)
		}
		values, why := helmValues(helm)
		if why != "" {
			return nil, nil, why
		}
		out.SetIf(len(values) > 0, "values", values)
		h := copyKeys(helm, "releaseName", "skipCrds", "parameters")
		out.SetIf(h.Len() > 0, "helm", h)
		return out, pin, ""
	}
	if str(src["path"]) == "" {
		return nil, nil, "a source that names neither a chart nor a path"
	}
	if extra := otherKeys(src, "repoURL", "path", "targetRevision", "directory"); extra != "" {
		return nil, nil, fmt.Sprintf("a further folder with %s: the spec's further sources do not say it yet; make it a module of its own", extra)
	}
	dir := path.Clean(str(src["path"]))
	if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
		return nil, nil, fmt.Sprintf("folder %q is outside its repository", str(src["path"]))
	}
	out.Set("path", dir)
	if repoKey(repo) == repoKey(s.RepoURL) {
		if st, err := fs.Stat(fsys, dir); err != nil || !st.IsDir() {
			return nil, nil, fmt.Sprintf("folder %s is not in the repository, so Argo CD cannot sync it: create it, or fix the path", dir)
		}
		out.Set("revision", cmp.Or(rev, "HEAD"))
	} else {
		out.Set("repoURL", repo)
		out.SetIf(rev != "" && rev != "HEAD", "revision", rev)
	}
	if d, ok := src["directory"].(map[string]any); ok {
		dm := copyKeys(d, "recurse", "exclude", "include")
		out.SetIf(dm.Len() > 0, "directory", dm)
	}
	return out, nil, ""
}

// otherKeys names the keys of m, sorted, that are not among keys.
func otherKeys(m map[string]any, keys ...string) string {
	out := slices.DeleteFunc(slices.Sorted(maps.Keys(m)), func(k string) bool { return slices.Contains(keys, k) })
	return strings.Join(out, ", ")
}

// refValuesFromFolder reads a Git source whose values files name, by the
// ref source values, its own repository at its own revision
// ($ref/path/from/root.yaml) as the one source that names them from its
// folder; ok is false where another file, repository or revision is
// named.
func refValuesFromFolder(folder, values map[string]any) (map[string]any, bool) {
	if repoKey(str(values["repoURL"])) != repoKey(str(folder["repoURL"])) ||
		cmp.Or(str(values["targetRevision"]), "HEAD") != cmp.Or(str(folder["targetRevision"]), "HEAD") {
		return nil, false
	}
	helm, _ := folder["helm"].(map[string]any)
	files := anyList(helm["valueFiles"])
	if len(files) == 0 {
		return nil, false
	}
	dir := path.Clean(str(folder["path"]))
	prefix := "$" + str(values["ref"]) + "/"
	fromFolder := make([]any, len(files))
	for i, f := range files {
		name, ok := strings.CutPrefix(str(f), prefix)
		if !ok || !fs.ValidPath(path.Clean(name)) {
			return nil, false
		}
		fromFolder[i] = argocd.RelativePath(dir, path.Clean(name))
	}
	return shallowWith(folder, "helm", shallowWith(helm, "valueFiles", fromFolder)), true
}

// helmValues are a source's values: values (YAML text) and valuesObject,
// the latter winning, as Argo CD merges them.
func helmValues(helm map[string]any) (map[string]any, string) {
	var out map[string]any
	if text := str(helm["values"]); strings.TrimSpace(text) != "" {
		if err := unmarshal([]byte(text), &out); err != nil {
			return nil, "helm.values is not YAML: " + err.Error()
		}
	}
	if obj, ok := helm["valuesObject"].(map[string]any); ok {
		out = object.Merge(out, obj)
	}
	return out, ""
}

func projectFields(o *Object) *object.Map {
	spec, _ := o.Body["spec"].(map[string]any)
	meta, _ := o.Body["metadata"].(map[string]any)
	p := copyKeys(spec, "description", "sourceRepos", "destinations", "clusterResourceWhitelist", "clusterResourceBlacklist",
		"namespaceResourceWhitelist", "namespaceResourceBlacklist", "roles", "syncWindows", "orphanedResources",
		"destinationServiceAccounts", "sourceNamespaces")
	for _, k := range []string{"sourceRepos", "destinations"} {
		p.SetIf(p.Get(k) == nil, k, []any{})
	}
	if keys := anyList(spec["signatureKeys"]); len(keys) > 0 {
		ids := make([]any, len(keys))
		for i, k := range keys {
			ids[i] = str(object.Lookup(k, "keyID"))
		}
		p.Set("signatureKeys", ids)
	}
	if roles := anyList(spec["roles"]); len(roles) > 0 {
		p.Set("roles", copyEach(roles, "name", "description", "policies", "groups"))
	}
	p.SetIf(slices.Contains(anyList(meta["finalizers"]), any(argocd.ResourcesFinalizer)), "keepWhileUsed", true)
	l, _ := meta["labels"].(map[string]any)
	p.SetIf(len(l) > 0, "labels", stringMap(l))
	a, _ := meta["annotations"].(map[string]any)
	a = maps.Clone(a)
	delete(a, argocd.SyncWave) // platc's: AppProjects sync first
	p.SetIf(len(a) > 0, "annotations", stringMap(a))
	return p
}

// moduleOrder is the order of a module's fields in the spec written.
var moduleOrder = []string{"description", "chart", "path", "repoURL", "revision", "namespace", "wave", "values", "helm", "manifests",
	"directory", "kustomize", "plugin", "extraSources", "createNamespace", "syncOptions", "cascadeDelete", "labels", "annotations", "syncPolicy",
	"managedNamespaceMetadata", "ignoreDifferences", "respectIgnoreDifferences", "revisionHistoryLimit"}

// orderModule is m in moduleOrder, less the fields moved to settings.
func orderModule(m *object.Map, moved map[string]bool) *object.Map {
	out := object.NewMap()
	for _, k := range moduleOrder {
		if v := m.Get(k); v != nil && !moved[k] {
			out.Set(k, v)
		}
	}
	return out
}

// copyKeys copies the keys of m that are set, in the order given, as an
// ordered map whose maps are ordered by key.
func copyKeys(m map[string]any, keys ...string) *object.Map {
	out := object.NewMap()
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			out.Set(k, ordered(v))
		}
	}
	return out
}

// copyEach is copyKeys of each map of l.
func copyEach(l []any, keys ...string) []any {
	out := make([]any, len(l))
	for i, x := range l {
		m, _ := x.(map[string]any)
		out[i] = copyKeys(m, keys...)
	}
	return out
}

// ordered makes maps ordered by key, recursively.
func ordered(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := object.NewMap()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out.Set(k, ordered(x[k]))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ordered(e)
		}
		return out
	}
	return v
}

func stringMap(m map[string]any) *object.Map {
	out := object.NewMap()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out.Set(k, fmt.Sprint(m[k]))
	}
	return out
}

func shallowWith(m map[string]any, k string, v any) map[string]any {
	out := maps.Clone(m)
	out[k] = v
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func destKeyOf(d *object.Map) string {
	if d == nil {
		return ""
	}
	if n, _ := d.Get("name").(string); n != "" {
		return "name=" + n
	}
	sv, _ := d.Get("server").(string)
	return "server=" + sv
}

// mostCommonOf is the value of key most of list have (the smallest of
// those most have), ignoring "".
func mostCommonOf[T any](list []T, key func(T) string) string {
	counts := map[string]int{}
	for _, x := range list {
		if k := key(x); k != "" {
			counts[k]++
		}
	}
	best, n := "", 0
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return best
}
