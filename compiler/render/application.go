package render

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// The Argo CD fields of a module's Application (model/fields.go): its
// labels and annotations, its sources (a chart with values files of this
// repository or a folder of extra manifests is multi-source), how Argo CD
// renders its chart or folder, and how it syncs.

// metadata is a module's Application's metadata.
func (r *renderer) metadata(env *model.Environment, m *model.Module) *object.Map {
	labels, annotations := m.MetadataIn(env)
	keys := 3 // name, namespace, annotations
	if len(labels) > 0 {
		keys++
	}
	if m.CascadeDeleteIn(env) {
		keys++
	}
	meta := object.NewMapCap(keys).
		Set("name", m.Name).
		Set("namespace", r.spec.Platform.ArgoCDNamespace)
	if len(labels) > 0 {
		meta.Set("labels", argocd.StringMap(labels))
	}
	// The sync wave, the annotations written, and the refresh paths
	// setGeneratePaths may add.
	ann := object.NewMapCap(2+len(annotations)).Set(argocd.SyncWave, strconv.Itoa(r.info.Waves[m.Name]))
	if len(annotations) > 0 {
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			ann.Set(k, annotations[k])
		}
	}
	meta.Set("annotations", ann)
	meta.SetIf(m.CascadeDeleteIn(env), "finalizers", cascadeFinalizers)
	return meta
}

// cascadeFinalizers are the finalizers of an Application that deletes its
// resources with it: one value, which all share (a rendered object is not
// changed once made).
var cascadeFinalizers any = []string{argocd.ResourcesFinalizer}

// setList sets key to xs, each as f makes it, where xs is not empty.
func setList[T any](m *object.Map, key string, xs []T, f func(T) any) {
	if len(xs) > 0 {
		m.Set(key, listOf(xs, f))
	}
}

