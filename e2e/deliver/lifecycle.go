package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// resource is one object an Application manages, as its status lists it.
type resource struct {
	Group, Version, Kind, Namespace, Name string
}

func (r resource) String() string {
	return fmt.Sprintf("%s %s", r.Kind, strings.TrimPrefix(r.Namespace+"/"+r.Name, "/"))
}

// managed lists the objects an Application manages (status.resources).
func (e *Env) managed(ctx context.Context, namespace, name string) ([]resource, error) {
	u, err := e.Cluster.Dynamic.Resource(appGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	items, _, _ := unstructured.NestedSlice(u.Object, "status", "resources")
	var out []resource
	for _, it := range items {
		m, _ := it.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, resource{str("group"), str("version"), str("kind"), str("namespace"), str("name")})
	}
	return out, nil
}

// get reads one object; nil when it does not exist.
func (e *Env) get(ctx context.Context, r resource) (*unstructured.Unstructured, error) {
	mapping, err := e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: r.Group, Kind: r.Kind}, r.Version)
	if err != nil {
		return nil, err
	}
	ri := e.Cluster.Dynamic.Resource(mapping.Resource)
	var u *unstructured.Unstructured
	if r.Namespace != "" {
		u, err = ri.Namespace(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
	} else {
		u, err = ri.Get(ctx, r.Name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

// until polls check every second until it says done or timeout passes.
func (e *Env) until(ctx context.Context, timeout time.Duration, check func() (bool, string, error)) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		done, note, err := check()
		if err != nil {
			return note, err
		}
		if done {
			return note, nil
		}
		if err := e.Cluster.Exited(); err != nil {
			return note, err
		}
		if time.Now().After(deadline) {
			return note, fmt.Errorf("not after %s: %s", timeout, note)
		}
		select {
		case <-ctx.Done():
			return note, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Prune removes a module from the spec (edit does it to the work copy's
// spec folder), renders, commits and refreshes, and checks that Argo CD
// deletes the module's Application and every object it managed.
func (e *Env) Prune(ctx context.Context, module string, edit func(specDir string) error) *Check {
	c := &Check{Name: "a module removed from the spec: its Application and objects pruned", Env: e.Name}
	start := time.Now()
	ns := e.Cluster.ArgoCDNamespace()
	objs, err := e.managed(ctx, ns, module)
	if err == nil && len(objs) == 0 {
		err = fmt.Errorf("Application %s manages no object", module)
	}
	if err == nil {
		err = edit(filepath.Join(e.Rig.Work, e.Rig.SpecDir))
	}
	if err == nil {
		err = e.Rig.RenderAndPublish("platform: remove " + module)
	}
	if err == nil {
		err = e.Refresh(ctx)
	}
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	note, err := e.until(ctx, 3*time.Minute, func() (bool, string, error) {
		if _, err := e.Cluster.Dynamic.Resource(appGVR).Namespace(ns).Get(ctx, module, metav1.GetOptions{}); err == nil {
			return false, "Application " + module + " still exists", nil
		} else if !apierrors.IsNotFound(err) {
			return false, "", err
		}
		for _, o := range objs {
			u, err := e.get(ctx, o)
			if err != nil {
				return false, "", err
			}
			if u != nil {
				return false, o.String() + " still exists", nil
			}
		}
		return true, "", nil
	})
	c.Seconds = time.Since(start).Seconds()
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.String())
	}
	c.Pass, c.Detail = true, fmt.Sprintf("Application %s and %s deleted%s", module, strings.Join(names, ", "), note)
	return c
}

// SelfHeal edits an object of a synced Application by hand (the replicas
// of its first Deployment, or else the data of its first ConfigMap) and
// checks that Argo CD puts back what Git says.
func (e *Env) SelfHeal(ctx context.Context, app string) *Check {
	c := &Check{Name: "an object edited by hand in the cluster: self-heal restores it", Env: e.Name}
	start := time.Now()
	objs, err := e.managed(ctx, e.Cluster.ArgoCDNamespace(), app)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	var target *resource
	var field []string
	for _, kind := range []string{"Deployment", "ConfigMap"} {
		for _, o := range objs {
			if o.Kind == kind && target == nil {
				o := o
				target = &o
			}
		}
		if target != nil {
			if kind == "Deployment" {
				field = []string{"spec", "replicas"}
			} else {
				field = []string{"data"}
			}
			break
		}
	}
	if target == nil {
		c.Detail = fmt.Sprintf("Application %s manages no Deployment or ConfigMap", app)
		return c
	}
	before, err := e.get(ctx, *target)
	if err != nil || before == nil {
		c.Detail = fmt.Sprintf("%s: %v", target, err)
		return c
	}
	want, _, _ := unstructured.NestedFieldCopy(before.Object, field...)
	var patch map[string]any
	if field[0] == "spec" {
		replicas, _ := want.(int64)
		patch = map[string]any{"spec": map[string]any{"replicas": replicas + 2}}
	} else {
		patch = map[string]any{"data": map[string]any{"edited-by-hand": "true"}}
	}
	data, _ := json.Marshal(patch)
	mapping, err := e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: target.Group, Kind: target.Kind}, target.Version)
	if err == nil {
		_, err = e.Cluster.Dynamic.Resource(mapping.Resource).Namespace(target.Namespace).Patch(ctx, target.Name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: "kubectl-edit"})
	}
	if err != nil {
		c.Detail = fmt.Sprintf("edit %s: %v", target, err)
		return c
	}
	_, err = e.until(ctx, 2*time.Minute, func() (bool, string, error) {
		u, err := e.get(ctx, *target)
		if err != nil || u == nil {
			return false, fmt.Sprintf("%s: %v", target, err), nil
		}
		have, _, _ := unstructured.NestedFieldCopy(u.Object, field...)
		if fmt.Sprint(have) != fmt.Sprint(want) {
			return false, fmt.Sprintf("%s %s is %v, Git says %v", target, strings.Join(field, "."), have, want), nil
		}
		return true, "", nil
	})
	c.Seconds = time.Since(start).Seconds()
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	c.Pass, c.Detail = true, fmt.Sprintf("%s %s edited by hand, restored to %v", target, strings.Join(field, "."), want)
	return c
}

