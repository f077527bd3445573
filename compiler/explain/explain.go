// Package explain says which layers of Helm values reach one Application's
// release, in Argo CD's order, what each sets, and which wins (platc
// explain). It is a view for the CLI, not a stage, so it may read every
// stage's results; it changes nothing.
package explain

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
)

// Layer is one source of values for a Helm release, in Argo CD's order:
// chart defaults, values files in order, values, valuesObject, parameters.
// A later layer wins.
type Layer struct {
	// Kind is the Argo CD field: "chart defaults", "valueFiles", "values",
	// "valuesObject" or "parameters".
	Kind string `json:"kind"`
	// Source says where the values are: a file, a spec path.
	Source string `json:"source"`
	// Known is false where platc cannot see the values offline (a chart's
	// own defaults, a values repository out of reach).
	Known bool `json:"known"`
	// Note says why a layer is empty or unknown.
	Note string `json:"note,omitempty"`
	// Settings are the leaves the layer sets, sorted by path.
	Settings []Setting `json:"settings,omitempty"`
}

// Setting is one value a layer sets.
type Setting struct {
	Path  string `json:"path"` // dotted, "\." for a dot in a key
	Value any    `json:"value"`
	Pos   string `json:"position,omitempty"`
}

// Explanation is the layers that reach one Helm release.
type Explanation struct {
	Environment string  `json:"environment"`
	Application string  `json:"application"`
	Chart       string  `json:"chart"` // repoURL, chart and version
	Layers      []Layer `json:"layers"`

	// VersionFrom, where the environment runs a version of the chart of
	// its own, says where that is written, and the platform's version.
	VersionFrom string `json:"versionFrom,omitempty"`
}

// Explain returns the layers of values reaching the Helm release of an
// Application in env: a chart module, or one kro creates for a stack
// instance (<client>-<module>). repo is the platform's repository, for
// values files; nil leaves them unknown.
func Explain(spec *model.Spec, info *check.Info, stacks *rgd.Compiled, files *layers.Result, repo fs.FS, envName, app string) (*Explanation, error) {
	env := spec.Environment(envName)
	if env == nil {
		var names []string
		for _, e := range spec.Environments {
			names = append(names, e.Name)
		}
		return nil, fmt.Errorf("unknown environment %q: the environments are %s", envName, strings.Join(names, ", "))
	}
	if m := spec.Module(app); m != nil && helmModule(info, m) && check.Delivered(env, m.Name, info.Parent) {
		return explainModule(spec, repo, env, m), nil
	}
	if stacks != nil {
		for _, inst := range stacks.Instances {
			if inst.Env != env {
				continue
			}
			for _, m := range inst.Stack.Model.Modules {
				if len(m.ForEach) == 0 && rgd.AppName(inst.Client.Name, m.ID) == app ||
					len(m.ForEach) > 0 && slices.Contains(moduleApps(stacks, inst, m), app) {
					return explainStackModule(spec, stacks, files, inst, m, app)
				}
			}
		}
	}
	return nil, fmt.Errorf("environment %s has no Helm Application %q: name a chart module, a path module whose folder is a chart, or <client>-<module> of a stack instance; the Applications are %s",
		envName, app, strings.Join(applications(spec, info, stacks, env), ", "))
}

// helmModule reports whether m's Application is a Helm release: a chart
// module, or a path module whose folder is a chart.
func helmModule(info *check.Info, m *model.Module) bool {
	return m.Kind.TakesValues(info.Charts[m.Name])
}

func applications(spec *model.Spec, info *check.Info, stacks *rgd.Compiled, env *model.Environment) []string {
	var out []string
	for _, m := range spec.Modules {
		if helmModule(info, m) && check.Delivered(env, m.Name, info.Parent) {
			out = append(out, m.Name)
		}
	}
	if stacks != nil {
		// Only the Applications kro will create: a module whose
		// includeWhen is false for the instance has none to explain.
		for _, inst := range stacks.Instances {
			if inst.Env != env {
				continue
			}
			for _, m := range inst.Stack.Model.Modules {
				out = append(out, moduleApps(stacks, inst, m)...)
			}
		}
	}
	slices.Sort(out)
	return out
}

