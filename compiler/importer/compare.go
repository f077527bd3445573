package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/object"
)

// Status is how an object came out of the round trip.
type Status int

const (
	Equal       Status = iota // rendered as Argo CD reads the original
	Differs                   // rendered, with the fields in Result.Fields changed
	NotImported               // not in the spec: Result.Reason says why
)

func (s Status) String() string {
	return [...]string{"equal", "differs", "not imported"}[s]
}

// Result is one original object's outcome.
type Result struct {
	Env, Kind, Name string
	Where           string // file:line of the original
	Status          Status
	Fields          []string // the paths that differ (Differs)
	Reason          string   // why (NotImported)
}

// maxFields is how many differing paths a Result names.
const maxFields = 8

// Compare compares each imported object with the object of its kind and
// name the spec renders in its environment (rendered: each environment's
// objects), as Argo CD reads both: its defaults filled, equivalent
// spellings made one (values text and valuesObject, the order of sync
// options and finalizers, a sync wave of 0, false and empty fields, the
// place of a source that only names a ref). The
// objects not imported are results too. Results are sorted by
// environment, kind and name.
func Compare(s *Spec, rendered map[string][]map[string]any) []Result {
	byKey := map[string]map[string]any{}
	for env, objs := range rendered {
		for _, o := range objs {
			byKey[env+"/"+str(o["kind"])+"/"+str(object.Lookup(o, "metadata", "name"))] = o
		}
	}
	var out []Result
	for _, o := range s.Imported {
		r := Result{Env: o.Env, Kind: o.Kind, Name: o.Name, Where: o.Where()}
		got := byKey[o.Env+"/"+o.Kind+"/"+o.Name]
		if got == nil || s.Failed != "" {
			r.Status, r.Reason = NotImported, cmp.Or(s.Failed, "the spec does not render it")
			out = append(out, r)
			continue
		}
		want := Normalize(o.Body, s.ArgoCDNamespace)
		have := Normalize(got, s.ArgoCDNamespace)
		if fields := diffPaths("", want, have); len(fields) > 0 {
			r.Status, r.Fields = Differs, fields
			if len(fields) > maxFields {
				r.Fields = append(fields[:maxFields:maxFields], fmt.Sprintf("and %d more", len(fields)-maxFields))
			}
		}
		out = append(out, r)
	}
	for _, k := range s.NotImported {
		out = append(out, Result{Env: k.Env, Kind: k.Kind, Name: k.Name, Where: k.Where(), Status: NotImported, Reason: k.Reason})
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.Env, b.Env), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Where, b.Where))
	})
	return out
}

// projectWave is the sync wave platc gives every AppProject, so that a
// sync creates it before the Applications that name it (which Argo CD
// refuses while their project does not exist). It is not counted as a
// difference: an AppProject written without it works only where it
// exists before its Applications are synced.
const projectWave = "-1"

