// Package render turns a checked platform spec into the Kubernetes objects
// Argo CD consumes, arranged in the files of ADR 0001's layout
// (docs/decisions.md): a root Application per environment, the
// environment's apps.yaml, a group's own apps file, the environment's
// AppProjects, its stacks' instances and the values of its Argo CD; the
// stacks' ResourceGraphDefinitions; and each environment's direct-apply
// plan.
//
// Render is pure: no I/O, no clock, no map iterated into output unsorted. It
// trusts check: it is called only on a spec without errors. Encoding the
// objects as bytes is emit's job.
package render

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/rgd"
)

// File is one output file: its path relative to the output root
// (slash-separated) and the objects it holds, in order.
type File struct {
	Path    string
	Objects []*object.Map
	// Env is the environment the file belongs to; empty for the files
	// every environment shares (a stack's ResourceGraphDefinition).
	Env string
	// Text, for a file that is not YAML objects (a shell plan), is its
	// content after the header.
	Text string
	// Values marks a file of Helm values, not Kubernetes objects.
	Values bool
}

// AppProjectsFile is the file of an environment's own AppProjects, beside
// its apps.yaml.
const AppProjectsFile = "appprojects.yaml"

// The layout of ADR 0001, relative to the output root.
const (
	// RootAppsDir holds the root Applications, one per environment.
	RootAppsDir = "deploy/gitops/argocd"
	// ClustersDir holds a folder per environment (ClusterDir).
	ClustersDir = "deploy/clusters"
	// DirectApplyRoot holds the direct-apply plans (DirectApplyDir).
	DirectApplyRoot = "deploy/direct-apply"

	projectsWave = "-1" // AppProjects exist before the Applications that use them
	appsFile     = "apps.yaml"
	stacksDir    = "stacks"
)

// FolderReads returns the folders of the repository that building the
// kustomization in folder dir reads, from the repository's root, and
// whether they are known (verify.Folders.Read, which waits for the build
// that the compiler starts once the spec is read).
type FolderReads func(dir string) ([]string, bool)

