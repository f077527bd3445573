package rgd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// instances makes every client's instance of every stack it consumes, in
// every environment it names, and wires instance fields from the outputs of
// the client's other stacks.
func instances(spec *model.Spec, info *check.Info, compiled *Compiled, log *diag.Log) []*Instance {
	var out []*Instance
	type key struct{ client, env, stack string }
	byKey := map[key]*Instance{}
	for _, env := range spec.Environments {
		for _, cl := range spec.Clients {
			for _, cs := range cl.Stacks {
				st := compiled.Stacks[cs.Stack]
				if st == nil || !slices.Contains(cs.Environments, env.Name) || info.Instances[cs.Stack] == nil {
					continue // unknown stack or environment: check reported it
				}
				if !check.Delivered(env, info.Instances[cs.Stack].Name, info.Parent) {
					continue
				}
				inst := &Instance{Client: cl, Env: env, Stack: st, Spec: instanceSpec(spec, env, cl, cs, st.Model, info.Instances[cs.Stack].Name), Namespace: info.Instances[cs.Stack].Namespace}
				byKey[key{cl.Name, env.Name, cs.Stack}] = inst
				out = append(out, inst)
			}
		}
	}
	// Wiring reads the outputs of the other stack's instance, evaluated
	// over that instance's own spec (with its defaults, and its own wired
	// fields: stacks are wired in check's order, each after those it wires
	// from).
	byStack := map[string][]*Instance{}
	for _, inst := range out {
		byStack[inst.Stack.Model.Name] = append(byStack[inst.Stack.Model.Name], inst)
	}
	var wired []*Instance
	for _, name := range info.StackOrder {
		wired = append(wired, byStack[name]...)
	}
	for _, inst := range wired {
		for _, w := range inst.Stack.Model.Wiring {
			from := byKey[key{inst.Client.Name, inst.Env.Name, w.FromStack}]
			if from == nil || w.SpecPath == nil {
				continue // check reported it
			}
			out := from.Stack.Model.Output(w.FromOutput)
			if out == nil {
				continue // check reported it
			}
			value, err := evalOutput(out.Expr, from.schemaVar())
			if err != nil {
				log.Errorf(out.Pos, out.Path, "evaluating the output for client %s in %s: %v", inst.Client.Name, inst.Env.Name, err)
				continue
			}
			inst.Spec = object.SetPath(inst.Spec, w.SpecPath, value)
		}
	}
	for _, inst := range out {
		if r := inst.Stack.Result; r != nil {
			cs := inst.Client.Stack(inst.Stack.Model.Name)
			for _, p := range validate(r.Instance.Properties["spec"], inst.Spec, "") {
				specPath := cs.FieldPath("spec")
				if p.path != "" {
					specPath = appendKroPath(specPath, p.path)
				}
				log.Errorf(spec.PosOf(specPath), specPath, "%s", p.msg)
			}
		}
		inst.Object = inst.object()
	}
	slices.SortStableFunc(out, func(a, b *Instance) int {
		if c := strings.Compare(a.Env.Name, b.Env.Name); c != 0 {
			return c
		}
		if c := strings.Compare(a.Stack.Model.Name, b.Stack.Model.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Client.Name, b.Client.Name)
	})
	return out
}

// instanceSpec is what the client sets, and the fields platc fills: where
// the client's values live and the AppProject of its Applications. A
// client's values in this repository follow the environment's revision, so
// that a pinned environment reads them at its tag.
func instanceSpec(spec *model.Spec, env *model.Environment, cl *model.Client, cs *model.ClientStack, st *model.Stack, module string) map[string]any {
	out := object.Merge(nil, cs.Spec)
	if out == nil {
		out = map[string]any{}
	}
	revision := cl.Values.Revision
	if cl.Values.RepoURL == spec.Platform.RepoURL {
		revision = env.Revision
	}
	out[valuesField] = map[string]any{
		"repoURL":  cl.Values.RepoURL,
		"revision": revision,
		"path":     ValuesPath(cl, st),
	}
	out[projectField], _ = argocd.InstancesProject(env, cs, module)
	return out
}

// Name is the instance's metadata.name: the client's name.
func (inst *Instance) Name() string { return inst.Client.Name }