func chartLine(c *model.Chart) string {
	src := argocd.ChartSource(c)
	if chart, ok := src.Get("chart").(string); ok {
		return fmt.Sprintf("%s %s %s", src.Get("repoURL"), chart, c.Version)
	}
	return fmt.Sprintf("%s %s", src.Get("repoURL"), c.Version)
}

// versionFrom says where an environment's own version of a chart is
// written, and the platform's version; "" for the platform's.
func versionFrom(spec *model.Spec, c *model.Chart) string {
	if c.Pin == nil {
		return ""
	}
	return fmt.Sprintf("environment %s's own version, %s (%s); the platform's is %s", c.Pin.Env, c.Pin.FieldPath("version"), c.Pin.At("version"), spec.Chart(c.Name).Version)
}

func defaultsLayer() Layer {
	return Layer{Kind: "chart defaults", Source: "the chart's values.yaml", Note: "not known offline: the chart is not rendered (platc vet says why; platc charts pull fetches it)"}
}

func explainModule(spec *model.Spec, repo fs.FS, env *model.Environment, m *model.Module) *Explanation {
	ex := &Explanation{Environment: env.Name, Application: m.Name}
	if m.Kind.Info().Syncs == model.SyncsRepoFolder {
		// A chart kept in Git: of this repository, at the
		// environment's revision, unless the module says otherwise.
		ex.Chart = fmt.Sprintf("%s %s at %s", cmp.Or(m.RepoURL, spec.Platform.RepoURL), m.DirIn(env), m.RevisionIn(env))
	} else {
		c := spec.ChartIn(env, m.Chart)
		ex.Chart, ex.VersionFrom = chartLine(c), versionFrom(spec, c)
	}
	ex.Layers = append(ex.Layers, defaultsLayer())
	ex.Layers = append(ex.Layers, valueFileLayers(repo, m, m.HelmIn(env))...)
	// The wires are one layer, as they are one field of the spec.
	wiring := Layer{Kind: "valuesObject", Source: m.FieldPath("wiring"), Known: true}
	for _, l := range render.ValuesLayers(spec, env, m) {
		layer := &Layer{Kind: "valuesObject", Source: l.SpecPath, Known: true}
		if l.Wiring {
			layer = &wiring
		}
		layers.ValueLeaves(nil, l.Values, func(labels []string, v any) {
			specPath := l.SpecPath
			if !l.Wiring {
				specPath = layers.AppendLabels(l.SpecPath, labels)
			}
			layer.Settings = append(layer.Settings, Setting{Path: layers.ValuesPath(labels), Value: v, Pos: spec.PosOf(specPath).String()})
		})
		if !l.Wiring && len(layer.Settings) > 0 {
			ex.Layers = append(ex.Layers, *layer)
		}
	}
	if len(wiring.Settings) > 0 {
		ex.Layers = append(ex.Layers, wiring)
	}
	at := m.FieldPath("helm.parameters")
	if s := env.Settings[m.Name]; s != nil && s.Helm != nil && s.Helm.Has("parameters") {
		at = s.Helm.FieldPath("parameters")
	}
	ex.Layers = append(ex.Layers, parametersLayer(m.HelmIn(env), at))
	return ex
}

// valueFileLayers are a chart module's values files of this repository,
// in order, each with what it sets.
func valueFileLayers(repo fs.FS, m *model.Module, h *model.Helm) []Layer {
	vf := render.ValueFiles(m, h)
	if len(vf) == 0 {
		return []Layer{{Kind: "valueFiles", Known: true, Note: "none: the module reads no values file"}}
	}
	var out []Layer
	for i, f := range h.ValueFiles {
		l := Layer{Kind: "valueFiles", Source: vf[i] + " (" + f + ")"}
		if repo == nil {
			l.Note = "not read: no repository given"
		} else if data, err := fs.ReadFile(repo, f); err != nil {
			l.Note = "not read: " + err.Error()
		} else if tree, _, err := layers.ReadFile(f, data); err != nil {
			l.Note = "not read: " + err.Error()
		} else {
			l.Known, l.Settings = true, fileSettings(&layers.File{Tree: tree})
		}
		out = append(out, l)
	}
	return out
}

