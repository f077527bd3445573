package diff

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/rgd"
)

// VersionChange is a chart an environment runs at a different version in
// the new render, drawn from its Applications' field changes.
type VersionChange struct {
	Env   string `json:"environment"`
	Chart string `json:"chart"` // the repository and chart, as Argo CD reads them
	// Old and New are the versions, several where Applications of the
	// environment run the chart at several; empty where none runs it.
	Old []string `json:"old"`
	New []string `json:"new"`
	// Applications are those that run it, in either render.
	Applications []string `json:"applications"`
}

// Versions compares the chart versions each environment runs in two
// renders, of rendered Applications and of those kro creates per instance
// (the instance's version, else the RGD's default), sorted by environment
// and chart.
func Versions(old, new []Object, f Filter) []VersionChange {
	before, after := chartVersions(old, f), chartVersions(new, f)
	keys := maps.Clone(before)
	maps.Copy(keys, after)
	var out []VersionChange
	// By environment, then chart: no environment holds the separator.
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, a := before[k], after[k]
		ov, nv := sortedSet(b), sortedSet(a)
		if slices.Equal(ov, nv) {
			continue
		}
		env, chart, _ := strings.Cut(k, "\x00")
		apps := map[string]string{}
		maps.Copy(apps, b)
		maps.Copy(apps, a)
		out = append(out, VersionChange{Env: env, Chart: chart, Old: ov, New: nv, Applications: slices.Sorted(maps.Keys(apps))})
	}
	return out
}

func sortedSet(m map[string]string) []string {
	return slices.Compact(slices.Sorted(maps.Values(m)))
}

// chartVersions is, by environment and chart, the version each
// Application runs.
func chartVersions(objs []Object, f Filter) map[string]map[string]string {
	out := map[string]map[string]string{}
	put := func(env, chart, app, version string) {
		k := env + "\x00" + chart
		if out[k] == nil {
			out[k] = map[string]string{}
		}
		out[k][app] = version
	}
	rgds := map[string]map[string]any{} // by the kind of their instances
	for _, o := range objs {
		if o.Kind == "ResourceGraphDefinition" {
			if kind, ok := object.Lookup(o.Data, "spec", "schema", "kind").(string); ok {
				rgds[kind] = o.Data
			}
		}
	}
	for _, o := range objs {
		if !f.keep(o) || o.Env == "" {
			continue
		}
		switch o.Kind {
		case "Application":
			for _, src := range appSources(o.Data) {
				if chart, rev, ok := chartSource(src); ok {
					put(o.Env, chart, o.Name, rev)
				}
			}
		case "AppProject", "ResourceGraphDefinition":
		default:
			def := rgds[o.Kind]
			if def == nil {
				continue
			}
			resources, _ := object.Lookup(def, "spec", "resources").([]any)
			for _, r := range resources {
				id, _ := object.Lookup(r, "id").(string)
				if object.Lookup(r, "template", "kind") != "Application" {
					continue
				}
				for _, src := range appSources(object.Lookup(r, "template")) {
					chart, rev, ok := chartSource(src)
					if !ok {
						continue
					}
					if m := instanceField().FindStringSubmatch(rev); m != nil {
						rev = instanceVersion(o.Data, def, m[1])
					}
					put(o.Env, chart, rgd.AppName(o.Name, id), rev)
				}
			}
		}
	}
	return out
}

// instanceField is a stack module's chart version in its instance
// (chartVersions, compiler/rgd), compiled on first use.
var instanceField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\{schema\.spec\.chartVersions\.([A-Za-z0-9_]+)\}$`)
})

// instanceVersion is the version an instance sets for a module's chart,
// or the default of the RGD's schema.
func instanceVersion(inst, def map[string]any, id string) string {
	if v, ok := object.Lookup(inst, "spec", "chartVersions", id).(string); ok {
		return v
	}
	s, _ := object.Lookup(def, "spec", "schema", "spec", "chartVersions", id).(string)
	if m := simpleDefault().FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

var simpleDefault = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`default="([^"]*)"`) })

func appSources(app any) []any {
	if src := object.Lookup(app, "spec", "source"); src != nil {
		return []any{src}
	}
	l, _ := object.Lookup(app, "spec", "sources").([]any)
	return l
}

// chartSource is a Helm chart source's chart (repository and chart, or
// an OCI reference) and version.
func chartSource(src any) (chart, version string, ok bool) {
	repo, _ := object.Lookup(src, "repoURL").(string)
	rev, _ := object.Lookup(src, "targetRevision").(string)
	if name, isChart := object.Lookup(src, "chart").(string); isChart {
		return repo + " " + name, rev, true
	}
	if strings.HasPrefix(repo, "oci://") {
		return repo, rev, true
	}
	return "", "", false
}
