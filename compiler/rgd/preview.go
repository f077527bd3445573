package rgd

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/object"
)

// Preview is what kro would create for one instance, evaluated offline.
type Preview struct {
	Instance *Instance
	// Resources are the stack's resources in kro's order, each with what
	// kro would create and whether it would.
	Resources []PreviewResource
}

// PreviewResource is one resource of an instance.
type PreviewResource struct {
	ID   string
	Kind string
	// Included says whether kro creates the resource: "created", "not
	// created: <why>", or "created when <condition only the cluster can
	// decide>".
	Included string
	// Object is the template with every expression the spec decides
	// evaluated; what only the cluster knows (a primitive's status) is a
	// Placeholder. Nil exactly when the resource is not created.
	Object *object.Map
}

// PreviewInstance evaluates the stack's resources for the client's
// instance in env. The result is computed once and shared: callers must not
// modify it. Previews of different instances are evaluated concurrently.
func (c *Compiled) PreviewInstance(stack, client, env string) (*Preview, error) {
	key := stack + "\x00" + client + "\x00" + env
	c.previewMu.Lock()
	preview := c.previews[key]
	if preview == nil {
		if c.previews == nil {
			c.previews = map[string]func() (*Preview, error){}
		}
		preview = sync.OnceValues(func() (*Preview, error) { return c.previewInstance(stack, client, env) })
		c.previews[key] = preview
	}
	c.previewMu.Unlock()
	return preview()
}

func (c *Compiled) previewInstance(stack, client, env string) (*Preview, error) {
	var inst *Instance
	var have []string
	for _, i := range c.Instances {
		if i.Stack.Model.Name != stack {
			continue
		}
		if i.Client.Name == client && i.Env.Name == env {
			inst = i
		}
		have = append(have, i.Client.Name+" in "+i.Env.Name)
	}
	st := c.Stacks[stack]
	switch {
	case st == nil:
		return nil, fmt.Errorf("unknown stack %q: the stacks are %s", stack, diag.OrNone(slices.Sorted(maps.Keys(c.Stacks))))
	case inst == nil:
		return nil, fmt.Errorf("client %s has no instance of stack %s in %s: the instances are %s", client, stack, env, diag.OrNone(have))
	case st.Result == nil:
		return nil, fmt.Errorf("stack %s does not compile", stack)
	}
	schemaVar := inst.schemaVar()
	vars := encodedVars(schemaVar)
	shared := ""
	if vars != nil {
		shared = stack + "\x00" + string(vars)
		c.previewMu.Lock()
		p := c.byVars[shared]
		c.previewMu.Unlock()
		if p != nil {
			return p.of(inst), nil
		}
	}
	key := c.previewKey(st, vars)
	p := (*Preview)(nil)
	if key != "" {
		p = c.cachedPreviewOf(key, inst)
	}
	if p == nil {
		var err error
		if p, err = c.evalPreview(st, inst, schemaVar); err != nil {
			return nil, err
		}
		if key != "" {
			c.putPreview(key, p)
		}
	}
	if shared != "" {
		c.previewMu.Lock()
		if c.byVars == nil {
			c.byVars = map[string]*Preview{}
		}
		c.byVars[shared] = p
		c.previewMu.Unlock()
	}
	return p, nil
}

// of is p as the preview of inst, whose schema variable is that of p's
// instance: the resources are shared.
func (p *Preview) of(inst *Instance) *Preview {
	q := *p
	q.Instance = inst
	return &q
}

// evalPreview evaluates the stack's resources for the instance.
func (c *Compiled) evalPreview(st *Stack, inst *Instance, schemaVar map[string]any) (*Preview, error) {
	byID := st.resourcesByID()
	vars := map[string]any{"schema": schemaVar}
	pending := func(refs []string) bool {
		return slices.ContainsFunc(refs, func(r string) bool { return r != "schema" })
	}
	p := &Preview{Instance: inst}
	excluded := map[string]bool{}
	for _, id := range st.Result.Order {
		r := byID[id]
		if ref, ok := r.Get("externalRef").(*object.Map); ok {
			// kro reads it: what it holds, only the cluster knows.
			p.Resources = append(p.Resources, PreviewResource{ID: id, Kind: fmt.Sprint(ref.Get("kind")), Included: "read, not created: kro waits for it to exist"})
			continue
		}
		tmpl := r.Get("template").(*object.Map)
		pr := PreviewResource{ID: id, Kind: fmt.Sprint(tmpl.Get("kind")), Included: created}
		notCreated := func(why string) {
			pr.Included = "not created: " + why
			excluded[id] = true
		}
		var conditions []string
		for _, dep := range st.Result.Deps[id] {
			if excluded[dep] {
				notCreated("it depends on " + dep + ", which is not created")
			}
		}
		if cond, ok := r.Get("includeWhen").([]string); ok && !excluded[id] {
			for _, expr := range cond {
				v, err := evalTemplate(st.Result, expr, vars, pending)
				if err != nil {
					return nil, fmt.Errorf("%s: includeWhen: %v", id, err)
				}
				switch v {
				case false:
					notCreated(unwrapped(expr) + " is false")
				case nil:
					// An optional without a value: kro's runtime takes it as false.
					notCreated(unwrapped(expr) + " has no value, which kro takes as false")
				case true:
				default: // known only in the cluster
					conditions = append(conditions, unwrapped(expr))
				}
			}
		}
		if !excluded[id] && len(conditions) > 0 {
			pr.Included = "created when " + strings.Join(conditions, " and ")
		}
		if dims, ok := r.Get("forEach").([]any); ok && !excluded[id] {
			items, err := collection(st.Result, pr, dims, tmpl, vars, pending)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", id, err)
			}
			p.Resources = append(p.Resources, items...)
			continue
		}
		if !excluded[id] {
			obj, err := evalObject(st.Result, tmpl, vars, pending)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", id, err)
			}
			pr.Object = obj.(*object.Map)
		}
		p.Resources = append(p.Resources, pr)
	}
	return p, nil
}