// Render returns the files of the whole platform, sorted by path. reads,
// if not nil, gives the folders each kustomization's build reads: the
// refresh paths (manifest-generate-paths) of the Applications that sync
// one; without it, they get none.
func Render(spec *model.Spec, info *check.Info, stacks *rgd.Compiled, reads FolderReads) []File {
	r := &renderer{spec: spec, info: info, stacks: stacks, reads: reads, syncPolicies: map[syncKey]*object.Map{}}
	// Environments are independent: render them in parallel.
	perEnv := make([][]File, len(spec.Environments))
	object.Parallel(len(spec.Environments), func(i int) {
		env := spec.Environments[i]
		perEnv[i] = r.environment(env)
		for j := range perEnv[i] {
			perEnv[i][j].Env = env.Name
		}
	})
	files := slices.Concat(perEnv...)
	for _, st := range spec.Stacks {
		files = append(files, File{Path: StackFile(st.Name), Objects: []*object.Map{stacks.Stacks[st.Name].Object}})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

type renderer struct {
	spec   *model.Spec
	info   *check.Info
	stacks *rgd.Compiled
	reads  FolderReads

	// syncPolicies are the syncPolicy maps made so far, shared by the
	// Applications whose policy is the same: a module's, in every
	// environment that does not set its own. A rendered object is not
	// changed once made (TestLaterStagesLeaveRenderedObjects), and a map
	// per Application is fresh memory, which a run pays for in page
	// faults.
	syncMu       sync.Mutex
	syncPolicies map[syncKey]*object.Map
}

// syncKey is what an Application's syncPolicy is made of: its module
// (its namespace's metadata), the policy resolved in its environment,
// whether it respects its ignoreDifferences there, and its sync options
// there.
type syncKey struct {
	module  *model.Module
	sync    model.Sync
	respect bool
	// options are the sync options, which an environment's settings
	// and namespace may change, joined.
	options string
}

// RootFile returns the path, relative to the output root, of an
// environment's root Application.
func RootFile(p *model.Platform, env string) string { return envFile(p, env, "root-app") }

// ArgoCDValuesFile returns the path, relative to the output root, of the
// values of Argo CD's Helm chart that an environment's installation needs
// (make bootstrap-argocd passes the default environment's), beside its
// root Application.
func ArgoCDValuesFile(p *model.Platform, env string) string {
	return envFile(p, env, "argocd-values")
}

// envFile is <stem>.yaml in RootAppsDir for the default environment,
// <stem>-<env>.yaml for the others.
func envFile(p *model.Platform, env, stem string) string {
	if env == p.DefaultEnvironment {
		return path.Join(RootAppsDir, stem+".yaml")
	}
	return path.Join(RootAppsDir, stem+"-"+env+".yaml")
}

// StackFile returns the path, relative to the output root, of a stack's
// ResourceGraphDefinition.
func StackFile(stack string) string { return path.Join(stacksDir, stack+".yaml") }

// includeGlob is a directory.include that matches exactly the files of the
// given stacks.
func includeGlob(stacks []string) string {
	names := make([]string, len(stacks))
	for i, s := range stacks {
		names[i] = s + ".yaml"
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 1 {
		return names[0]
	}
	return "{" + strings.Join(names, ",") + "}"
}

// instanceFiles are the files of a module that delivers stack instances in
// env: one per stack, holding every client's instance, sorted by client. A
// stack no client has in env still gets its file, so the folder exists.
func (r *renderer) instanceFiles(env *model.Environment, m *model.Module) []File {
	var files []File
	for _, st := range m.Stacks {
		f := File{Path: path.Join(ClusterDir(env.Name), m.Name, st+".yaml")}
		for _, inst := range r.stacks.Instances {
			if inst.Env == env && inst.Stack.Model.Name == st {
				f.Objects = append(f.Objects, inst.Object)
			}
		}
		files = append(files, f)
	}
	return files
}

// ClusterDir returns the folder, relative to the output root, of an
// environment's apps.
func ClusterDir(env string) string { return path.Join(ClustersDir, env) }

func (r *renderer) environment(env *model.Environment) []File {
	dir := ClusterDir(env.Name)
	var files []File

	// Top-level modules go to apps.yaml; each group's members to the
	// group's own apps file, which the group's Application syncs.
	children := map[string][]*model.Module{}
	for _, m := range r.spec.Modules {
		if r.delivered(env, m) {
			children[r.info.Parent[m.Name]] = append(children[r.info.Parent[m.Name]], m)
		}
	}
	for _, parent := range slices.Sorted(maps.Keys(children)) {
		var objs []*object.Map
		// The project of a stacks module's instances, where platc
		// renders it, comes first (wave -1), in the file that delivers
		// the module: the file its parent's Application reads.
		for _, m := range children[parent] {
			if p := r.instancesProject(env, m); p != nil {
				objs = append(objs, p)
			}
		}
		// By name, not by wave: Argo CD orders by the wave annotation,
		// and a change of one module's wave (an added need) then
		// changes its own lines in review, not the place of a group.
		for _, m := range byName(children[parent]) {
			objs = append(objs, r.application(env, m))
		}
		p := path.Join(dir, appsFile)
		if parent != "" {
			p = path.Join(dir, parent, appsFile)
		}
		files = append(files, File{Path: p, Objects: objs})
	}
	// A module that delivers stack instances syncs a folder with a file
	// per stack, one instance per client.
	for _, m := range r.spec.Modules {
		if m.Kind.Info().Syncs == model.SyncsInstances && r.delivered(env, m) {
			files = append(files, r.instanceFiles(env, m)...)
		}
	}
	if _, ok := children[""]; !ok {
		// An environment with every module disabled still has an
		// apps.yaml for its root Application to include.
		files = append(files, File{Path: path.Join(dir, appsFile)})
	}

	if env.DirectApply {
		files = append(files, r.directApply(env, children)...)
	}

	include := appsFile
	if len(env.Projects) > 0 {
		var objs []*object.Map
		for _, p := range env.Projects {
			objs = append(objs, r.project(p))
		}
		files = append(files, File{Path: path.Join(dir, AppProjectsFile), Objects: objs})
		include = "{" + appsFile + "," + AppProjectsFile + "}"
	}
	files = append(files, File{Path: RootFile(&r.spec.Platform, env.Name), Objects: []*object.Map{r.root(env, include)}})
	if in := r.install(env, children); !in.Empty() {
		files = append(files, File{Path: ArgoCDValuesFile(&r.spec.Platform, env.Name), Objects: []*object.Map{in.HelmValues()}, Values: true})
	}
	return files
}

// delivered reports whether a module has an Application in env: it is
// enabled, its groups are, and a group has at least one member delivered.
func (r *renderer) delivered(env *model.Environment, m *model.Module) bool {
	if !check.Delivered(env, m.Name, r.info.Parent) {
		return false
	}
	if m.Kind.Info().Syncs == model.SyncsMembers {
		for _, name := range m.Members {
			if r.delivered(env, r.spec.Module(name)) {
				return true
			}
		}
		return false
	}
	return true
}

// byName sorts modules by name, as they appear in an apps file.
func byName(ms []*model.Module) []*model.Module {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b *model.Module) int { return strings.Compare(a.Name, b.Name) })
	return ms
}

// ordered sorts modules by sync wave, then name: the order in which Argo
// CD syncs them, which the direct-apply plan follows.
func (r *renderer) ordered(ms []*model.Module) []*model.Module {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b *model.Module) int {
		return cmp.Or(cmp.Compare(r.info.Waves[a.Name], r.info.Waves[b.Name]), strings.Compare(a.Name, b.Name))
	})
	return ms
}

