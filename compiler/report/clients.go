package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/explain"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// clientSection is a client: its values repository and its instances in
// the report's environments.
type clientSection struct {
	Name, Description string
	Values            model.ClientValues
	InReach           bool
	Instances         []instanceSection
}

// instanceSection is one instance of a stack, in one environment.
type instanceSection struct {
	Stack, Kind, Env, Namespace string
	Fields                      []field
	Apps                        []appValues
	// Skipped are the stack's modules kro does not create for it, and
	// why.
	Skipped []string
}

// field is one field of an instance's spec and who sets it.
type field struct {
	Path, Value, From, Pos string
}

// appValues is an Application kro creates for an instance: where its
// chart's values come from (explain's layers).
type appValues struct {
	Name, Chart, VersionFrom string
	Layers                   []layerLine
	Values                   []valueLine
	// Ignored are the client's settings that a later layer replaces.
	Ignored []valueLine
}

type layerLine struct {
	N                    int
	Kind, Source, Note   string
	Client, Known, Empty bool
}

type valueLine struct {
	Path, Value, Layer, Pos string
	Client                  bool // it comes from the client's values file
}

// clients is every client with an instance in envs, and what explain
// says of each Application kro creates for it.
func clients(res *compiler.Result, repo fs.FS, envs []*model.Environment) ([]clientSection, error) {
	var out []clientSection
	for _, cl := range res.Spec.Clients {
		cs := clientSection{Name: cl.Name, Description: cl.Description, Values: cl.Values, InReach: res.Layers.InReach(cl.Name)}
		for _, inst := range res.Stacks.Instances {
			if inst.Client != cl || !slices.Contains(envs, inst.Env) {
				continue
			}
			is, err := instance(res, repo, inst.Client, inst.Stack.Model, inst.Env, inst.Spec)
			if err != nil {
				return nil, err
			}
			is.Kind, is.Namespace = inst.Stack.Model.Kind, inst.Namespace
			cs.Instances = append(cs.Instances, is)
		}
		if len(cs.Instances) > 0 {
			slices.SortStableFunc(cs.Instances, func(a, b instanceSection) int {
				return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Env, b.Env))
			})
			out = append(out, cs)
		}
	}
	return out, nil
}

func instance(res *compiler.Result, repo fs.FS, cl *model.Client, st *model.Stack, env *model.Environment, instSpec map[string]any) (instanceSection, error) {
	is := instanceSection{Stack: st.Name, Env: env.Name}
	use := cl.Stack(st.Name)
	wired := map[string]*model.StackWire{}
	for _, w := range st.Wiring {
		if w.SpecPath != nil {
			wired[layers.JoinLabels(w.SpecPath)] = w
		}
	}
	layers.ValueLeaves(nil, instSpec, func(labels []string, v any) {
		f := field{Path: layers.ValuesPath(labels), Value: show(v)}
		switch w := wired[layers.JoinLabels(labels)]; {
		case object.Lookup(use.Spec, labels...) != nil:
			specPath := layers.AppendLabels(use.FieldPath("spec"), labels)
			f.From, f.Pos = "the client", res.Spec.PosOf(specPath).String()
		case w != nil:
			f.From, f.Pos = fmt.Sprintf("wired from its %s's output %s", w.FromStack, w.FromOutput), w.Pos.String()
		default:
			f.From = "platc"
		}
		is.Fields = append(is.Fields, f)
	})
	p, err := res.Stacks.PreviewInstance(st.Name, cl.Name, env.Name)
	if err != nil {
		return is, fmt.Errorf("previewing client %s's %s in %s: %v", cl.Name, st.Name, env.Name, err)
	}
	for _, m := range st.Modules {
		for _, r := range p.Resources {
			if r.ID != m.ID {
				continue
			}
			if r.Object == nil {
				is.Skipped = append(is.Skipped, m.ID+": "+r.Included)
				continue
			}
			name, _ := object.Lookup(r.Object, "metadata", "name").(string)
			ex, err := explain.Explain(res.Spec, res.Info, res.Stacks, res.Layers, repo, env.Name, name)
			if err != nil {
				return is, err
			}
			is.Apps = append(is.Apps, appLines(ex))
		}
	}
	return is, nil
}

// appLines is what explain says of one Application, for the page.
func appLines(ex *explain.Explanation) appValues {
	a := appValues{Name: ex.Application, Chart: ex.Chart, VersionFrom: ex.VersionFrom}
	client := -1
	for i, l := range ex.Layers {
		ll := layerLine{N: i + 1, Kind: l.Kind, Source: l.Source, Note: l.Note, Known: l.Known, Empty: len(l.Settings) == 0}
		// The client's own values file is the stack's one valueFiles
		// layer (explainStackModule).
		if l.Kind == "valueFiles" {
			ll.Client, client = true, i
		}
		a.Layers = append(a.Layers, ll)
	}
	for _, v := range ex.Values() {
		a.Values = append(a.Values, valueLine{Path: v.Path, Value: show(v.Value), Layer: layerName(ex, v.Layer), Pos: v.Pos, Client: v.Layer == client})
	}
	if client >= 0 {
		for _, s := range ex.Layers[client].Settings {
			if i, w, ok := ex.Winner(s.Path); ok && i != client {
				a.Ignored = append(a.Ignored, valueLine{Path: s.Path, Value: show(s.Value), Pos: s.Pos, Layer: fmt.Sprintf("%s wins: %s at %s", layerName(ex, i), show(w.Value), w.Pos)})
			}
		}
	}
	return a
}

func layerName(ex *explain.Explanation, i int) string {
	return fmt.Sprintf("%d %s", i+1, ex.Layers[i].Kind)
}

// show writes a value as JSON, as explain does, with <, > and & as they
// are (the template escapes them).
func show(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
