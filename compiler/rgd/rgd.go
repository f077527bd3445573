// Package rgd compiles the product stacks of a spec (ADR 010,
// docs/decisions.md) into kro
// ResourceGraphDefinitions and their instances. It builds each stack's RGD
// (the objects it reads, externalRefs; the objects it creates, of any kind
// package kro knows, instances of other stacks included; the primitives it
// consumes; forEach collections of either; and each Helm module as a
// multi-source Argo CD Application whose platform wiring is in
// helm.valuesObject, with the Argo CD fields of a module's), checks it
// offline with package kro as kro v0.9 would, and makes one instance per
// client and environment, with the fields platc fills (where the client's
// values live, the AppProject, the wiring from other stacks' outputs).
//
// It reports problems at the spec positions they come from. It writes no
// files; render places the objects it returns.
package rgd

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// kro's API and the values platc builds RGDs with.
const (
	rgdAPIVersion = "kro.run/v1alpha1"
	defaultGroup  = "kro.run"
	// valuesField and projectField are the instance spec fields platc adds
	// to every stack and fills for each client.
	valuesField  = "values"
	projectField = "project"
)

// Stack is a stack compiled into a ResourceGraphDefinition.
type Stack struct {
	Model  *model.Stack
	Result *kro.Result // nil when kro found problems
	Object *object.Map // the ResourceGraphDefinition, as rendered
	// Resources are the entries of spec.resources, in order: id,
	// includeWhen, readyWhen and template.
	Resources []*object.Map

	byIDOnce sync.Once
	byID     map[string]*object.Map // Resources by id
}

// Instance is one client's instance of a stack in one environment.
type Instance struct {
	Client *model.Client
	Env    *model.Environment
	Stack  *Stack
	Spec   map[string]any // the instance spec, defaults not applied
	// Namespace is that of the module that delivers the stack's instances.
	Namespace string
	Object    *object.Map

	validated bool
	defaulted map[string]any // Spec with the CRD's defaults, once validated
	problems  []kro.Problem
}

// Compiled is every stack and instance of a spec.
type Compiled struct {
	Stacks    map[string]*Stack
	Instances []*Instance // sorted by environment, stack, client

	previewMu sync.Mutex                          // guards previews and byVars, not their evaluation
	previews  map[string]func() (*Preview, error) // by instance, each computed once
	// byVars are the previews made, by stack and encoded schema variable:
	// instances that CEL's schema sees alike (clients with the same spec
	// in environments alike) share one preview, evaluated or read once.
	byVars map[string]*Preview
	cache  cache.Cache // keeps previews between runs; nil for none
}

// Compile builds and checks every stack of spec, then its instances. It
// reports problems to log; the result is complete only when log holds no
// errors. cache, when not nil, keeps kro's verdicts between runs; parses,
// when not nil, the parses of the expressions previews evaluate.
func Compile(spec *model.Spec, info *check.Info, cache cache.Cache, parses *kro.Parses, log *diag.Log) *Compiled {
	out := &Compiled{Stacks: map[string]*Stack{}, cache: cache}
	if len(spec.Stacks) == 0 {
		return out
	}
	resolver, err := kro.Embedded()
	if err != nil {
		// The embedded CRDs are ours and tested; this is a bug.
		panic(fmt.Sprintf("platc: embedded CRDs: %v", err))
	}
	prims := primitives(resolver)
	// The gates the platform's kro runs with; ones check refuses are
	// reported there, and the stacks checked with kro's defaults.
	gates := kro.Gates(spec.Platform.Kro.FeatureGates)
	if gates.Check() != nil {
		gates = nil
	}
	used := map[string][]string{} // by stack: the stacks whose instances it creates
	for _, st := range spec.Stacks {
		used[st.Name] = usedStacks(spec.Stacks, st)
	}
	for _, st := range stackOrder(spec.Stacks, used) {
		r := resolver
		// A stack whose resources are instances of other stacks sees
		// the CRDs kro generates for them, as in the cluster.
		var others []*kro.Result
		for _, name := range used[st.Name] {
			if s := out.Stacks[name]; s != nil && s.Result != nil {
				others = append(others, s.Result)
			}
		}
		if len(others) > 0 {
			if with, err := resolver.WithResults(others...); err == nil {
				r = with
			}
		}
		b := &builder{spec: spec, info: info, stack: st, primitives: prims, resolver: r, cache: cache, parses: parses, gates: gates, log: log, origins: map[string]string{}, reported: map[string]bool{}}
		out.Stacks[st.Name] = b.build()
	}
	crdConflicts(spec, out, log)
	out.Instances = instances(spec, info, out, log)
	return out
}