func (r *renderer) root(env *model.Environment, include string) *object.Map {
	p := &r.spec.Platform
	meta := object.NewMap().
		Set("name", env.RootName()).
		Set("namespace", p.ArgoCDNamespace)
	meta.SetIf(env.Root != nil && env.Root.CascadeDelete, "finalizers", cascadeFinalizers)
	spec := object.NewMap().
		Set("project", argocd.DefaultProjectName).
		Set("source", r.gitSource(env, path.Join(p.OutDir, ClusterDir(env.Name))).
			Set("directory", object.NewMap().Set("include", include))).
		Set("destination", object.NewMap().
			Set("server", argocd.InClusterServer).
			Set("namespace", p.ArgoCDNamespace)).
		Set("syncPolicy", argocd.SyncPolicyFor(env.RootSync(), nil, false, nil))
	argocd.IgnoreChildHookFinalizers(spec)
	r.setGeneratePaths(meta, spec)
	return argocd.Application(meta, spec)
}

func (r *renderer) application(env *model.Environment, m *model.Module) *object.Map {
	p := &r.spec.Platform
	meta := r.metadata(env, m)

	project := env.Project
	if s := env.Settings[m.Name]; s != nil && s.Project != "" {
		project = s.Project
	}
	// project, its source or sources, destination and syncPolicy, and
	// room for one of what setSync and SetDescription may add.
	spec := object.NewMapCap(5).Set("project", project)
	argocd.SetDescription(spec, m.Description)

	kind := m.Kind.Info()
	switch kind.Syncs {
	case model.SyncsChart:
		r.setChartSources(env, m, spec)
	case model.SyncsRepoFolder:
		r.setFolderSource(env, m, spec)
	case model.SyncsMembers, model.SyncsInstances:
		// Its own folder of the environment, under the output root.
		spec.Set("source", r.gitSource(env, path.Join(p.OutDir, ClusterDir(env.Name), m.Name)))
	case model.SyncsDefinitions:
		spec.Set("source", r.gitSource(env, path.Join(p.OutDir, stacksDir)).
			Set("directory", object.NewMap().Set("include", includeGlob(m.Stacks))))
	default:
		panic(fmt.Sprintf("render: module kind %v syncs nothing platc knows", m.Kind))
	}
	dest := object.NewMapCap(2) // a server or a cluster's name, a namespace
	var syncOptions []string
	switch kind.Deploys {
	case model.DestArgoCD:
		// Its Application creates Applications, which live in the Argo
		// CD namespace of the cluster Argo CD runs in.
		dest.Set("server", argocd.InClusterServer).Set("namespace", p.ArgoCDNamespace)
	case model.DestNamespace:
		setDestination(dest, m.DestinationIn(env))
		setNonZero(dest, "namespace", m.NamespaceIn(env))
		// Namespace "*" is no namespace to create: the objects name theirs.
		if m.CreateNamespaceIn(env) && m.NamespaceIn(env) != model.AnyNamespace {
			syncOptions = append(syncOptions, argocd.CreateNamespace)
		}
	case model.DestCluster:
		// Cluster-scoped objects: a namespace, if any, is only for the
		// project's destinations to permit.
		setDestination(dest, m.DestinationIn(env))
		setNonZero(dest, "namespace", m.NamespaceIn(env))
	default:
		panic(fmt.Sprintf("render: module kind %v deploys nowhere platc knows", m.Kind))
	}
	syncOptions = append(syncOptions, m.SyncOptionsIn(env)...)
	spec.Set("destination", dest)
	r.setSync(env, m, spec, syncOptions)
	if kind.Syncs == model.SyncsMembers {
		argocd.IgnoreChildHookFinalizers(spec)
	}
	r.setGeneratePaths(meta, spec)
	return argocd.Application(meta, spec)
}