// listOf is xs, each as f makes it.
func listOf[T any](xs []T, f func(T) any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// setNonZero sets key to v where v is not the zero value of its type:
// the fields of Argo CD's objects that platc writes only where the spec
// sets them.
func setNonZero[V comparable](m *object.Map, key string, v V) {
	var zero V
	if v != zero {
		m.Set(key, v)
	}
}

// setFolderSource sets the source of a module that syncs its folder of
// this repository.
func (r *renderer) setFolderSource(env *model.Environment, m *model.Module, spec *object.Map) {
	src := object.NewMap().
		Set("repoURL", cmp.Or(m.RepoURLIn(env), r.spec.Platform.RepoURL)).
		Set("targetRevision", m.RevisionIn(env)).
		Set("path", m.DirIn(env))
	if d := m.Directory; d != nil {
		src.Set("directory", directoryOptions(d))
	}
	if k := m.Kustomize; k != nil {
		src.Set("kustomize", kustomizeOptions(k))
	}
	src.SetIf(m.Plugin != nil, "plugin", m.Plugin)
	if r.info.Charts[m.Name] {
		if h := r.helm(env, m); h != nil {
			src.Set("helm", h)
		}
	}
	if len(m.ExtraSourcesIn(env)) > 0 {
		spec.Set("sources", append([]any{src}, r.extraSources(env, m)...))
		return
	}
	spec.Set("source", src)
}

func directoryOptions(d *model.Directory) *object.Map {
	dir := object.NewMap()
	setNonZero(dir, "recurse", d.Recurse)
	setNonZero(dir, "exclude", d.Exclude)
	setNonZero(dir, "include", d.Include)
	return dir
}

// extraSources are the sources of m's Application after its own: each
// chart at the environment's version, each folder at its revision.
func (r *renderer) extraSources(env *model.Environment, m *model.Module) []any {
	return listOf(m.ExtraSourcesIn(env), func(x *model.ExtraSource) any {
		if x.Chart != "" {
			src := argocd.ChartSource(r.spec.ChartIn(env, x.Chart))
			h := object.NewMap()
			if hs := x.Helm; hs != nil {
				setNonZero(h, "releaseName", hs.ReleaseName)
				setList(h, "parameters", hs.Parameters, parameter)
				setNonZero(h, "skipCrds", hs.SkipCrds)
			}
			h.SetIf(len(x.Values) > 0, "valuesObject", x.Values)
			src.SetIf(h.Len() > 0, "helm", h)
			return src
		}
		repo, rev := x.RepoURL, x.Revision
		switch {
		case repo == "":
			repo, rev = r.spec.Platform.RepoURL, cmp.Or(rev, env.Revision)
		case rev == "":
			rev = "HEAD"
		}
		src := object.NewMap().Set("repoURL", repo).Set("targetRevision", rev).Set("path", x.Dir)
		if x.Directory != nil {
			src.Set("directory", directoryOptions(x.Directory))
		}
		return src
	})
}

// setChartSources sets the source, or sources, of a module that syncs a
// chart: the chart, its values files' repository, its manifests.
func (r *renderer) setChartSources(env *model.Environment, m *model.Module, spec *object.Map) {
	chart := r.chartSource(env, m)
	h := m.HelmIn(env)
	if len(ValueFiles(m, h)) == 0 && m.Manifests == "" && len(m.ExtraSourcesIn(env)) == 0 {
		spec.Set("source", chart)
		return
	}
	sources := []any{chart}
	if len(ValueFiles(m, h)) > 0 {
		repo, rev := r.spec.Platform.RepoURL, env.Revision
		if vr := h.ValuesRepo; vr != nil {
			repo, rev = vr.RepoURL, vr.TargetRevision
		}
		sources = append(sources, object.NewMap().
			Set("repoURL", repo).
			Set("targetRevision", rev).
			Set("ref", argocd.ValuesRef))
	}
	if m.Manifests != "" {
		sources = append(sources, r.gitSource(env, m.Manifests))
	}
	spec.Set("sources", append(sources, r.extraSources(env, m)...))
}

// ValueFiles are a chart module's values files, of its helm options h
// (Module.HelmIn), as its Application names them: $values/<path> of this
// repository. A chart of this repository (a path module) names them from
// its folder, as Argo CD resolves the values files of a source that reads
// the repository they are in.
func ValueFiles(m *model.Module, h *model.Helm) []string {
	if h == nil || len(h.ValueFiles) == 0 {
		return nil
	}
	out := make([]string, len(h.ValueFiles))
	for i, f := range h.ValueFiles {
		if m.Kind.Info().Syncs == model.SyncsRepoFolder {
			out[i] = argocd.RelativePath(m.Dir, f)
		} else {
			out[i] = "$" + argocd.ValuesRef + "/" + f
		}
	}
	return out
}

// helm is the helm field of a chart module's source, or of a path
// module's whose folder is a chart, or nil.
func (r *renderer) helm(env *model.Environment, m *model.Module) *object.Map {
	values := r.values(env, m)
	hs := m.HelmIn(env)
	if hs == nil && len(values) == 0 {
		return nil
	}
	h := object.NewMap()
	if hs != nil {
		setNonZero(h, "releaseName", hs.ReleaseName)
		if vf := ValueFiles(m, hs); len(vf) > 0 {
			h.Set("valueFiles", vf)
		}
		setNonZero(h, "ignoreMissingValueFiles", hs.IgnoreMissingValueFiles)
		setList(h, "parameters", hs.Parameters, parameter)
		setNonZero(h, "passCredentials", hs.PassCredentials)
		setNonZero(h, "skipCrds", hs.SkipCrds)
	}
	if len(values) > 0 {
		// valuesObject, never values: Argo CD drops values when both are
		// set, and valuesObject takes precedence over every values file.
		h.Set("valuesObject", values)
	}
	if h.Len() == 0 {
		return nil
	}
	return h
}

// parameter is an entry of a source's helm.parameters.
func parameter(p *model.HelmParameter) any {
	pm := object.NewMap().Set("name", p.Name).Set("value", p.Value)
	setNonZero(pm, "forceString", p.ForceString)
	return pm
}

func kustomizeOptions(k *model.Kustomize) *object.Map {
	out := object.NewMap()
	setNonZero(out, "namePrefix", k.NamePrefix)
	setNonZero(out, "nameSuffix", k.NameSuffix)
	out.SetIf(len(k.Images) > 0, "images", k.Images)
	if len(k.CommonLabels) > 0 {
		out.Set("commonLabels", argocd.StringMap(k.CommonLabels))
	}
	if len(k.CommonAnnotations) > 0 {
		out.Set("commonAnnotations", argocd.StringMap(k.CommonAnnotations))
	}
	setList(out, "patches", k.Patches, func(p *model.KustomizePatch) any {
		pm := object.NewMap().Set("patch", p.Patch)
		if t := p.Target; t != nil {
			tm := object.NewMap()
			for _, f := range []struct{ k, v string }{{"group", t.Group}, {"version", t.Version}, {"kind", t.Kind}, {"name", t.Name},
				{"namespace", t.Namespace}, {"labelSelector", t.LabelSelector}, {"annotationSelector", t.AnnotationSelector}} {
				setNonZero(tm, f.k, f.v)
			}
			pm.Set("target", tm)
		}
		return pm
	})
	return out
}

// setSync sets a module's Application's syncPolicy, ignoreDifferences and
// revisionHistoryLimit.
func (r *renderer) setSync(env *model.Environment, m *model.Module, spec *object.Map, options []string) {
	ids := m.IgnoreDifferencesIn(env)
	key := syncKey{module: m, sync: m.SyncIn(env), respect: argocd.RespectsIgnoreDifferences(ids, m.RespectIgnoreDifferences), options: strings.Join(options, "\x00")}
	r.syncMu.Lock()
	policy, made := r.syncPolicies[key]
	if !made {
		var ns *model.NamespaceMetadata
		if m.CreateNamespaceIn(env) && m.Kind.Namespaced() {
			ns = m.NamespaceMetadata
		}
		policy = argocd.SyncPolicyFor(key.sync, options, key.respect, ns)
		r.syncPolicies[key] = policy
	}
	r.syncMu.Unlock()
	argocd.SetSync(spec, policy, ids, m.RevisionHistoryLimit)
}

// projectFields sets an AppProject's extended fields (model.ProjectFields),
// after the lists render sets before them.
func projectFields(spec *object.Map, p *model.Project) {
	f := &p.ProjectFields
	setList(spec, "clusterResourceBlacklist", f.ClusterResourceBlacklist, groupKind)
	if f.HasNamespaceWhitelist {
		spec.Set("namespaceResourceWhitelist", listOf(f.NamespaceResourceWhitelist, groupKind))
	}
	setList(spec, "roles", f.Roles, func(r *model.ProjectRole) any {
		rm := object.NewMap().Set("name", r.Name)
		setNonZero(rm, "description", r.Description)
		rm.SetIf(len(r.Policies) > 0, "policies", r.Policies)
		rm.SetIf(len(r.Groups) > 0, "groups", r.Groups)
		return rm
	})
	setList(spec, "syncWindows", f.SyncWindows, func(w *model.SyncWindow) any {
		wm := object.NewMap().Set("kind", w.Kind).Set("schedule", w.Schedule).Set("duration", w.Duration)
		setNonZero(wm, "timeZone", w.TimeZone)
		for _, l := range []struct {
			k string
			v []string
		}{{"applications", w.Applications}, {"namespaces", w.Namespaces}, {"clusters", w.Clusters}} {
			wm.SetIf(len(l.v) > 0, l.k, l.v)
		}
		setNonZero(wm, "manualSync", w.ManualSync)
		setNonZero(wm, "description", w.Description)
		return wm
	})
	if o := f.OrphanedResources; o != nil {
		om := object.NewMap()
		if o.Warn != nil {
			om.Set("warn", *o.Warn)
		}
		setList(om, "ignore", o.Ignore, func(k model.OrphanedKey) any {
			km := object.NewMap()
			setNonZero(km, "group", k.Group)
			setNonZero(km, "kind", k.Kind)
			setNonZero(km, "name", k.Name)
			return km
		})
		spec.Set("orphanedResources", om)
	}
	setList(spec, "signatureKeys", f.SignatureKeys, func(k string) any { return object.NewMap().Set("keyID", k) })
	setList(spec, "destinationServiceAccounts", f.DestinationServiceAccounts, func(d *model.DestinationServiceAccount) any {
		return object.NewMap().Set("server", d.Server).Set("namespace", d.Namespace).Set("defaultServiceAccount", d.DefaultServiceAccount)
	})
}

// setGeneratePaths sets Argo CD's manifest-generate-paths annotation on an
// Application, from what its sources read of this repository: each
// folder a source syncs, and each values file of this repository
// ($values/...), as absolute paths (Argo CD reads them from the root of
// every source of the repository, util/app/path.GetSourceRefreshPaths).
// A commit that touches none of them then refreshes nothing.
// An Application without a source in this repository gets none (the
// annotation only matters to the webhook of this repository), nor does
// one that syncs a kustomization whose reads are not known (it may read
// files anywhere) or a plugin, nor one that sets the annotation itself.
func (r *renderer) setGeneratePaths(meta, spec *object.Map) {
	if !r.spec.Platform.GeneratePaths {
		return
	}
	ann, _ := meta.Get("annotations").(*object.Map)
	if ann != nil && ann.Get(argocd.ManifestGeneratePaths) != nil {
		return
	}
	repo := r.spec.Platform.RepoURL
	var sources []*object.Map
	if s, ok := spec.Get("source").(*object.Map); ok {
		sources = append(sources, s)
	}
	if l, ok := spec.Get("sources").([]any); ok {
		for _, x := range l {
			if s, ok := x.(*object.Map); ok {
				sources = append(sources, s)
			}
		}
	}
	refs := map[string]bool{} // refs of sources of this repository
	var paths []string
	for _, s := range sources {
		if s.Get("repoURL") != repo {
			continue
		}
		if s.Get("plugin") != nil {
			return // a plugin may read any file of the repository
		}
		if ref, ok := s.Get("ref").(string); ok {
			refs[ref] = true
		}
		if p, ok := s.Get("path").(string); ok && p != "" {
			if r.info.KustomizationDirs[p] {
				// Kustomize may read beyond the folder: the
				// folders its build read, where known.
				var read []string
				ok := false
				if r.reads != nil {
					read, ok = r.reads(p)
				}
				if !ok {
					return
				}
				for _, d := range read {
					paths = append(paths, "/"+d)
				}
				continue
			}
			paths = append(paths, "/"+p)
			// A chart's file:// dependencies, which Argo CD's repo
			// server packs into it before it renders it.
			for _, d := range r.info.ChartDependencies[p] {
				paths = append(paths, "/"+d)
			}
		}
	}
	for _, s := range sources {
		helm, _ := s.Get("helm").(*object.Map)
		if helm == nil {
			continue
		}
		files, _ := helm.Get("valueFiles").([]string)
		dir, _ := s.Get("path").(string)
		for _, f := range files {
			ref, rest, ok := strings.Cut(strings.TrimPrefix(f, "$"), "/")
			switch {
			case strings.HasPrefix(f, "$") && ok && refs[ref]:
				paths = append(paths, "/"+rest)
			case !strings.HasPrefix(f, "$") && dir != "" && s.Get("repoURL") == repo:
				// An in-repo chart's values file, from its folder.
				paths = append(paths, "/"+path.Join(dir, f))
			}
		}
	}
	if len(paths) == 0 {
		return
	}
	if ann == nil {
		ann = object.NewMap()
		meta.Set("annotations", ann)
	}
	slices.Sort(paths)
	ann.Set(argocd.ManifestGeneratePaths, strings.Join(slices.Compact(paths), ";"))
}