// usedStacks are the stacks whose instances st's resources are, sorted.
func usedStacks(stacks []*model.Stack, st *model.Stack) []string {
	var out []string
	for _, other := range stacks {
		if other == st {
			continue
		}
		for _, r := range st.Resources {
			if r.Kind == other.Kind && r.APIVersion == other.Group+"/"+other.APIVersion && !slices.Contains(out, other.Name) {
				out = append(out, other.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// stackOrder orders the stacks so that a stack comes after the stacks
// whose instances it creates (used, by name; in name order otherwise; a
// cycle is broken where it is met, and the kind that closes it is unknown
// to the stack built first).
func stackOrder(stacks []*model.Stack, used map[string][]string) []*model.Stack {
	byName := map[string]*model.Stack{}
	for _, st := range stacks {
		byName[st.Name] = st
	}
	var out []*model.Stack
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(st *model.Stack)
	visit = func(st *model.Stack) {
		if state[st.Name] != 0 {
			return
		}
		state[st.Name] = 1
		for _, name := range used[st.Name] {
			visit(byName[name])
		}
		state[st.Name] = 2
		out = append(out, st)
	}
	for _, st := range stacks {
		visit(st)
	}
	return out
}

// builder builds one stack's RGD and remembers where each part of it came
// from in the spec, to place kro's problems.
type builder struct {
	spec  *model.Spec
	info  *check.Info
	stack *model.Stack
	// primitives are the kinds a primitive may have, by kind name.
	primitives map[string]kro.Kind
	resolver   *kro.Kinds
	cache      cache.Cache
	parses     *kro.Parses
	gates      kro.Gates
	log        *diag.Log
	origins    map[string]string // resource id + "|" + kro path -> spec path
	// reported are the resources whose kind platc refused already, whose
	// kind kro cannot resolve either.
	reported map[string]bool
}

func (b *builder) build() *Stack {
	st := b.stack
	rgd := &kro.RGD{
		Name:       st.Name,
		APIVersion: st.APIVersion,
		Kind:       st.Kind,
		Group:      st.Group,
		Spec:       b.instanceSpec(),
		Types:      st.Types,
		Status:     st.Status,
		Gates:      b.gates,
	}
	var resources []*object.Map
	add := func(r kro.Resource, obj *object.Map) {
		rgd.Resources = append(rgd.Resources, r)
		resources = append(resources, obj)
	}
	for _, e := range st.ExternalRefs {
		add(b.externalRef(e))
	}
	for _, res := range st.Resources {
		add(b.resource(res))
	}
	for _, p := range st.Primitives {
		add(b.primitive(p))
	}
	for _, m := range st.Modules {
		add(b.module(m))
	}
	rgd.Kinds, rgd.Cache, rgd.Parses = b.resolver, b.cache, b.parses
	result, problems := kro.Check(rgd)
	for _, p := range problems {
		if b.reported[p.Resource] && (p.Path == "template.kind" || p.Path == "template.apiVersion") {
			continue
		}
		pos, specPath := b.place(p)
		b.log.Reportf(p.ID, pos, specPath, "%s", p.Msg)
	}
	b.ahead(rgd)
	return &Stack{Model: st, Result: result, Object: b.object(rgd, resources), Resources: resources}
}

// ahead reports what kro's next minor release (kro.Next) will refuse in
// the stack's RGD: a warning, and an error where an environment that
// the stack's definitions go to declares that release.
func (b *builder) ahead(rgd *kro.RGD) {
	problems := kro.Ahead(rgd)
	if len(problems) == 0 {
		return
	}
	var declaring []string
	var defs *model.Module
	if b.info != nil {
		defs = b.info.Definitions[b.stack.Name]
	}
	if defs != nil {
		for _, env := range b.spec.Environments {
			if check.Enabled(env, defs.Name) && env.Kro.Version != "" && kro.Enforces(env.Kro.Version) {
				declaring = append(declaring, env.Name)
			}
		}
	}
	for _, p := range problems {
		pos, specPath := b.place(p)
		msg := p.Msg
		switch len(declaring) {
		case 0:
		case 1:
			msg = fmt.Sprintf("%s (environment %s declares kro %s, and module %s delivers the stack's definition there)", msg, declaring[0], kro.Next, defs.Name)
		default:
			msg = fmt.Sprintf("%s (environments %s declare kro %s, and module %s delivers the stack's definition there)", msg, diag.List(declaring), kro.Next, defs.Name)
		}
		b.log.ReportFromf(len(declaring) > 0, p.ID, pos, specPath, "%s", msg)
	}
}

// instanceSpec is the stack's SimpleSchema with the fields platc fills.
func (b *builder) instanceSpec() map[string]any {
	spec := object.Merge(map[string]any{}, b.stack.Spec)
	spec[valuesField] = map[string]any{
		"repoURL":  `string | required=true description="Git repository of the client's values files"`,
		"revision": `string | default="main" description="revision of it"`,
		"path":     `string | required=true description="folder of the client's values files for this stack"`,
	}
	spec[projectField] = `string | default="default" description="AppProject of the Applications"`
	if v := chartVersionsSchema(b.spec, b.stack); v != nil {
		spec[chartVersionsField] = v
	}
	return spec
}

func (b *builder) primitive(p *model.Primitive) (kro.Resource, *object.Map) {
	k, ok := b.primitives[p.Kind]
	apiVersion := "platform.example.org/v1alpha1"
	if ok {
		apiVersion = k.APIVersion
		if slices.Contains(k.Required, "spec") && p.Spec == nil {
			b.log.Reportf(diag.Primitive, p.Pos, p.Path, "a %s needs a spec (its CRD requires one): add spec with the fields it takes, such as %s", p.Kind, strings.Join(k.SpecFields, ", "))
		}
	} else {
		b.log.Reportf(diag.UnknownName, p.At("kind"), p.FieldPath("kind"), "unknown primitive kind %q: use one of %s", p.Kind, strings.Join(slices.Sorted(maps.Keys(b.primitives)), ", "))
		b.reported[p.ID] = true
	}
	name := cmp.Or(p.Name, "${schema.metadata.name}-"+Kebab(p.ID))
	tmpl := object.NewMap().
		Set("apiVersion", apiVersion).
		Set("kind", p.Kind).
		Set("metadata", object.NewMap().Set("name", name).Set("namespace", "${schema.metadata.namespace}"))
	tmpl.SetIf(p.Spec != nil, "spec", p.Spec)
	b.origins[p.ID+"|template.metadata.name"] = p.FieldPath("name")
	b.mapPrefix(p.ID, "template.spec", p.FieldPath("spec"))
	return b.templated(p.ID, &p.Node, p.ForEach, p.IncludeWhen, p.ReadyWhen, tmpl)
}

// templated is the graph resource id of template tmpl, written at the spec
// node n, with its forEach, includeWhen and readyWhen: kro's resource and
// the RGD's object, with kro's paths placed at n's fields.
func (b *builder) templated(id string, n *model.Node, forEach []*model.ForEach, includeWhen, readyWhen []string, tmpl *object.Map) (kro.Resource, *object.Map) {
	b.mapPrefix(id, "", n.Path)
	b.mapPrefix(id, "includeWhen", n.FieldPath("includeWhen"))
	b.mapPrefix(id, "readyWhen", n.FieldPath("readyWhen"))
	b.mapPrefix(id, "forEach", n.FieldPath("forEach"))
	dims := b.dimensions(forEach)
	return kro.Resource{ID: id, Template: object.Plain(tmpl).(map[string]any), ForEach: dims, IncludeWhen: includeWhen, ReadyWhen: readyWhen},
		resourceObject(id, dims, includeWhen, readyWhen, "template", tmpl)
}

// resource is an object of a stack's resources: its template, with the
// default name, and a namespaced kind's namespace the instance's, where
// it sets none. Its kind is kro's to check (a kind with no known schema
// is one kro cannot type).
func (b *builder) resource(r *model.Resource) (kro.Resource, *object.Map) {
	meta, _ := r.Template["metadata"].(map[string]any)
	m := object.NewMap()
	name, hasName := meta["name"]
	if !hasName {
		name = "${schema.metadata.name}-" + Kebab(r.ID)
	}
	m.Set("name", name)
	if ns, ok := meta["namespace"]; ok {
		m.Set("namespace", ns)
	} else if k, ok := b.resolver.Kind(r.APIVersion, r.Kind); ok && k.Namespaced {
		m.Set("namespace", "${schema.metadata.namespace}")
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		m.SetIf(k != "name" && k != "namespace", k, meta[k])
	}
	tmpl := object.NewMap()
	for _, k := range []string{"apiVersion", "kind"} {
		if v, ok := r.Template[k]; ok {
			tmpl.Set(k, v)
		}
	}
	tmpl.Set("metadata", m)
	for _, k := range slices.Sorted(maps.Keys(r.Template)) {
		tmpl.SetIf(k != "apiVersion" && k != "kind" && k != "metadata", k, r.Template[k])
	}
	b.mapPrefix(r.ID, "template", r.FieldPath("template"))
	if !hasName {
		// The default name: a problem with it is the resource's.
		b.origins[r.ID+"|template.metadata.name"] = r.Path
	}
	return b.templated(r.ID, &r.Node, r.ForEach, r.IncludeWhen, r.ReadyWhen, tmpl)
}

// externalRef is an object the stack reads: kro's externalRef by name.
func (b *builder) externalRef(e *model.ExternalRef) (kro.Resource, *object.Map) {
	meta := object.NewMap().Set("name", e.Name)
	meta.SetIf(e.Namespace != "", "namespace", e.Namespace)
	ref := object.NewMap().Set("apiVersion", e.APIVersion).Set("kind", e.Kind).Set("metadata", meta)
	b.origins[e.ID+"|externalRef.metadata.name"] = e.FieldPath("name")
	b.origins[e.ID+"|externalRef.metadata.namespace"] = e.FieldPath("namespace")
	b.mapPrefix(e.ID, "externalRef", e.Path)
	b.mapPrefix(e.ID, "", e.Path)
	return kro.Resource{ID: e.ID, ExternalRef: &kro.ExternalRef{APIVersion: e.APIVersion, Kind: e.Kind, Name: e.Name, Namespace: e.Namespace}},
		resourceObject(e.ID, nil, nil, nil, "externalRef", ref)
}

// dimensions are the forEach entries that name one iterator; the others
// are reported.
func (b *builder) dimensions(entries []*model.ForEach) []kro.Dimension {
	var out []kro.Dimension
	for _, f := range entries {
		if f.Name == "" {
			if len(f.Names) != 1 {
				b.log.Reportf(diag.KroForEach, f.Pos, f.Path, "a forEach entry names %d iterators (%s): give each entry one iterator and the list it iterates, such as {region: \"${schema.spec.regions}\"}, and several entries for a cartesian product", len(f.Names), strings.Join(f.Names, ", "))
			}
			continue
		}
		out = append(out, kro.Dimension{Name: f.Name, Expr: f.Expr})
	}
	return out
}

// module is a Helm module as a multi-source Application: the chart, with
// the client's values file and the platform's values and wiring, and the
// client's values repository as ref "values".
func (b *builder) module(m *model.StackModule) (kro.Resource, *object.Map) {
	name := AppName("${schema.metadata.name}", m.ID)
	for _, f := range m.ForEach {
		if f.Name != "" {
			// One Application per element: every iterator in the name,
			// as kro requires of a collection's objects.
			name += "-${" + f.Name + "}"
		}
	}
	namespace := cmp.Or(m.Namespace, b.stack.Namespace)
	values := object.Merge(nil, m.Values)
	const valuesObject = "template.spec.sources[0].helm.valuesObject"
	for _, w := range m.Wiring {
		if w.ValuesPath == nil {
			continue // reported by check
		}
		values = object.SetPath(values, w.ValuesPath, w.Expr)
		at := valuesObject
		for _, label := range w.ValuesPath {
			at = kro.JoinPath(at, label)
		}
		b.origins[m.ID+"|"+at] = w.Path
	}
	helm := object.NewMap().
		Set("releaseName", name).
		Set("valueFiles", []string{"$values/${schema.spec.values.path}/" + m.ValuesFile}).
		// A team's override file is optional: the fast lane, not a duty.
		Set("ignoreMissingValueFiles", true)
	helm.SetIf(len(values) > 0, "valuesObject", values)
	chartSource := object.NewMap().Set("repoURL", "")
	if c := b.spec.Chart(m.Chart); c != nil {
		chartSource = argocd.ChartSource(c)
		if rev := chartRevision(b.spec, m); rev != "" {
			chartSource.Set("targetRevision", rev)
		}
	}
	chartSource.Set("helm", helm)
	valuesSource := object.NewMap().
		Set("repoURL", "${schema.spec.values.repoURL}").
		Set("targetRevision", "${schema.spec.values.revision}").
		Set("ref", argocd.ValuesRef)
	spec := object.NewMap().Set("project", "${schema.spec.project}")
	argocd.SetDescription(spec, m.Description)
	options := append([]string{argocd.CreateNamespace}, m.SyncOptions...)
	respect := argocd.RespectsIgnoreDifferences(m.IgnoreDifferences, m.RespectIgnoreDifferences)
	spec.Set("sources", []any{chartSource, valuesSource}).
		Set("destination", object.NewMap().Set("server", argocd.InClusterServer).Set("namespace", namespace))
	argocd.SetSync(spec, argocd.SyncPolicyFor(m.Sync(), options, respect, nil), m.IgnoreDifferences, m.RevisionHistoryLimit)
	meta := object.NewMap().
		Set("name", name).
		// Applications in any namespace: kro creates them beside the
		// instance (ADR 010), so their project must list it in
		// sourceNamespaces.
		Set("namespace", "${schema.metadata.namespace}")
	if b.spec.Platform.GeneratePaths {
		// The Application's only Git source is the client's values
		// folder: a commit elsewhere in that repository need not refresh
		// it (as render does for a module's Applications).
		meta.Set("annotations", object.NewMap().Set(argocd.ManifestGeneratePaths, "/${schema.spec.values.path}"))
	}
	meta.Set("finalizers", []string{argocd.ResourcesFinalizer})
	tmpl := argocd.Application(meta, spec)
	readyWhen := m.ReadyWhen
	if readyWhen == nil {
		// Healthy alone is not delivered: Argo CD reports an
		// Application whose chart it cannot fetch (no resources, sync
		// status Unknown) as Healthy, so the instance would be ready
		// with nothing deployed (seen by the delivery test, e2e/).
		self := m.ID
		if len(m.ForEach) > 0 {
			self = "each" // a collection's readyWhen reads each object
		}
		readyWhen = []string{fmt.Sprintf(`${%[1]s.status.health.status == "Healthy" && %[1]s.status.sync.status == "Synced"}`, self)}
	}
	b.mapPrefix(m.ID, valuesObject, m.FieldPath("values"))
	b.mapPrefix(m.ID, "template.spec.destination.namespace", m.FieldPath("namespace"))
	return b.templated(m.ID, &m.Node, m.ForEach, m.IncludeWhen, readyWhen, tmpl)
}

// mapPrefix records that kro paths of a resource starting with prefix come
// from the spec path specPrefix (the rest of the path appended).
func (b *builder) mapPrefix(id, prefix, specPrefix string) {
	b.origins[id+"|"+prefix+"*"] = specPrefix
}

// place is where kro's problem p is written in the spec, and its spec
// path (origin): inside the expression, where p says where in it.
func (b *builder) place(p kro.Problem) (diag.Pos, string) {
	specPath := b.origin(p.Resource, p.Path)
	if p.Str != "" {
		return b.spec.PosIn(specPath, p.Str, p.Offset), specPath
	}
	return b.spec.PosOf(specPath), specPath
}

// origin returns the spec path a problem of kro's comes from: the exact
// place where it is known (a wiring entry), else the spec path that holds
// the longest recorded prefix of kro's path, with the rest appended.
func (b *builder) origin(resource, kroPath string) string {
	st := b.stack
	if resource == "" {
		head, _, _ := strings.Cut(kroPath, ".")
		switch head {
		case "status", "spec", "types":
			return appendKroPath(st.Path, kroPath)
		case "kind", "apiVersion", "group":
			return st.FieldPath(head)
		}
		return st.Path
	}
	if p, ok := b.origins[resource+"|"+kroPath]; ok {
		return p
	}
	best, bestLen := st.Path, -1
	for key, specPath := range b.origins {
		id, prefix, _ := strings.Cut(key, "|")
		prefix, isPrefix := strings.CutSuffix(prefix, "*")
		if id != resource || !isPrefix || len(prefix) <= bestLen {
			continue
		}
		if rest, ok := strings.CutPrefix(kroPath, prefix); ok && (prefix == "" || rest == "" || rest[0] == '.' || rest[0] == '[') {
			if prefix == "" {
				rest = ""
			}
			best, bestLen = appendKroPath(specPath, strings.TrimPrefix(rest, ".")), len(prefix)
		}
	}
	return best
}

// appendKroPath appends a kro path (a.b[0].c["d.e"], as kro.JoinPath
// writes it) to a spec path, label by label; list indices stay on their
// label.
func appendKroPath(base, kroPath string) string {
	for p := kroPath; p != ""; {
		switch {
		case strings.HasPrefix(p, `["`):
			q, err := strconv.QuotedPrefix(p[1:])
			label, uerr := strconv.Unquote(q)
			if err != nil || uerr != nil || !strings.HasPrefix(p[1+len(q):], "]") {
				return diag.JoinPath(base, p) // not kro's: keep it whole
			}
			base = diag.JoinPath(base, label)
			p = p[1+len(q)+1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return diag.JoinPath(base, p)
			}
			base += p[:end+1]
			p = p[end+1:]
		case p[0] == '.':
			p = p[1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			base = diag.JoinPath(base, p[:end])
			p = p[end:]
		}
	}
	return base
}

// resourceObject is an entry of spec.resources, in kro's order of keys;
// body is its template or externalRef, under the key given.
func resourceObject(id string, forEach []kro.Dimension, includeWhen, readyWhen []string, key string, body *object.Map) *object.Map {
	r := object.NewMap().Set("id", id)
	if len(forEach) > 0 {
		dims := make([]any, len(forEach))
		for i, d := range forEach {
			dims[i] = object.NewMap().Set(d.Name, d.Expr)
		}
		r.Set("forEach", dims)
	}
	r.SetIf(len(includeWhen) > 0, "includeWhen", includeWhen)
	r.SetIf(len(readyWhen) > 0, "readyWhen", readyWhen)
	return r.Set(key, body)
}

// object is the ResourceGraphDefinition.
func (b *builder) object(rgd *kro.RGD, resources []*object.Map) *object.Map {
	st := b.stack
	schema := object.NewMap().
		Set("apiVersion", rgd.APIVersion).
		Set("kind", rgd.Kind)
	schema.SetIf(rgd.Group != "" && rgd.Group != defaultGroup, "group", rgd.Group)
	schema.Set("spec", rgd.Spec)
	schema.SetIf(len(rgd.Types) > 0, "types", rgd.Types)
	schema.SetIf(len(rgd.Status) > 0, "status", rgd.Status)
	items := make([]any, len(resources))
	for i, r := range resources {
		items[i] = r
	}
	meta := object.NewMap().Set("name", st.Name)
	if st.Description != "" {
		meta.Set("annotations", object.NewMap().Set("platc.dev/description", st.Description))
	}
	return object.NewMap().
		Set("apiVersion", rgdAPIVersion).
		Set("kind", "ResourceGraphDefinition").
		Set("metadata", meta).
		Set("spec", object.NewMap().Set("schema", schema).Set("resources", items))
}

// Kebab turns a resource id into a name part: lokiBucket is loki-bucket.
func Kebab(id string) string {
	var b strings.Builder
	for i, r := range id {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AppName is the name of the Application of a stack's Helm module in the
// instance named instance (the client's name, or "${schema.metadata.name}"
// in the RGD's template): <instance>-<module id in kebab case>.
func AppName(instance, moduleID string) string {
	return instance + "-" + Kebab(moduleID)
}

// ValuesPath is the folder of a client's values files for a stack, in the
// client's values repository.
func ValuesPath(cl *model.Client, st *model.Stack) string {
	return path.Join(cl.Values.Prefix, st.ValuesDir)
}

// CRD returns the CustomResourceDefinition kro generates for the stack's
// instances, as plain data, or nil when the stack did not compile. It lets
// the instances platc renders be validated like any other object.
func (s *Stack) CRD() map[string]any {
	if s.Result == nil {
		return nil
	}
	return s.Result.CRD
}

// crdConflicts reports stacks whose instance CRDs kro cannot both create:
// the same CRD name (the second RGD's CRD is owned by the first), or, in
// one group, names the other serves already (the API server accepts the
// names of the first CRD only).
func crdConflicts(spec *model.Spec, out *Compiled, log *diag.Log) {
	type names struct {
		stack          *model.Stack
		crd, group     string
		kind, plural   string
		singular, list string
	}
	var all []names
	for _, st := range spec.Stacks {
		s := out.Stacks[st.Name]
		if s.Result == nil {
			continue
		}
		str := func(path ...string) string { v, _ := object.Lookup(s.Result.CRD, path...).(string); return v }
		all = append(all, names{st, str("metadata", "name"), str("spec", "group"), str("spec", "names", "kind"),
			str("spec", "names", "plural"), str("spec", "names", "singular"), str("spec", "names", "listKind")})
	}
	for i, b := range all {
		for _, a := range all[:i] {
			switch {
			case a.crd == b.crd:
				log.Reportf(diag.KroCRD, b.stack.At("kind"), b.stack.FieldPath("kind"), "the instances of stacks %s and %s would have the same CRD, %s: kro creates it for the first RGD and refuses the second (kro: CRD is owned by another ResourceGraphDefinition); choose another kind or group", a.stack.Name, b.stack.Name, b.crd)
			case a.group == b.group && slices.ContainsFunc([]string{b.kind, b.plural, b.singular, b.list}, func(n string) bool {
				return slices.Contains([]string{a.kind, a.plural, a.singular, a.list}, n)
			}):
				log.Reportf(diag.KroCRD, b.stack.At("kind"), b.stack.FieldPath("kind"), "the CRD of stack %s's instances (%s) would serve a name the CRD of stack %s (%s) serves in group %s already: the API server does not accept the names of the second; choose another kind or group", b.stack.Name, b.crd, a.stack.Name, a.crd, b.group)
			}
		}
	}
}