// collection is what kro creates of a forEach resource: one object per
// element of the cartesian product of its dimensions' lists (kro's
// ExpandCollection), each with its iterators' values; or, where a list
// is only known in the cluster, one entry that says so, its template's
// expressions that read an iterator placeholders. pending is evalPreview's:
// which references are known only in the cluster.
func collection(r *kro.Result, pr PreviewResource, dims []any, tmpl *object.Map, vars map[string]any, pending func([]string) bool) ([]PreviewResource, error) {
	type dim struct {
		name, expr string
		values     []any
	}
	var all []dim
	iterators := map[string]bool{}
	known := true
	for _, d := range dims {
		m, _ := d.(*object.Map)
		if m == nil {
			continue
		}
		var err error
		m.Each(func(name string, v any) {
			expr, _ := v.(string)
			var got any
			if got, err = evalTemplate(r, expr, vars, pending); err != nil {
				return
			}
			list, isList := got.([]any)
			known = known && isList
			all = append(all, dim{name, expr, list})
			iterators[name] = true
		})
		if err != nil {
			return nil, fmt.Errorf("forEach: %v", err)
		}
	}
	if !known {
		var lists []string
		for _, d := range all {
			lists = append(lists, unwrapped(d.expr))
		}
		pr.Included += ", one per element of " + strings.Join(lists, " × ") + ", which only the cluster knows"
		obj, err := evalObject(r, tmpl, vars, pending)
		if err != nil {
			return nil, err
		}
		pr.Object = obj.(*object.Map)
		return []PreviewResource{pr}, nil
	}
	combos := [][]any{{}}
	for _, d := range all {
		var next [][]any
		for _, c := range combos {
			for _, v := range d.values {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		combos = next
	}
	if len(combos) == 0 {
		pr.Included = "not created: its forEach lists are empty"
		return []PreviewResource{pr}, nil
	}
	out := make([]PreviewResource, 0, len(combos))
	seen := map[string]string{} // identity -> the element that has it
	for _, c := range combos {
		itemVars := maps.Clone(vars)
		var says []string
		for i, d := range all {
			itemVars[d.name] = c[i]
			v, _ := json.Marshal(c[i]) // plain data
			says = append(says, fmt.Sprintf("%s = %s", d.name, v))
		}
		obj, err := evalObject(r, tmpl, itemVars, func(refs []string) bool {
			return slices.ContainsFunc(refs, func(ref string) bool { return ref != "schema" && !iterators[ref] })
		})
		if err != nil {
			return nil, err
		}
		item := pr
		item.Included += ", for " + strings.Join(says, ", ")
		item.Object = obj.(*object.Map)
		// kro's runtime refuses two elements of one identity
		// (pkg/runtime/collection.go, validateUniqueIdentities).
		if key, ok := identity(item.Object); ok {
			if first, dup := seen[key]; dup {
				return nil, fmt.Errorf("forEach makes two objects of identity %s (for %s, and for %s): make the list's elements distinct (a listType=set field refuses duplicates), or the name tell them apart (kro: identity collision: duplicate identity: %s)",
					key, first, strings.Join(says, ", "), key)
			}
			seen[key] = strings.Join(says, ", ")
		}
		out = append(out, item)
	}
	return out, nil
}

// identity is kro's identity of an object (group/version/kind/namespace/
// name), when its name and namespace are known offline.
func identity(obj *object.Map) (string, bool) {
	apiVersion, _ := obj.Get("apiVersion").(string)
	kind, _ := obj.Get("kind").(string)
	name, ok := object.Lookup(obj, "metadata", "name").(string)
	ns, _ := object.Lookup(obj, "metadata", "namespace").(string)
	if !ok || HasPlaceholder(name) || HasPlaceholder(ns) {
		return "", false
	}
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		group, version = "", apiVersion
	}
	return strings.Join([]string{group, version, kind, ns, name}, "/"), true
}

const created = "created"

// unwrapped is an expression without its ${ and }, for what the preview
// says.
func unwrapped(expr string) string {
	return strings.TrimSuffix(strings.TrimPrefix(expr, "${"), "}")
}

// evalObject evaluates every expression in a template.
func evalObject(env *kro.Result, v any, vars map[string]any, pending func([]string) bool) (any, error) {
	switch v := v.(type) {
	case *object.Map:
		out := object.NewMap()
		var err error
		v.Each(func(k string, x any) {
			if err != nil {
				return
			}
			var y any
			y, err = evalObject(env, x, vars, pending)
			if y != kro.Omit { // kro leaves out a field whose value is omit()
				out.Set(k, y)
			}
		})
		return out, err
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			y, err := evalObject(env, x, vars, pending)
			if err != nil {
				return nil, err
			}
			if y != kro.Omit {
				out[k] = y
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			y, err := evalObject(env, x, vars, pending)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case []string:
		// As a []any: a string without "${" is kept as it is, which is
		// what evalTemplate would make of it.
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
		return evalObject(env, l, vars, pending)
	case string:
		if !strings.Contains(v, "${") {
			return v, nil
		}
		return evalTemplate(env, v, vars, pending)
	}
	return v, nil
}

// resourcesByID returns the stack's resources by id, made once.
func (s *Stack) resourcesByID() map[string]*object.Map {
	s.byIDOnce.Do(func() {
		s.byID = make(map[string]*object.Map, len(s.Resources))
		for _, r := range s.Resources {
			s.byID[r.Get("id").(string)] = r
		}
	})
	return s.byID
}