// gitSource is a source of this repository at the environment's revision.
func (r *renderer) gitSource(env *model.Environment, dir string) *object.Map {
	return object.NewMap().
		Set("repoURL", r.spec.Platform.RepoURL).
		Set("targetRevision", env.Revision).
		Set("path", dir)
}

func setDestination(m *object.Map, d model.Destination) {
	if d.Name != "" {
		m.Set("name", d.Name)
	} else {
		m.Set("server", d.Server)
	}
}

// chartSource is the Helm source of a chart module, with its values.
func (r *renderer) chartSource(env *model.Environment, m *model.Module) *object.Map {
	src := argocd.ChartSource(r.spec.ChartIn(env, m.Chart))
	if h := r.helm(env, m); h != nil {
		src.Set("helm", h)
	}
	return src
}

// values merges a module's values, the environment's values for it, and the
// wiring, in that order: later layers win. A single layer is returned as it
// is, not copied: rendered objects are read-only, and most modules have no
// environment values or wiring.
func (r *renderer) values(env *model.Environment, m *model.Module) map[string]any {
	var out map[string]any
	eachValuesLayer(env, m, func(_ *model.Node, w *model.Wire, values map[string]any) {
		switch {
		case w != nil:
			// A wire sets one value, never a map: set along its path,
			// copying the maps on the way, as merging its layer would.
			out = object.SetPath(out, w.ValuesPath, Wired(r.spec, env, w))
		case len(values) == 0:
		case out == nil:
			out = values
		default:
			out = object.Merge(out, values)
		}
	})
	return out
}

// ValuesLayer is one part of a chart module's helm.valuesObject.
type ValuesLayer struct {
	// SpecPath is where the spec sets it: the module's values, the
	// environment's values for the module, or its wiring.
	SpecPath string
	Wiring   bool
	Values   map[string]any
}

// ValuesLayers returns the parts render merges into a chart module's
// valuesObject in env, in order (a later one wins): the module's values,
// the environment's values for it, and the wiring, resolved for env.
func ValuesLayers(spec *model.Spec, env *model.Environment, m *model.Module) []ValuesLayer {
	var layers []ValuesLayer
	eachValuesLayer(env, m, func(at *model.Node, w *model.Wire, values map[string]any) {
		if w != nil {
			layers = append(layers, ValuesLayer{SpecPath: w.Path, Wiring: true, Values: object.SetPath(nil, w.ValuesPath, Wired(spec, env, w))})
		} else {
			layers = append(layers, ValuesLayer{SpecPath: at.FieldPath("values"), Values: values})
		}
	})
	return layers
}