// RenderAndPublish runs platc render in the work copy and publishes it.
func (r *Rig) RenderAndPublish(message string) error {
	if _, _, err := r.Platc("render"); err != nil {
		return err
	}
	if err := r.Check(); err != nil {
		return err
	}
	_, err := r.Publish(message)
	return err
}

// RemoveBlock removes the field name of a struct from a CUE file: the
// line that opens it (`<indent>"name": {` or `<indent>name: {`) through
// the line that closes it at the same indent. It edits test fixtures, not
// any CUE: a field written otherwise is an error.
func RemoveBlock(file, name string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, "\t ")
		indent := l[:len(l)-len(trimmed)]
		if !strings.HasPrefix(trimmed, `"`+name+`": {`) && !strings.HasPrefix(trimmed, name+": {") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == indent+"}\n" {
				out := strings.Join(append(lines[:i:i], lines[j+1:]...), "")
				return os.WriteFile(file, []byte(out), 0o644)
			}
		}
	}
	return fmt.Errorf("%s: no block %s", file, name)
}

// Release makes the release tag with platc release in the work copy,
// commits and tags it, moves the pinned environment's root to it (applies
// its root Application as the new commit has it, as its operator
// would), refreshes every environment, and checks that the pinned one
// converges to the tag (each Application of the platform's repository
// targets it and is synced to its commit) while each other stays on its
// revision, now at the new commit.
func Release(ctx context.Context, tag string, pinned *Env, others ...*Env) *Check {
	r := pinned.Rig
	c := &Check{Name: "a release moves the pinned environment, and only it, to the tag", Env: pinned.Name}
	start := time.Now()
	fail := func(err error) *Check { c.Detail = err.Error(); return c }
	if _, _, err := r.Platc("release", tag); err != nil {
		return fail(err)
	}
	if err := r.Check(); err != nil {
		return fail(err)
	}
	commit, err := r.Publish("platform: release " + tag)
	if err != nil {
		return fail(err)
	}
	if err := r.Platform.Tag(tag); err != nil {
		return fail(err)
	}
	if err := pinned.ApplyRoot(ctx); err != nil {
		return fail(err)
	}
	for _, e := range append([]*Env{pinned}, others...) {
		if err := e.Refresh(ctx); err != nil {
			return fail(err)
		}
	}
	var notes []string
	for _, e := range append([]*Env{pinned}, others...) {
		want := tag
		if e != pinned {
			want = r.Spec.Environment(e.Name).Revision
		}
		note, err := e.until(ctx, 4*time.Minute, func() (bool, string, error) {
			// A person syncs the release where Argo CD will not.
			if err := e.syncByHand(ctx, e.apps()); err != nil {
				return false, "", err
			}
			return e.onRevision(ctx, want, commit)
		})
		if err != nil {
			return fail(fmt.Errorf("%s: %w", e.Name, err))
		}
		notes = append(notes, e.Name+": "+note)
	}
	c.Seconds = time.Since(start).Seconds()
	c.Pass, c.Detail = true, strings.Join(notes, "; ")
	return c
}

