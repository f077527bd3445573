package verify

import (
	"fmt"
	"hash/maphash"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
)

// syncedObject is one object an Application syncs, with where it is written.
type syncedObject struct {
	group, kind, namespace, name string
	// clusterScoped: manifests.ClusterScoped knows the kind to be.
	clusterScoped bool
	// file and line (0 where not known) declare it.
	file string
	line int
}

// from is where the object is declared, file:line where known.
func (s syncedObject) from() string {
	if s.line > 0 {
		return fmt.Sprintf("%s:%d", s.file, s.line)
	}
	return s.file
}

func (s syncedObject) String() string {
	what := s.kind
	if s.group != "" {
		what = s.group + "/" + s.kind
	}
	if s.namespace != "" {
		return what + " " + s.namespace + "/" + s.name
	}
	return what + " " + s.name
}

// renderedFolder is the output-root folder an Application syncs, relative
// to the root, and its include; ok is false for a chart or source folder.
func (v *verifier) renderedFolder(a app) (dir, include string, ok bool) {
	dir, ok = strings.CutPrefix(str(a.obj, "spec", "source", "path"), v.in.Spec.Platform.OutDir+"/")
	if !ok || str(a.obj, "spec", "source", "repoURL") != v.in.Spec.Platform.RepoURL {
		return "", "", false
	}
	return dir, str(a.obj, "spec", "source", "directory", "include"), true
}

// syncedObjects lists what an Application syncs, as far as platc knows
// offline: the rendered files its include matches, and the objects of
// repository folders it syncs. A namespaced object with no namespace goes
// to the destination's. Chart output is not listed.
func (v *verifier) syncedObjects(env *model.Environment, a app) []syncedObject {
	dest := a.spec.Destination.Namespace
	object := func(apiVersion, kind, ns, name, file string, line int) syncedObject {
		s := syncedObject{group: manifests.Group(apiVersion), kind: kind, namespace: ns, name: name, file: file, line: line}
		if s.clusterScoped = manifests.ClusterScoped(apiVersion, kind); s.clusterScoped {
			s.namespace = ""
		} else if s.namespace == "" {
			s.namespace = dest
		}
		return s
	}
	var out []syncedObject
	if dir, include, ok := v.renderedFolder(a); ok {
		match := func(string) bool { return true }
		if include != "" {
			match = argocd.IncludeMatcher(include)
		}
		var files []int
		n := 0
		for _, fi := range v.folderIndex[dir] {
			f := v.in.Files[fi]
			if !f.Values && (f.Env == "" || f.Env == env.Name) && match(path.Base(f.Path)) {
				files = append(files, fi)
				n += len(f.Objects)
			}
		}
		out = make([]syncedObject, 0, n)
		for _, fi := range files {
			f := v.in.Files[fi]
			file := path.Join(v.in.Spec.Platform.OutDir, f.Path)
			for _, obj := range f.Objects {
				out = append(out, object(str(obj, "apiVersion"), str(obj, "kind"), str(obj, "metadata", "namespace"), str(obj, "metadata", "name"), file, 0))
			}
		}
		return out
	}
	if a.mod == nil || a.root || a.file == "kro" {
		return nil
	}
	for _, dir := range v.manifestsFolders(a.mod, env) {
		objs := v.in.Folders.build(dir).Objects
		out = slices.Grow(out, len(objs))
		for _, o := range objs {
			out = append(out, object(o.APIVersion, o.Kind, o.Namespace, o.Name, o.File, o.Line))
		}
	}
	return out
}