// eachValuesLayer calls fn with each of ValuesLayers' parts, in order:
// the node whose values field sets values, or the wire that sets one
// value (values nil). Render merges them without naming where they are
// set, and sets a wire's value in place of merging a map made for it:
// the names and those maps were fresh memory of every run.
func eachValuesLayer(env *model.Environment, m *model.Module, fn func(at *model.Node, w *model.Wire, values map[string]any)) {
	fn(&m.Node, nil, m.Values)
	if s := env.Settings[m.Name]; s != nil {
		fn(&s.Node, nil, s.Values)
	}
	for _, w := range m.Wiring {
		fn(nil, w, nil)
	}
}

// Wired is the value a wire sets in env: the endpoint of the module it
// names, or the external endpoint env gives where it disables that module.
func Wired(spec *model.Spec, env *model.Environment, w *model.Wire) any {
	src := spec.Module(w.From)
	ep := src.Endpoint
	scheme := ep.Scheme
	if !check.Enabled(env, w.From) {
		ep = env.Settings[w.From].External
		if ep.Scheme != "" {
			scheme = ep.Scheme
		}
	}
	switch w.Field {
	case "host":
		return ep.Host
	case "port":
		return ep.Port
	case "url":
		return fmt.Sprintf("%s://%s:%d", scheme, ep.Host, ep.Port)
	}
	return fmt.Sprintf("%s:%d", ep.Host, ep.Port)
}

func (r *renderer) project(p *model.Project) *object.Map {
	spec := object.NewMap()
	setNonZero(spec, "description", p.Description)
	spec.Set("sourceRepos", p.SourceRepos)
	var dests []any
	for _, d := range p.Destinations {
		// As written: Argo CD matches a cluster by server or by name,
		// and a namespace only where one is given.
		m := object.NewMapCap(3)
		setNonZero(m, "server", d.Server)
		setNonZero(m, "name", d.Name)
		setNonZero(m, "namespace", d.Namespace)
		dests = append(dests, m)
	}
	spec.Set("destinations", dests)
	setList(spec, "clusterResourceWhitelist", p.ClusterResourceWhitelist, groupKind)
	setList(spec, "namespaceResourceBlacklist", p.NamespaceResourceBlacklist, groupKind)
	spec.SetIf(len(p.SourceNamespaces) > 0, "sourceNamespaces", p.SourceNamespaces)
	projectFields(spec, p)
	proj := r.appProject(p.Name, spec, p.Labels, p.Annotations)
	if p.KeepWhileUsed {
		// Argo CD's controller removes it once no Application names
		// the project (finalizeProjectDeletion).
		proj.Get("metadata").(*object.Map).Set("finalizers", []any{argocd.ResourcesFinalizer})
	}
	return proj
}

// appProject is an AppProject in Argo CD's namespace, synced before the
// Applications that use it.
func (r *renderer) appProject(name string, spec *object.Map, labels, annotations map[string]string) *object.Map {
	meta := object.NewMap().
		Set("name", name).
		Set("namespace", r.spec.Platform.ArgoCDNamespace)
	if len(labels) > 0 {
		meta.Set("labels", argocd.StringMap(labels))
	}
	ann := object.NewMapCap(1+len(annotations)).Set(argocd.SyncWave, projectsWave)
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		ann.Set(k, annotations[k])
	}
	return object.NewMap().
		Set("apiVersion", argocd.APIVersion).
		Set("kind", "AppProject").
		Set("metadata", meta.Set("annotations", ann)).
		Set("spec", spec)
}

func groupKind(gk model.GroupKind) any {
	return object.NewMap().Set("group", gk.Group).Set("kind", gk.Kind)
}
