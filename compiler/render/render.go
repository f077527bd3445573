// Package render turns a checked platform spec into the Kubernetes objects
// Argo CD consumes, arranged in the files of ADR 0001's layout: a root
// Application per environment, the environment's apps.yaml, a group's own
// apps file, and the environment's AppProjects.
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
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// File is one output file: its path relative to the output root
// (slash-separated) and the objects it holds, in order.
type File struct {
	Path    string
	Objects []*object.Map
}

// Argo CD names and values the output relies on.
const (
	apiVersion       = "argoproj.io/v1alpha1"
	inClusterServer  = "https://kubernetes.default.svc"
	syncWave         = "argocd.argoproj.io/sync-wave"
	resourcesFinal   = "resources-finalizer.argocd.argoproj.io"
	projectsWave     = "-1" // AppProjects exist before the Applications that use them
	appsFile         = "apps.yaml"
	appProjectsFile  = "appprojects.yaml"
	rootAppsDir      = "deploy/gitops/argocd"
	clustersDir      = "deploy/clusters"
	defaultRootApp   = "root-app.yaml"
	createNamespace  = "CreateNamespace=true"
	defaultProjectNm = "default"
)

// Render returns the files of the whole platform, sorted by path.
func Render(spec *model.Spec, info *check.Info) []File {
	r := &renderer{spec: spec, info: info}
	var files []File
	for _, env := range spec.Environments {
		files = append(files, r.environment(env)...)
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

type renderer struct {
	spec *model.Spec
	info *check.Info
}

// RootFile returns the path, relative to the output root, of an
// environment's root Application.
func RootFile(p *model.Platform, env string) string {
	if env == p.DefaultEnvironment {
		return path.Join(rootAppsDir, defaultRootApp)
	}
	return path.Join(rootAppsDir, "root-app-"+env+".yaml")
}

// ClusterDir returns the folder, relative to the output root, of an
// environment's apps.
func ClusterDir(env string) string { return path.Join(clustersDir, env) }

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
		for _, m := range r.ordered(children[parent]) {
			objs = append(objs, r.application(env, m))
		}
		p := path.Join(dir, appsFile)
		if parent != "" {
			p = path.Join(dir, parent, appsFile)
		}
		files = append(files, File{Path: p, Objects: objs})
	}
	if _, ok := children[""]; !ok {
		// An environment with every module disabled still has an
		// apps.yaml for its root Application to include.
		files = append(files, File{Path: path.Join(dir, appsFile)})
	}

	include := appsFile
	if len(env.Projects) > 0 {
		var objs []*object.Map
		for _, p := range env.Projects {
			objs = append(objs, r.project(p))
		}
		files = append(files, File{Path: path.Join(dir, appProjectsFile), Objects: objs})
		include = "{" + appsFile + "," + appProjectsFile + "}"
	}
	files = append(files, File{Path: RootFile(&r.spec.Platform, env.Name), Objects: []*object.Map{r.root(env, include)}})
	return files
}

// delivered reports whether a module has an Application in env: it is
// enabled, its groups are, and a group has at least one member delivered.
func (r *renderer) delivered(env *model.Environment, m *model.Module) bool {
	for name := m.Name; name != ""; name = r.info.Parent[name] {
		if !check.Enabled(env, name) {
			return false
		}
	}
	if m.Kind == model.KindGroup {
		for _, name := range m.Members {
			if r.delivered(env, r.spec.Module(name)) {
				return true
			}
		}
		return false
	}
	return true
}

// ordered sorts modules by sync wave, then name, as they appear in an apps
// file.
func (r *renderer) ordered(ms []*model.Module) []*model.Module {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b *model.Module) int {
		return cmp.Or(cmp.Compare(r.info.Waves[a.Name], r.info.Waves[b.Name]), strings.Compare(a.Name, b.Name))
	})
	return ms
}

func (r *renderer) root(env *model.Environment, include string) *object.Map {
	p := &r.spec.Platform
	return object.NewMap().
		Set("apiVersion", apiVersion).
		Set("kind", "Application").
		Set("metadata", object.NewMap().
			Set("name", check.RootName(env.Name)).
			Set("namespace", p.ArgoCDNamespace)).
		Set("spec", object.NewMap().
			Set("project", defaultProjectNm).
			Set("source", object.NewMap().
				Set("repoURL", p.RepoURL).
				Set("targetRevision", env.Revision).
				Set("path", path.Join(p.OutDir, ClusterDir(env.Name))).
				Set("directory", object.NewMap().Set("include", include))).
			Set("destination", object.NewMap().
				Set("server", inClusterServer).
				Set("namespace", p.ArgoCDNamespace)).
			Set("syncPolicy", object.NewMap().Set("automated", automated())))
}

func automated() *object.Map {
	return object.NewMap().Set("prune", true).Set("selfHeal", true)
}