// schemaVar is the instance as CEL's `schema` sees it: metadata, and the
// spec with its defaults applied.
func (inst *Instance) schemaVar() map[string]any {
	spec := inst.Spec
	if r := inst.Stack.Result; r != nil {
		spec = applyDefaults(r.Instance.Properties["spec"], spec).(map[string]any)
	}
	return map[string]any{
		"apiVersion": inst.Stack.apiVersion(),
		"kind":       inst.Stack.Model.Kind,
		"metadata":   map[string]any{"name": inst.Name(), "namespace": inst.Namespace},
		"spec":       spec,
	}
}

func (st *Stack) apiVersion() string {
	group := st.Model.Group
	if group == "" {
		group = defaultGroup
	}
	return group + "/" + st.Model.APIVersion
}

func (inst *Instance) object() *object.Map {
	return object.NewMap().
		Set("apiVersion", inst.Stack.apiVersion()).
		Set("kind", inst.Stack.Model.Kind).
		Set("metadata", object.NewMap().Set("name", inst.Name()).Set("namespace", inst.Namespace)).
		Set("spec", inst.Spec)
}

// applyDefaults returns v with the defaults of schema filled in where v has
// no value, as the API server does before kro sees an instance. A struct
// whose fields have defaults is created to hold them.
func applyDefaults(s *kro.Schema, v any) any {
	if s == nil {
		return v
	}
	if v == nil {
		switch {
		case s.Default != nil:
			v = s.Default // an object's default ({}) gets its fields' defaults below
		case s.Type == "object" && len(s.Properties) > 0:
			v = map[string]any{}
		default:
			return nil
		}
	}
	m, ok := v.(map[string]any)
	if !ok || len(s.Properties) == 0 {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	for name, p := range s.Properties {
		if d := applyDefaults(p, out[name]); d != nil {
			if x, ok := d.(map[string]any); ok && len(x) == 0 && out[name] == nil {
				continue
			}
			out[name] = d
		}
	}
	return out
}

// problem is a value that does not fit a schema.
type problem struct{ path, msg string }

// validate checks an instance spec against the stack's instance schema: no
// unknown field, the types, the required fields and the enums.
func validate(s *kro.Schema, v any, at string) []problem {
	if s == nil || s.PreserveUnknown || s.Type == "" && s.Properties == nil {
		return nil
	}
	var out []problem
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []problem{{at, fmt.Sprintf("got %s, want an object", kindOf(v))}}
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			p := kro.JoinPath(at, name)
			if f, ok := s.Properties[name]; ok {
				out = append(out, validate(f, m[name], p)...)
			} else if s.AdditionalProperties != nil {
				out = append(out, validate(s.AdditionalProperties, m[name], p)...)
			} else if s.Properties != nil {
				names := slices.Sorted(maps.Keys(s.Properties))
				msg := fmt.Sprintf("unknown field %q", name)
				if sug := diag.Suggest(name, names); sug != "" {
					msg += fmt.Sprintf(": did you mean %q?", sug)
				} else {
					msg += ": the stack's spec has " + strings.Join(names, ", ")
				}
				out = append(out, problem{p, msg})
			}
		}
		for _, name := range s.Required {
			if _, ok := m[name]; !ok && s.Properties[name] != nil && s.Properties[name].Default == nil {
				out = append(out, problem{at, fmt.Sprintf("required field %q is missing: set it", name)})
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return []problem{{at, fmt.Sprintf("got %s, want a list", kindOf(v))}}
		}
		for i, x := range l {
			out = append(out, validate(s.Items, x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			out = append(out, problem{at, fmt.Sprintf("got %s, want a string", kindOf(v))})
		}
	case "integer":
		if _, ok := v.(int64); !ok {
			out = append(out, problem{at, fmt.Sprintf("got %s, want an integer", kindOf(v))})
		}
	case "number":
		switch v.(type) {
		case int64, float64:
		default:
			out = append(out, problem{at, fmt.Sprintf("got %s, want a number", kindOf(v))})
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			out = append(out, problem{at, fmt.Sprintf("got %s, want a boolean", kindOf(v))})
		}
	}
	if len(s.Enum) > 0 && len(out) == 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		var allowed []string
		for _, e := range s.Enum {
			allowed = append(allowed, fmt.Sprintf("%q", fmt.Sprint(e)))
		}
		out = append(out, problem{at, fmt.Sprintf("%s is not one of %s", kindOf(v), strings.Join(allowed, ", "))})
	}
	return out
}

func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case int64:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("number %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
