// Package diff compares two renders object by object: which Applications,
// AppProjects, ResourceGraphDefinitions and stack instances were added,
// removed or changed, with the changed field paths and their values. It
// answers "what changes in my cluster between releases?" without a text
// diff's noise: key order and formatting never show, and named list items
// are matched by name. Finding the files is the caller's job.
package diff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
)

// Object is one object of a render and where it belongs.
type Object struct {
	Env       string // the environment; empty for what every environment shares
	Kind      string
	Namespace string
	Name      string
	Client    string // the client of a stack instance
	// App is the Application whose chart renders the object (platc diff
	// -manifests); empty for an object of the render itself.
	App  string
	Data map[string]any
}

func (o Object) key() string {
	return o.Env + "\x00" + o.App + "\x00" + o.Kind + "\x00" + o.Namespace + "\x00" + o.Name
}

// Objects reads the objects of a render: every YAML document of the
// generated files under outDir (files are by path, relative to the
// repository root). The direct-apply plan and its values are not objects.
func Objects(files map[string][]byte, outDir string) ([]Object, error) {
	var out []Object
	for _, p := range slices.Sorted(maps.Keys(files)) {
		rel, ok := strings.CutPrefix(p, outDir+"/")
		if !ok || !strings.HasSuffix(p, ".yaml") || strings.HasPrefix(rel, render.DirectApplyRoot+"/") {
			continue
		}
		for i, doc := range bytes.Split(files[p], []byte("\n---\n")) {
			var data map[string]any
			if err := yaml.Unmarshal(doc, &data); err != nil {
				return nil, fmt.Errorf("%s: document %d: %v", p, i+1, err)
			}
			if data == nil {
				continue
			}
			o := Object{Data: data, Env: envOf(rel, data)}
			o.Kind, _ = data["kind"].(string)
			o.Name, _ = object.Lookup(data, "metadata", "name").(string)
			o.Namespace, _ = object.Lookup(data, "metadata", "namespace").(string)
			switch o.Kind {
			case "Application", "AppProject", "ResourceGraphDefinition":
			default:
				o.Client = o.Name // a stack instance is named after its client
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// envOf finds an object's environment from its file (render.ClusterDir),
// or, for a root Application, from the folder it syncs.
func envOf(rel string, data map[string]any) string {
	if rest, ok := strings.CutPrefix(rel, render.ClustersDir+"/"); ok {
		env, _, _ := strings.Cut(rest, "/")
		return env
	}
	if strings.HasPrefix(rel, render.RootAppsDir+"/") {
		p, _ := object.Lookup(data, "spec", "source", "path").(string)
		return path.Base(p)
	}
	return ""
}

// Status says what happened to an object.
type Status string

// The statuses of an ObjectDiff.
const (
	Added   Status = "added"
	Removed Status = "removed"
	Changed Status = "changed"
)

// Change is one field that differs. Old or New is absent (nil, with the
// Has flag false) where the field was added or removed.
type Change struct {
	Path   string `json:"path"`
	Old    any    `json:"old,omitempty"`
	New    any    `json:"new,omitempty"`
	HasOld bool   `json:"hasOld"`
	HasNew bool   `json:"hasNew"`
}

// ObjectDiff is one object that differs between two renders.
type ObjectDiff struct {
	Env       string   `json:"environment"`
	App       string   `json:"application,omitempty"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name"`
	Status    Status   `json:"status"`
	Changes   []Change `json:"changes,omitempty"`
}

// Filter keeps the objects of an environment and of a client; an empty
// filter keeps all.
type Filter struct {
	Env, Client string
}

func (f Filter) keep(o Object) bool {
	return (f.Env == "" || o.Env == f.Env || o.Env == "") && (f.Client == "" || o.Client == f.Client)
}

// Diff compares two renders. The result is sorted by environment (shared
// objects first), kind, namespace and name.
func Diff(old, new []Object, f Filter) []ObjectDiff {
	olds := map[string]Object{}
	for _, o := range old {
		if f.keep(o) {
			olds[o.key()] = o
		}
	}
	var out []ObjectDiff
	seen := map[string]bool{}
	for _, n := range new {
		if !f.keep(n) {
			continue
		}
		seen[n.key()] = true
		d := ObjectDiff{Env: n.Env, App: n.App, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name}
		o, ok := olds[n.key()]
		if !ok {
			d.Status = Added
			out = append(out, d)
			continue
		}
		if d.Changes = fields("", o.Data, n.Data); len(d.Changes) > 0 {
			d.Status = Changed
			out = append(out, d)
		}
	}
	for k, o := range olds {
		if !seen[k] {
			out = append(out, ObjectDiff{Env: o.Env, App: o.App, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Status: Removed})
		}
	}
	slices.SortFunc(out, func(a, b ObjectDiff) int {
		return cmp.Or(strings.Compare(a.Env, b.Env), strings.Compare(a.App, b.App), cmp.Compare(kindRank[b.Kind], kindRank[a.Kind]), strings.Compare(a.Kind, b.Kind),
			strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out
}

// kindRank puts ResourceGraphDefinitions first, then AppProjects, then
// Applications, then the other kinds (ranked 0).
var kindRank = map[string]int{"ResourceGraphDefinition": 3, "AppProject": 2, "Application": 1}

// fields compares two values and returns the leaves that differ. Maps are
// compared key by key; lists whose items are all named (name, or id for a
// stack's resources) are matched by name, others item by item.
func fields(at string, a, b any) []Change {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		var out []Change
		union := maps.Clone(av)
		maps.Copy(union, bv)
		keys := slices.Sorted(maps.Keys(union))
		for _, k := range keys {
			x, inA := av[k]
			y, inB := bv[k]
			p := join(at, k)
			switch {
			case !inA:
				out = append(out, Change{Path: p, New: y, HasNew: true})
			case !inB:
				out = append(out, Change{Path: p, Old: x, HasOld: true})
			default:
				out = append(out, fields(p, x, y)...)
			}
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if key := namedBy(av, bv); key != "" {
			return namedItems(at, key, av, bv)
		}
		var out []Change
		for i := 0; i < max(len(av), len(bv)); i++ {
			p := fmt.Sprintf("%s[%d]", at, i)
			switch {
			case i >= len(av):
				out = append(out, Change{Path: p, New: bv[i], HasNew: true})
			case i >= len(bv):
				out = append(out, Change{Path: p, Old: av[i], HasOld: true})
			default:
				out = append(out, fields(p, av[i], bv[i])...)
			}
		}
		return out
	}
	if equal(a, b) {
		return nil
	}
	return []Change{{Path: at, Old: a, New: b, HasOld: true, HasNew: true}}
}

// namedBy returns the key that names every item of both lists, each name
// once in each, or "".
func namedBy(a, b []any) string {
	for _, key := range []string{"id", "name"} {
		if len(a)+len(b) > 0 && uniquelyNamed(a, key) && uniquelyNamed(b, key) {
			return key
		}
	}
	return ""
}

func uniquelyNamed(l []any, key string) bool {
	seen := map[string]bool{}
	for _, x := range l {
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		n, ok := m[key].(string)
		if !ok || seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

func namedItems(at, key string, a, b []any) []Change {
	name := func(x any) string { return x.(map[string]any)[key].(string) }
	byName := func(l []any) map[string]any {
		m := map[string]any{}
		for _, x := range l {
			m[name(x)] = x
		}
		return m
	}
	am, bm := byName(a), byName(b)
	var out []Change
	for _, x := range a {
		p := fmt.Sprintf("%s[%s=%s]", at, key, name(x))
		if y, ok := bm[name(x)]; ok {
			out = append(out, fields(p, x, y)...)
		} else {
			out = append(out, Change{Path: p, Old: x, HasOld: true})
		}
	}
	for _, y := range b {
		if _, ok := am[name(y)]; !ok {
			out = append(out, Change{Path: fmt.Sprintf("%s[%s=%s]", at, key, name(y)), New: y, HasNew: true})
		}
	}
	return out
}

func join(at, k string) string {
	if strings.ContainsAny(k, ".[]") {
		k = fmt.Sprintf("%q", k)
	}
	if at == "" {
		return k
	}
	return at + "." + k
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