// onRevision reports whether every Application whose sources are in the
// platform's repository targets revision and is synced to commit.
func (e *Env) onRevision(ctx context.Context, revision, commit string) (bool, string, error) {
	list, err := e.Cluster.Dynamic.Resource(appGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, "", err
	}
	url := e.Rig.Platform.FileURL()
	verdicts := map[string]string{}
	for _, a := range e.apps() {
		verdicts[a.Namespace+"/"+a.Name] = a.Verdict
	}
	n := 0
	for _, u := range list.Items {
		// What cannot sync here for want of a chart is held only to
		// target the revision.
		cannot := verdicts[u.GetNamespace()+"/"+u.GetName()] == VerdictUnreachable || verdicts[u.GetNamespace()+"/"+u.GetName()] == VerdictBlocked
		var sources []any
		if s, ok, _ := unstructured.NestedMap(u.Object, "spec", "source"); ok {
			sources = append(sources, s)
		}
		ss, _, _ := unstructured.NestedSlice(u.Object, "spec", "sources")
		sources = append(sources, ss...)
		revs, _, _ := unstructured.NestedStringSlice(u.Object, "status", "sync", "revisions")
		if rev, _, _ := unstructured.NestedString(u.Object, "status", "sync", "revision"); rev != "" {
			revs = []string{rev}
		}
		for i, s := range sources {
			m, _ := s.(map[string]any)
			if m["repoURL"] != url {
				continue
			}
			n++
			if m["targetRevision"] != revision {
				return false, fmt.Sprintf("%s/%s targets %v", u.GetNamespace(), u.GetName(), m["targetRevision"]), nil
			}
			if cannot {
				continue
			}
			if i >= len(revs) || revs[i] != commit {
				have := ""
				if i < len(revs) {
					have = revs[i]
				}
				return false, fmt.Sprintf("%s/%s is at %.12s, not %.12s", u.GetNamespace(), u.GetName(), have, commit), nil
			}
			sync, _, _ := unstructured.NestedString(u.Object, "status", "sync", "status")
			if sync != "Synced" {
				return false, fmt.Sprintf("%s/%s is %s", u.GetNamespace(), u.GetName(), sync), nil
			}
		}
	}
	return true, fmt.Sprintf("%d Applications on %s (%.12s)", n, revision, commit), nil
}

// lastSync is an Application's last sync: when it finished and to what.
type lastSync struct {
	finished, phase string
	revisions       string
	reconciled      string
}

func (e *Env) lastSyncs(ctx context.Context) (map[string]lastSync, error) {
	list, err := e.Cluster.Dynamic.Resource(appGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]lastSync{}
	for _, u := range list.Items {
		var s lastSync
		s.finished, _, _ = unstructured.NestedString(u.Object, "status", "operationState", "finishedAt")
		s.phase, _, _ = unstructured.NestedString(u.Object, "status", "operationState", "phase")
		s.reconciled, _, _ = unstructured.NestedString(u.Object, "status", "reconciledAt")
		revs, _, _ := unstructured.NestedStringSlice(u.Object, "status", "operationState", "syncResult", "revisions")
		if rev, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "syncResult", "revision"); rev != "" {
			revs = append(revs, rev)
		}
		s.revisions = strings.Join(revs, ",")
		out[u.GetNamespace()+"/"+u.GetName()] = s
	}
	return out, nil
}

// ClientChange writes a file of a client's own values repository (write
// edits the repository's work copy), commits it and refreshes, and checks
// that the Applications kro made for the client's instances, and only
// they, sync again: each of them syncs the new commit, and every other
// Application, compared again since, keeps its last sync.
func (e *Env) ClientChange(ctx context.Context, client string, write func(dir string) error) *Check {
	c := &Check{Name: "a client's values file changed in its own repository: only its Applications change", Env: e.Name}
	start := time.Now()
	fail := func(err error) *Check { c.Detail = err.Error(); return c }
	repo := e.Rig.ClientRepo(client)
	if repo == nil {
		return fail(fmt.Errorf("client %s has no repository of its own", client))
	}
	mine := map[string]bool{}
	for _, a := range e.apps() {
		if _, name, ok := strings.Cut(a.Parent, "/"); ok && name == client {
			mine[a.Namespace+"/"+a.Name] = true
		}
	}
	if len(mine) == 0 {
		return fail(fmt.Errorf("no Application of client %s", client))
	}
	before, err := e.lastSyncs(ctx)
	if err != nil {
		return fail(err)
	}
	if err := write(repo.Work); err != nil {
		return fail(err)
	}
	if _, err := e.Rig.Publish("client " + client + ": change its values"); err != nil {
		return fail(err)
	}
	commit, err := repo.Head()
	if err != nil {
		return fail(err)
	}
	refreshed := time.Now().UTC().Truncate(time.Second)
	if err := e.Refresh(ctx); err != nil {
		return fail(err)
	}
	_, err = e.until(ctx, 3*time.Minute, func() (bool, string, error) {
		now, err := e.lastSyncs(ctx)
		if err != nil {
			return false, "", err
		}
		for key, s := range now {
			if mine[key] {
				if s.finished == before[key].finished || s.phase != "Succeeded" || !strings.Contains(s.revisions, commit) {
					return false, fmt.Sprintf("%s has not synced %.12s", key, commit), nil
				}
				continue
			}
			if reconciled, err := time.Parse(time.RFC3339, s.reconciled); err != nil || reconciled.Before(refreshed) {
				return false, key + " not compared again since the change", nil
			}
			if s.finished != before[key].finished {
				return false, fmt.Sprintf("%s synced again (%s), not being the client's", key, s.revisions), nil
			}
		}
		return true, "", nil
	})
	c.Seconds = time.Since(start).Seconds()
	if err != nil {
		return fail(err)
	}
	var names []string
	for key := range mine {
		names = append(names, key)
	}
	slices.Sort(names)
	c.Pass, c.Detail = true, fmt.Sprintf("%s synced %.12s of %s's repository; %d other Applications compared again and unchanged", strings.Join(names, ", "), commit, client, len(before)-len(mine))
	return c
}