// parametersLayer is a chart module's Helm parameters (--set), which win
// over every values file and valuesObject.
func parametersLayer(h *model.Helm, at string) Layer {
	if h == nil || len(h.Parameters) == 0 {
		return Layer{Kind: "parameters", Known: true, Note: "none: the module sets no parameters"}
	}
	l := Layer{Kind: "parameters", Source: at, Known: true}
	for _, p := range h.Parameters {
		v, _ := argocd.Envsubst(p.Value, nil)
		var value any = v
		if !p.ForceString {
			value = helmScalar(v)
		}
		l.Settings = append(l.Settings, Setting{Path: p.Name, Value: value, Pos: p.Pos.String()})
	}
	return l
}

// helmScalar is a --set value as Helm reads it (strvals): true, false,
// null, and integers are typed; everything else is a string.
func helmScalar(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && (v == "0" || !strings.HasPrefix(v, "0")) {
		return n
	}
	return v
}

// appName is the name of an Application kro creates, as previewed.
func appName(obj *object.Map) string {
	name, _ := object.Lookup(obj, "metadata", "name").(string)
	return name
}

// moduleApps are the names of the Applications kro creates for the
// module m of inst, as previewed.
func moduleApps(stacks *rgd.Compiled, inst *rgd.Instance, m *model.StackModule) []string {
	p, err := stacks.PreviewInstance(inst.Stack.Model.Name, inst.Client.Name, inst.Env.Name)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range p.Resources {
		if r.ID == m.ID && r.Object != nil {
			out = append(out, appName(r.Object))
		}
	}
	return out
}

func explainStackModule(spec *model.Spec, stacks *rgd.Compiled, files *layers.Result, inst *rgd.Instance, m *model.StackModule, app string) (*Explanation, error) {
	st := inst.Stack.Model
	ex := &Explanation{Environment: inst.Env.Name, Application: app}
	if c := spec.ChartIn(inst.Env, m.Chart); c != nil {
		ex.Chart, ex.VersionFrom = chartLine(c), versionFrom(spec, c)
	}
	ex.Layers = append(ex.Layers, defaultsLayer())

	file := "$values/" + rgd.ValuesPath(inst.Client, st) + "/" + m.ValuesFile
	fileLayer := Layer{Kind: "valueFiles", Source: file}
	switch f := files.File(inst.Client.Name, st.Name, m.ID); {
	case !files.InReach(inst.Client.Name):
		fileLayer.Note = fmt.Sprintf("not in reach: %s; give a checkout with -client-repo %s=DIR", inst.Client.Values.RepoURL, inst.Client.Name)
	case f == nil || f.Tree == nil:
		fileLayer.Known = true
		fileLayer.Note = "no such file: the client overrides nothing (ignoreMissingValueFiles)"
	default:
		fileLayer.Known = true
		fileLayer.Source += " (" + f.Path + ")"
		fileLayer.Settings = fileSettings(f)
	}
	ex.Layers = append(ex.Layers, fileLayer)

	// valuesObject as kro will create it for this instance: the module's
	// values, then the wiring, evaluated offline where the spec decides.
	p, err := stacks.PreviewInstance(st.Name, inst.Client.Name, inst.Env.Name)
	if err != nil {
		return nil, err
	}
	var evaluated map[string]any
	for _, r := range p.Resources {
		if r.ID == m.ID && r.Object != nil && appName(r.Object) == app {
			evaluated = valuesObject(r.Object)
		}
		if r.ID == m.ID && r.Object == nil {
			return nil, fmt.Errorf("client %s does not get %s in %s: %s", inst.Client.Name, m.ID, inst.Env.Name, r.Included)
		}
	}
	wired := map[string]*model.ExprWire{}
	for _, w := range m.Wiring {
		if w.ValuesPath != nil {
			wired[layers.JoinLabels(w.ValuesPath)] = w
		}
	}
	values := Layer{Kind: "valuesObject", Source: m.FieldPath("values"), Known: true}
	wiring := Layer{Kind: "valuesObject", Source: m.FieldPath("wiring"), Known: true}
	layers.ValueLeaves(nil, evaluated, func(labels []string, v any) {
		if w := wiredAt(wired, labels); w != nil {
			wiring.Settings = append(wiring.Settings, Setting{Path: layers.ValuesPath(labels), Value: v, Pos: w.Pos.String()})
			return
		}
		specPath := layers.AppendLabels(m.FieldPath("values"), labels)
		values.Settings = append(values.Settings, Setting{Path: layers.ValuesPath(labels), Value: v, Pos: spec.PosOf(specPath).String()})
	})
	for _, l := range []Layer{values, wiring} {
		if len(l.Settings) > 0 {
			ex.Layers = append(ex.Layers, l)
		}
	}
	ex.Layers = append(ex.Layers, Layer{Kind: "parameters", Known: true, Note: "none: platc sets no parameters"})
	return ex, nil
}

