package verify

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
)

// synced is one object an Application syncs, with where it is written.
type synced struct {
	group, kind, namespace, name string
	// clusterScoped is whether the kind is one manifests.ClusterScoped
	// knows to be.
	clusterScoped bool
	// from is the file (and line, where known) that declares it.
	from string
}

func (s synced) String() string {
	what := s.kind
	if s.group != "" {
		what = s.group + "/" + s.kind
	}
	if s.namespace != "" {
		return what + " " + s.namespace + "/" + s.name
	}
	return what + " " + s.name
}

// renderedFolder is the folder of the output root an Application syncs
// (as rendered, relative to the output root) and its include, or ok false
// where it syncs something else (a chart, a folder of sources).
func (v *verifier) renderedFolder(a app) (dir, include string, ok bool) {
	dir, repo := str(a.obj, "spec", "source", "path"), str(a.obj, "spec", "source", "repoURL")
	out := v.in.Spec.Platform.OutDir
	if repo != v.in.Spec.Platform.RepoURL || !strings.HasPrefix(dir, out+"/") {
		return "", "", false
	}
	return strings.TrimPrefix(dir, out+"/"), str(a.obj, "spec", "source", "directory", "include"), true
}

// syncedObjects lists what an Application syncs, where platc knows it
// offline: the objects platc renders in the folder of the output root it
// syncs (the files its include matches), and the objects of the folders
// of this repository it syncs (a repo-path module's, a chart's extra
// manifests). A namespaced object that names no namespace goes to the
// destination's. What a chart renders is not listed.
func (v *verifier) syncedObjects(env *model.Environment, a app) []synced {
	dest := a.spec.Destination.Namespace
	object := func(apiVersion, kind, ns, name, from string) synced {
		s := synced{group: manifests.Group(apiVersion), kind: kind, namespace: ns, name: name, from: from}
		if s.clusterScoped = manifests.ClusterScoped(apiVersion, kind); s.clusterScoped {
			s.namespace = ""
		} else if s.namespace == "" {
			s.namespace = dest
		}
		return s
	}
	var out []synced
	if dir, include, ok := v.renderedFolder(a); ok {
		match := func(string) bool { return true }
		if include != "" {
			match = argocd.IncludeMatcher(include)
		}
		for _, f := range v.in.Files {
			if f.Values || (f.Env != "" && f.Env != env.Name) || path.Dir(f.Path) != dir || !match(path.Base(f.Path)) {
				continue
			}
			for _, obj := range f.Objects {
				out = append(out, object(str(obj, "apiVersion"), str(obj, "kind"), str(obj, "metadata", "namespace"), str(obj, "metadata", "name"), path.Join(v.in.Spec.Platform.OutDir, f.Path)))
			}
		}
		return out
	}
	if a.mod == nil || a.root || a.file == "kro" {
		return nil
	}
	var dirs []string
	if a.mod.Kind == model.KindPath && !(v.in.Charts != nil && v.isHelmFolder(a.mod.Dir)) {
		dirs = append(dirs, a.spec.Sources[0].Path)
	}
	if a.mod.Kind == model.KindChart && a.mod.Manifests != "" {
		dirs = append(dirs, a.mod.Manifests)
	}
	for _, dir := range dirs {
		objs, _ := v.in.Folders.build(dir)
		for _, o := range objs {
			from := o.File
			if o.Line > 0 {
				from = fmt.Sprintf("%s:%d", o.File, o.Line)
			}
			out = append(out, object(o.APIVersion, o.Kind, o.Namespace, o.Name, from))
		}
	}
	return out
}

// renderedKinds checks the kinds platc renders into the folder an
// Application syncs (stack instances, ResourceGraphDefinitions, the
// Applications and AppProjects of an apps file) against its project, as
// Argo CD checks each object before it syncs it: an instance kind that
// the project's namespaceResourceWhitelist leaves out (or its blacklist
// names) is refused at sync, with nothing offline to say so otherwise.
func (v *verifier) renderedKinds(env *model.Environment, a app, proj *project) {
	if _, _, ok := v.renderedFolder(a); !ok {
		return
	}
	reported := map[string]bool{}
	for _, o := range v.syncedObjects(env, a) {
		key := o.group + "/" + o.kind
		if reported[key] {
			continue
		}
		if proj.IsGroupKindPermitted(o.group, o.kind, o.name, !o.clusterScoped) {
			continue
		}
		reported[key] = true
		if o.clusterScoped {
			v.errorf(a.origin, "Application %q (%s) syncs the cluster-scoped kind %s (%s), which project %s does not allow: Argo CD refuses it at sync; add {group: %q, kind: %q} to %s", a.name(), where(a, env), o.kind, o.from, proj.Name, o.group, o.kind, proj.fixPath("clusterResourceWhitelist"))
			continue
		}
		fix := "remove it from " + proj.fixPath("namespaceResourceBlacklist")
		if proj.Spec().NamespaceResourceWhitelist != nil {
			fix = fmt.Sprintf("add {group: %q, kind: %q} to %s", o.group, o.kind, proj.fixPath("namespaceResourceWhitelist"))
		}
		v.errorf(a.origin, "Application %q (%s) syncs %s (%s), whose kind %s project %s does not allow: Argo CD refuses it at sync; %s", a.name(), where(a, env), o, o.from, o.kind, proj.Name, fix)
	}
}

// sharedObjects reports an object that two Applications of one
// environment sync to the same cluster (two modules over one folder, a
// chart's extra manifests that another module also syncs, a path module
// over the output root): each sync takes it from the other, Argo CD
// reports SharedResourceWarning on both and, with self-heal, they undo
// each other for ever. The Application later by name is blamed.
func (v *verifier) sharedObjects(env *model.Environment, apps []app) {
	type owner struct {
		a app
		o synced
	}
	byObject := map[string]owner{}
	sorted := slices.Clone(apps)
	slices.SortStableFunc(sorted, func(x, y app) int { return strings.Compare(x.name(), y.name()) })
	reported := map[string]bool{}
	for _, a := range sorted {
		cluster := a.spec.Destination.Server + "|" + a.spec.Destination.Name
		for _, o := range v.syncedObjects(env, a) {
			key := cluster + "|" + o.group + "|" + o.kind + "|" + o.namespace + "|" + o.name
			first, seen := byObject[key]
			if !seen {
				byObject[key] = owner{a, o}
				continue
			}
			if first.a.name() == a.name() || reported[a.name()+"|"+first.a.name()] {
				continue // one Application's own duplicates are manifests' to report
			}
			reported[a.name()+"|"+first.a.name()] = true
			from := "both from " + o.from
			if first.o.from != o.from {
				from = fmt.Sprintf("%s from %s, %s from %s", first.a.name(), first.o.from, a.name(), o.from)
			}
			v.errorf(a.origin, "Applications %q and %q (%s) both sync %s (%s): Argo CD reports SharedResourceWarning and each sync takes it from the other; sync it from one module only", first.a.name(), a.name(), where(a, env), o, from)
		}
	}
}
