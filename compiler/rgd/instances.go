package rgd

import (
	"cmp"
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
				st, mod := compiled.Stacks[cs.Stack], info.Instances[cs.Stack]
				if st == nil || !slices.Contains(cs.Environments, env.Name) || mod == nil {
					continue // unknown stack or environment: check reported it
				}
				if !check.Delivered(env, mod.Name, info.Parent) {
					continue
				}
				inst := &Instance{Client: cl, Env: env, Stack: st, Spec: instanceSpec(spec, env, cl, cs, st.Model, mod.Name), Namespace: mod.Namespace}
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
	// An instance whose wiring has no source (check reported why: a
	// stack the client lacks there, often a mistyped environment) is
	// still made, but what its validation says follows from that cause
	// (the wired field is missing), and is not reported.
	unwired := map[*Instance]bool{}
	badOutputs := checkOutputs(spec, compiled, log)
	for _, inst := range wired {
		for _, w := range inst.Stack.Model.Wiring {
			from := byKey[key{inst.Client.Name, inst.Env.Name, w.FromStack}]
			if from == nil || w.SpecPath == nil {
				unwired[inst] = true
				continue // check reported it
			}
			out := from.Stack.Model.Output(w.FromOutput)
			if out == nil || from.Stack.Result == nil || badOutputs[out] {
				unwired[inst] = true
				continue // check or kro reported it
			}
			// A ${...} template over schema alone.
			value, err := evalTemplate(from.Stack.Result, out.Expr, map[string]any{"schema": from.schemaVar()}, nil)
			if err != nil {
				log.Reportf(diag.StackEval, out.Pos, out.Path, "evaluating the output for client %s in %s: %v", inst.Client.Name, inst.Env.Name, err)
				continue
			}
			inst.Spec = object.SetPath(inst.Spec, w.SpecPath, value)
		}
	}
	for _, inst := range out {
		if r := inst.Stack.Result; r != nil {
			cs := inst.Client.Stack(inst.Stack.Model.Name)
			problems := inst.validate()
			if unwired[inst] {
				problems = nil
			}
			for _, p := range problems {
				specPath := appendKroPath(cs.FieldPath("spec"), p.Path)
				log.Reportf(diag.StackEval, spec.PosOf(specPath), specPath, "%s", p.Msg)
			}
		}
		inst.Object = inst.object()
	}
	slices.SortStableFunc(out, func(a, b *Instance) int {
		return cmp.Or(strings.Compare(a.Env.Name, b.Env.Name), strings.Compare(a.Stack.Model.Name, b.Stack.Model.Name), strings.Compare(a.Client.Name, b.Client.Name))
	})
	return out
}

// instanceSpec is what the client sets, and the fields platc fills: where
// the client's values live and the AppProject of its Applications. A
// client's values in this repository follow the environment's revision, so
// that a pinned environment reads them at its tag.
func instanceSpec(spec *model.Spec, env *model.Environment, cl *model.Client, cs *model.ClientStack, st *model.Stack, module string) map[string]any {
	out := object.Merge(map[string]any{}, cs.Spec)
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
	if v := chartVersions(spec, env, st); v != nil {
		out[chartVersionsField] = v
	}
	return out
}

// Name is the instance's metadata.name: the client's name.
func (inst *Instance) Name() string { return inst.Client.Name }

// validate validates the instance's spec as the API server does with the
// CRD kro generates for the stack, once, and keeps the spec with its
// defaults applied. The instance's spec is final by then: stacks are
// wired in check's order, each after those it wires from.
func (inst *Instance) validate() []kro.Problem {
	if !inst.validated {
		inst.defaulted, inst.problems = inst.Stack.Result.Instance(inst.Spec)
		inst.validated = true
	}
	return inst.problems
}

// schemaVar is the instance as CEL's `schema` sees it: metadata, and the
// spec with its defaults applied.
func (inst *Instance) schemaVar() map[string]any {
	spec := inst.Spec
	if inst.Stack.Result != nil {
		inst.validate()
		spec = inst.defaulted
	}
	return map[string]any{
		"apiVersion": inst.Stack.apiVersion(),
		"kind":       inst.Stack.Model.Kind,
		"metadata":   map[string]any{"name": inst.Name(), "namespace": inst.Namespace},
		"spec":       spec,
	}
}

func (st *Stack) apiVersion() string {
	return cmp.Or(st.Model.Group, defaultGroup) + "/" + st.Model.APIVersion
}

func (inst *Instance) object() *object.Map {
	return object.NewMap().
		Set("apiVersion", inst.Stack.apiVersion()).
		Set("kind", inst.Stack.Model.Kind).
		Set("metadata", object.NewMap().Set("name", inst.Name()).Set("namespace", inst.Namespace)).
		Set("spec", inst.Spec)
}

// checkOutputs type-checks the outputs of every stack kro accepted, once,
// and reports each problem inside its expression; it returns the outputs
// with a problem, which are not evaluated for any instance.
func checkOutputs(spec *model.Spec, compiled *Compiled, log *diag.Log) map[*model.Output]bool {
	bad := map[*model.Output]bool{}
	for _, st := range spec.Stacks {
		c := compiled.Stacks[st.Name]
		if c == nil || c.Result == nil {
			continue
		}
		for _, o := range st.Outputs {
			for _, p := range c.Result.CheckOverSchema(o.Expr) {
				pos := o.Pos
				if p.Str != "" {
					pos = spec.PosIn(o.Path, p.Str, p.Offset)
				}
				log.Reportf(diag.StackEval, pos, o.Path, "%s", p.Msg)
				bad[o] = true
			}
		}
	}
	return bad
}