// Normalize is an Application or AppProject as Argo CD reads it, for
// comparison: plain JSON values; metadata reduced to name, namespace (the
// Argo CD namespace where none is written), labels, annotations (less a
// sync wave of 0) and finalizers (sorted); helm.values text merged under
// valuesObject; sync options sorted; targetRevision "" read as HEAD; and
// false, empty and null fields dropped outside Helm values (Argo CD's
// defaults). Status and operation are not compared.
func Normalize(obj map[string]any, argocdNamespace string) map[string]any {
	v, _ := plainJSON(obj).(map[string]any)
	if v == nil {
		return nil
	}
	out := map[string]any{"apiVersion": v["apiVersion"], "kind": v["kind"]}
	meta, _ := v["metadata"].(map[string]any)
	m := map[string]any{"name": meta["name"], "namespace": cmp.Or(str(meta["namespace"]), argocdNamespace)}
	for _, k := range []string{"labels", "annotations"} {
		if x, ok := meta[k].(map[string]any); ok && len(x) > 0 {
			x = maps.Clone(x)
			if k == "annotations" && (fmt.Sprint(x[argocd.SyncWave]) == "0" || v["kind"] == "AppProject" && x[argocd.SyncWave] == projectWave) {
				delete(x, argocd.SyncWave)
			}
			if len(x) > 0 {
				m[k] = x
			}
		}
	}
	if f := anyList(meta["finalizers"]); len(f) > 0 {
		f = slices.Clone(f)
		slices.SortFunc(f, func(a, b any) int { return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		m["finalizers"] = f
	}
	out["metadata"] = m
	if spec, ok := v["spec"].(map[string]any); ok {
		spec = maps.Clone(spec)
		if v["kind"] == "Application" {
			if str(spec["project"]) == "" {
				spec["project"] = argocd.DefaultProjectName
			}
			if l := anyList(spec["sources"]); len(l) > 0 {
				spec["sources"] = splitRefs(l)
			}
			if l := anyList(spec["sources"]); len(l) == 2 {
				// A chart kept in Git whose values files name its own
				// repository and revision by a ref reads the files it
				// would read from its folder: the one source.
				var folder, values map[string]any
				for _, x := range l {
					m, _ := x.(map[string]any)
					switch {
					case str(m["ref"]) != "" && str(m["path"]) == "" && str(m["chart"]) == "":
						values = m
					case str(m["ref"]) == "" && str(m["chart"]) == "" && str(m["path"]) != "":
						folder = m
					}
				}
				if folder != nil && values != nil {
					if src, ok := refValuesFromFolder(folder, values); ok {
						spec["sources"] = []any{src}
					}
				}
			}
			if l := anyList(spec["sources"]); len(l) == 1 {
				// One source without a ref is read as source is (the
				// Application's GetSource): the same manifests.
				if src, ok := l[0].(map[string]any); ok && str(src["ref"]) == "" {
					spec["source"] = src
					delete(spec, "sources")
				}
			}
			if src, ok := spec["source"].(map[string]any); ok {
				spec["source"] = normalSource(src)
			}
			if l := anyList(spec["sources"]); len(l) > 0 {
				srcs := make([]any, len(l))
				for i, x := range l {
					src, _ := x.(map[string]any)
					srcs[i] = normalSource(src)
				}
				// A source that only names a ref (values files' repository)
				// renders nothing: where it stands changes no manifest.
				refOnly := func(x any) int {
					src, _ := x.(map[string]any)
					if str(src["ref"]) != "" && str(src["path"]) == "" && str(src["chart"]) == "" {
						return 1
					}
					return 0
				}
				slices.SortStableFunc(srcs, func(a, b any) int { return refOnly(a) - refOnly(b) })
				spec["sources"] = srcs
			}
			if sp, ok := spec["syncPolicy"].(map[string]any); ok {
				sp = maps.Clone(sp)
				if o := anyList(sp["syncOptions"]); len(o) > 0 {
					o = slices.Clone(o)
					if len(anyList(spec["ignoreDifferences"])) == 0 {
						// Without fields to ignore, it does nothing.
						o = slices.DeleteFunc(o, func(x any) bool { return x == argocd.RespectIgnoreDifferences })
					}
					// An option that says its default is none.
					o = slices.DeleteFunc(o, func(x any) bool { return defaultSyncOptions[fmt.Sprint(x)] })
					slices.SortFunc(o, func(a, b any) int { return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
					sp["syncOptions"] = o
				}
				if a, ok := sp["automated"]; ok && a == nil {
					sp["automated"] = map[string]any{"enabled": true}
				}
				if a, ok := sp["automated"].(map[string]any); ok {
					a = maps.Clone(a)
					if a["enabled"] == false {
						delete(sp, "automated")
					} else {
						a["enabled"] = true // automated is on unless it says enabled: false
						sp["automated"] = a
					}
				}
				spec["syncPolicy"] = sp
			}
		}
		if s := prune(spec); s != nil {
			out["spec"] = s
		}
	}
	return out
}

// splitRefs reads a source that renders a chart or a folder and is also
// a ref for values files as two, as Argo CD uses it: the ref alone, which
// renders nothing, then the source without it.
func splitRefs(list []any) []any {
	both := func(x any) bool {
		m, _ := x.(map[string]any)
		return str(m["ref"]) != "" && (str(m["path"]) != "" || str(m["chart"]) != "")
	}
	if !slices.ContainsFunc(list, both) {
		return list
	}
	out := make([]any, 0, len(list)+1)
	for _, x := range list {
		if m, _ := x.(map[string]any); both(x) {
			ref := map[string]any{"repoURL": m["repoURL"], "ref": m["ref"]}
			if rev, ok := m["targetRevision"]; ok {
				ref["targetRevision"] = rev
			}
			rest := maps.Clone(m)
			delete(rest, "ref")
			out = append(out, ref, rest)
			continue
		}
		out = append(out, x)
	}
	return out
}

// defaultSyncOptions are the sync options of an Application that say
// what Argo CD does without them: its controller asks for an option's
// other value only (CreateNamespace=true, Validate=false, ...: controller/
// sync.go), so these change nothing.
var defaultSyncOptions = map[string]bool{
	"CreateNamespace=false": true, "Validate=true": true, "PruneLast=false": true,
	"Replace=false": true, "Force=false": true, "ServerSideApply=false": true,
	"ApplyOutOfSyncOnly=false": true, "RespectIgnoreDifferences=false": true,
	"FailOnSharedResource=false": true, "SkipDryRunOnMissingResource=false": true,
	"PrunePropagationPolicy=foreground": true, "ClientSideApplyMigration=true": true,
}

func normalSource(src map[string]any) map[string]any {
	src = maps.Clone(src)
	if str(src["targetRevision"]) == "" {
		src["targetRevision"] = "HEAD"
	}
	if str(src["chart"]) == "" && !strings.HasPrefix(str(src["repoURL"]), "oci://") {
		// A Git source: its repository as Argo CD matches repositories
		// (git.SameURL: case, .git), and its folder as the repo server
		// joins it to the clone ("./apps/", "apps/" and "apps" are one
		// folder; "", "." and "./" the root).
		if u := argocd.NormalizeGitURL(str(src["repoURL"])); u != "" {
			src["repoURL"] = u
		}
		if p, ok := src["path"].(string); ok {
			if p = path.Clean(p); p == "." {
				delete(src, "path")
			} else {
				src["path"] = p
			}
		}
	}
	if h, ok := src["helm"].(map[string]any); ok {
		h = maps.Clone(h)
		values, _ := helmValues(h)
		delete(h, "values")
		delete(h, "valuesObject")
		if v := str(h["version"]); v == "v3" || v == "3" {
			// Argo CD renders with Helm 3 (and later) only since
			// Helm 2 was removed: "v3" is what it does anyway.
			delete(h, "version")
		}
		if len(values) > 0 {
			h["valuesObject"] = plainJSON(values) // numbers as JSON reads them, as the rest
		}
		src["helm"] = h
	}
	return src
}

// prune drops false, empty and null fields, except inside Helm values,
// where they mean what they say; it returns nil for a value left empty.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "valuesObject" {
				if m, ok := e.(map[string]any); ok && len(m) > 0 {
					out[k] = e
				}
				continue
			}
			if p := prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = prune(e)
		}
		return out
	case bool:
		if !x {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	case nil:
		return nil
	}
	return v
}

// diffPaths lists the paths at which a and b differ, sorted.
func diffPaths(at string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		keys := slices.AppendSeq(slices.Collect(maps.Keys(am)), maps.Keys(bm))
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			p := k
			if at != "" {
				p = at + "." + k
			}
			out = append(out, diffPaths(p, am[k], bm[k])...)
		}
		return out
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) && !strings.HasSuffix(at, "valuesObject") {
		var out []string
		for i := range al {
			out = append(out, diffPaths(fmt.Sprintf("%s[%d]", at, i), al[i], bl[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{at}
}

// equalValues reports whether two values of a module's fields are the
// same.
func equalValues(a, b any) bool {
	return reflect.DeepEqual(plainJSON(a), plainJSON(b))
}

func plainJSON(v any) any {
	var out any
	b, err := json.Marshal(object.Plain(v))
	if err != nil || json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