// wiredAt returns the wire that sets labels, or a prefix of them.
func wiredAt(wired map[string]*model.ExprWire, labels []string) *model.ExprWire {
	for i := len(labels); i >= 1; i-- {
		if w := wired[layers.JoinLabels(labels[:i])]; w != nil {
			return w
		}
	}
	return nil
}

func valuesObject(app *object.Map) map[string]any {
	sources, _ := object.Lookup(app, "spec", "sources").([]any)
	if len(sources) == 0 {
		return nil
	}
	v, _ := object.Plain(object.Lookup(sources[0], "helm", "valuesObject")).(map[string]any)
	return v
}

// fileSettings are the leaves a values file sets.
func fileSettings(f *layers.File) []Setting {
	var out []Setting
	f.Leaves(func(labels []string, v any, pos diag.Pos) {
		out = append(out, Setting{Path: layers.ValuesPath(labels), Value: v, Pos: pos.String()})
	})
	return out
}

// SetChartDefaults makes the chart defaults layer known from the chart's
// values.yaml (file names it in positions). An unreadable file leaves the
// layer unknown, saying why.
func (ex *Explanation) SetChartDefaults(chart, file string, data []byte) {
	for i := range ex.Layers {
		l := &ex.Layers[i]
		if l.Kind != "chart defaults" {
			continue
		}
		l.Source = file + " (" + chart + ")"
		tree, _, err := layers.ReadFile(file, data)
		if err != nil {
			l.Note = fmt.Sprintf("not read: %v", err)
			return
		}
		l.Known, l.Note, l.Settings = true, "", fileSettings(&layers.File{Tree: tree})
		return
	}
}

// Winner returns the layer whose value Helm uses for the dotted path, the
// value, and whether any layer sets it, directly or by setting an ancestor
// to a non-mapping.
func (ex *Explanation) Winner(path string) (layer int, s Setting, ok bool) {
	layer = -1
	for i, l := range ex.Layers {
		for _, st := range l.Settings {
			if st.Path == path || strings.HasPrefix(path, st.Path+".") {
				layer, s, ok = i, st, true
			}
		}
	}
	return layer, s, ok
}

// Value is one value Helm gets, and the layer it comes from.
type Value struct {
	Setting
	Layer int // its index in Layers
}

// Values returns the values Helm gets, sorted by path, each with the last
// layer setting it, chart defaults aside (they are the chart's). A path a
// later layer replaces from above is left out.
func (ex *Explanation) Values() []Value {
	winners := map[string]int{}
	for i, l := range ex.Layers {
		if l.Kind == "chart defaults" {
			continue
		}
		for _, s := range l.Settings {
			winners[s.Path] = i
		}
	}
	var out []Value
	for _, p := range slices.Sorted(maps.Keys(winners)) {
		i := winners[p]
		if ex.replacedAbove(p, i) {
			continue
		}
		for _, s := range ex.Layers[i].Settings {
			if s.Path == p {
				out = append(out, Value{Setting: s, Layer: i})
			}
		}
	}
	return out
}

// replacedAbove reports whether a layer after layer sets an ancestor of
// path p, replacing what is below it.
func (ex *Explanation) replacedAbove(p string, layer int) bool {
	for i := layer + 1; i < len(ex.Layers); i++ {
		for _, s := range ex.Layers[i].Settings {
			if strings.HasPrefix(p, s.Path+".") {
				return true
			}
		}
	}
	return false
}

// At returns what each layer sets for path, by layer index.
func (ex *Explanation) At(path string) map[int][]Setting {
	out := map[int][]Setting{}
	for i, l := range ex.Layers {
		for _, st := range l.Settings {
			if st.Path == path || strings.HasPrefix(path, st.Path+".") || strings.HasPrefix(st.Path, path+".") {
				out[i] = append(out[i], st)
			}
		}
	}
	return out
}