// renderedKinds checks the kinds platc renders into an Application's
// folder against its project, as Argo CD does before syncing: an instance
// kind the project's namespace lists do not permit is otherwise refused
// only at sync.
func (v *verifier) renderedKinds(env *model.Environment, a app, proj *project, synced []syncedObject) {
	if _, _, ok := v.renderedFolder(a); !ok {
		return
	}
	reported := map[string]bool{}
	for _, o := range synced {
		key := o.group + "/" + o.kind
		if reported[key] {
			continue
		}
		if proj.IsGroupKindPermitted(o.group, o.kind, o.name, !o.clusterScoped) {
			continue
		}
		reported[key] = true
		if proj.declared != nil {
			// One problem, at the project, however many Applications.
			if o.clusterScoped {
				v.affects(diag.ProjectKind, proj.declared.FieldPath("clusterResourceWhitelist"), a, env, "project %s does not allow the cluster-scoped kind %s (%s), which affects %s, syncing it: Argo CD refuses it at sync; add {group: %q, kind: %q} to %s", proj.Name, o.kind, o.from(), diag.Affected, o.group, o.kind, proj.fixPath("clusterResourceWhitelist"))
				continue
			}
			at := proj.declared.FieldPath("namespaceResourceWhitelist")
			if _, blacklisted := proj.NamespacedRefusal(o.group, o.kind); blacklisted {
				at = proj.declared.FieldPath("namespaceResourceBlacklist")
			}
			v.affects(diag.ProjectKind, at, a, env, "project %s does not allow kind %s (%s, %s), which affects %s, syncing it: Argo CD refuses it at sync; %s", proj.Name, o.kind, o, o.from(), diag.Affected, proj.namespacedKindFix(o.group, o.kind))
			continue
		}
		if o.clusterScoped {
			v.reportf(diag.ProjectKind, a.origin, "Application %q (%s) syncs the cluster-scoped kind %s (%s), which project %s does not allow: Argo CD refuses it at sync; add {group: %q, kind: %q} to %s", a.name(), where(a, env), o.kind, o.from(), proj.Name, o.group, o.kind, proj.fixPath("clusterResourceWhitelist"))
			continue
		}
		v.reportf(diag.ProjectKind, a.origin, "Application %q (%s) syncs %s (%s), whose kind %s project %s does not allow: Argo CD refuses it at sync; %s", a.name(), where(a, env), o, o.from(), o.kind, proj.Name, proj.namespacedKindFix(o.group, o.kind))
	}
}

// sharedObjects reports an object two Applications of one environment
// sync to the same cluster: Argo CD reports SharedResourceWarning on both
// and, with self-heal, they undo each other for ever. The Application
// later by name is blamed.
// objectKey is an object synced to a cluster: its destination, group,
// kind, namespace and name.
type objectKey struct {
	server, cluster, group, kind, namespace, name string
}

// objectHash hashes an object's key for sharedObjects (a test makes every
// key collide).
var objectHash = maphash.Comparable[objectKey]

func (v *verifier) sharedObjects(env *model.Environment, apps []app, synced [][]syncedObject) {
	// The first Application of each object, by a hash of its key (a table
	// of the keys themselves would be large); on a hash collision the
	// object is kept by its key.
	type first struct{ app, obj int32 }
	n := 0
	for _, objs := range synced {
		n += len(objs)
	}
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]first, n)
	var byKey map[objectKey]first
	keyOf := func(f first) objectKey {
		d, o := apps[f.app].spec.Destination, synced[f.app][f.obj]
		return objectKey{d.Server, d.Name, o.group, o.kind, o.namespace, o.name}
	}
	order := make([]int, len(apps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(apps[x].name(), apps[y].name()) })
	reported := map[string]bool{}
	for _, i := range order {
		a := apps[i]
		d := a.spec.Destination
		for j, o := range synced[i] {
			k := objectKey{d.Server, d.Name, o.group, o.kind, o.namespace, o.name}
			h := objectHash(seed, k)
			f, seen := byHash[h]
			if seen && keyOf(f) != k {
				if byKey == nil {
					byKey = map[objectKey]first{}
				}
				f, seen = byKey[k]
				if !seen {
					byKey[k] = first{int32(i), int32(j)}
					continue
				}
			}
			if !seen {
				byHash[h] = first{int32(i), int32(j)}
				continue
			}
			fa, fo := apps[f.app], synced[f.app][f.obj]
			if fa.name() == a.name() || reported[a.name()+"|"+fa.name()] {
				continue // one Application's own duplicates are manifests' to report
			}
			reported[a.name()+"|"+fa.name()] = true
			from := "both from " + o.from()
			if fo.from() != o.from() {
				from = fmt.Sprintf("%s from %s, %s from %s", fa.name(), fo.from(), a.name(), o.from())
			}
			v.reportf(diag.SharedResource, a.origin, "Applications %q and %q (%s) both sync %s (%s): Argo CD reports SharedResourceWarning and each sync takes it from the other; sync it from one module only", fa.name(), a.name(), where(a, env), o, from)
		}
	}
}