func (r *renderer) application(env *model.Environment, m *model.Module) *object.Map {
	p := &r.spec.Platform
	meta := object.NewMap().
		Set("name", m.Name).
		Set("namespace", p.ArgoCDNamespace).
		Set("annotations", object.NewMap().Set(syncWave, strconv.Itoa(r.info.Waves[m.Name])))
	if m.CascadeDelete {
		meta.Set("finalizers", []string{resourcesFinal})
	}

	project := env.Project
	if s := env.Settings[m.Name]; s != nil && s.Project != "" {
		project = s.Project
	}
	spec := object.NewMap().Set("project", project)
	if m.Description != "" {
		spec.Set("info", []any{object.NewMap().Set("name", "Description").Set("value", m.Description)})
	}

	dest := object.NewMap()
	var syncOptions []string
	switch m.Kind {
	case model.KindChart:
		spec.Set("source", r.chartSource(env, m))
		setDestination(dest, env.Destination)
		dest.Set("namespace", m.Namespace)
	case model.KindPath:
		spec.Set("source", object.NewMap().
			Set("repoURL", p.RepoURL).
			Set("targetRevision", env.Revision).
			Set("path", m.Dir))
		setDestination(dest, env.Destination)
		dest.Set("namespace", m.Namespace)
	case model.KindGroup:
		// A group's Application creates Applications, which live in the
		// Argo CD namespace of the cluster Argo CD runs in.
		spec.Set("source", object.NewMap().
			Set("repoURL", p.RepoURL).
			Set("targetRevision", env.Revision).
			Set("path", path.Join(p.OutDir, ClusterDir(env.Name), m.Name)))
		dest.Set("server", inClusterServer).Set("namespace", p.ArgoCDNamespace)
	}
	if m.Kind != model.KindGroup && m.CreateNamespace {
		syncOptions = append(syncOptions, createNamespace)
	}
	syncOptions = append(syncOptions, m.SyncOptions...)

	sync := object.NewMap().Set("automated", automated())
	if len(syncOptions) > 0 {
		sync.Set("syncOptions", syncOptions)
	}
	spec.Set("destination", dest).Set("syncPolicy", sync)
	return object.NewMap().
		Set("apiVersion", apiVersion).
		Set("kind", "Application").
		Set("metadata", meta).
		Set("spec", spec)
}

func setDestination(m *object.Map, d model.Destination) {
	if d.Name != "" {
		m.Set("name", d.Name)
	} else {
		m.Set("server", d.Server)
	}
}

// chartSource is a Helm source. A chart in an OCI registry is an OCI source
// (Argo CD 3.1 and later): the chart is the last element of repoURL and the
// path is always ".".
func (r *renderer) chartSource(env *model.Environment, m *model.Module) *object.Map {
	c := r.spec.Chart(m.Chart)
	src := object.NewMap()
	if c.OCI() {
		src.Set("repoURL", strings.TrimSuffix(c.RepoURL, "/")+"/"+c.Chart).
			Set("targetRevision", c.Version).
			Set("path", ".")
	} else {
		src.Set("repoURL", c.RepoURL).
			Set("chart", c.Chart).
			Set("targetRevision", c.Version)
	}
	if values := r.values(env, m); len(values) > 0 {
		// valuesObject, never values: Argo CD drops values when both are
		// set, and valuesObject takes precedence over every values file.
		src.Set("helm", object.NewMap().Set("valuesObject", values))
	}
	return src
}

// values merges a module's values, the environment's values for it, and the
// wiring, in that order: later layers win.
func (r *renderer) values(env *model.Environment, m *model.Module) map[string]any {
	out := Merge(nil, m.Values)
	if s := env.Settings[m.Name]; s != nil {
		out = Merge(out, s.Values)
	}
	for _, w := range m.Wiring {
		out = setPath(out, w.ValuesPath, r.wired(env, w))
	}
	return out
}

// wired is the value a wire sets in env.
func (r *renderer) wired(env *model.Environment, w *model.Wire) any {
	src := r.spec.Module(w.From)
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

// Merge returns base with over merged in, as Helm merges values: maps merge
// key by key, anything else in over replaces what base has. Neither input
// is modified.
func Merge(base, over map[string]any) map[string]any {
	if base == nil && over == nil {
		return nil
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = Merge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// setPath returns values with the value at path set to v, copying the maps
// on the way so that shared inputs stay as they were.
func setPath(values map[string]any, path []string, v any) map[string]any {
	out := make(map[string]any, len(values)+1)
	for k, x := range values {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	inner, _ := out[path[0]].(map[string]any)
	out[path[0]] = setPath(inner, path[1:], v)
	return out
}

func (r *renderer) project(p *model.Project) *object.Map {
	spec := object.NewMap()
	if p.Description != "" {
		spec.Set("description", p.Description)
	}
	spec.Set("sourceRepos", p.SourceRepos)
	var dests []any
	for _, d := range p.Destinations {
		m := object.NewMap()
		if d.Name != "" {
			m.Set("name", d.Name)
		} else {
			m.Set("server", d.Server)
		}
		dests = append(dests, m.Set("namespace", d.Namespace))
	}
	spec.Set("destinations", dests)
	if len(p.ClusterResourceWhitelist) > 0 {
		spec.Set("clusterResourceWhitelist", groupKinds(p.ClusterResourceWhitelist))
	}
	if len(p.NamespaceResourceBlacklist) > 0 {
		spec.Set("namespaceResourceBlacklist", groupKinds(p.NamespaceResourceBlacklist))
	}
	if len(p.SourceNamespaces) > 0 {
		spec.Set("sourceNamespaces", p.SourceNamespaces)
	}
	return object.NewMap().
		Set("apiVersion", apiVersion).
		Set("kind", "AppProject").
		Set("metadata", object.NewMap().
			Set("name", p.Name).
			Set("namespace", r.spec.Platform.ArgoCDNamespace).
			Set("annotations", object.NewMap().Set(syncWave, projectsWave))).
		Set("spec", spec)
}

func groupKinds(gks []model.GroupKind) []any {
	var out []any
	for _, gk := range gks {
		out = append(out, object.NewMap().Set("group", gk.Group).Set("kind", gk.Kind))
	}
	return out
}
