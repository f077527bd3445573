package model

import (
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
)

// DefaultOutDir is the output root when the spec names none.
const DefaultOutDir = "out"

// OutDir is Decode(loaded).Platform.OutDir, read alone: the output folder
// can be read while the rest of the spec decodes.
func OutDir(loaded *load.Spec) string {
	v := loaded.Value.LookupPath(cue.ParsePath("platform.outDir"))
	if s, err := v.String(); err == nil {
		return s
	}
	return DefaultOutDir
}

// Decode turns the loaded spec into a Spec.
func Decode(loaded *load.Spec) *Spec {
	d := &decoder{decls: loaded.Decls, valid: loaded.Valid}
	v := loaded.Value
	s := &Spec{charts: map[string]*Chart{}, modules: map[string]*Module{}, stacks: map[string]*Stack{}, environments: map[string]*Environment{}, decls: loaded.Decls}
	s.Platform = decodePlatform(d.entry(v.LookupPath(cue.MakePath(cue.Str("platform"))), "platform"))
	d.eachEntry(v, "charts", func(name string, e entry) {
		c := &Chart{Node: e.node, Name: name}
		c.RepoURL = e.str("repoURL")
		c.Chart = e.str("chart")
		c.Version = e.str("version")
		s.Charts = append(s.Charts, c)
		s.charts[name] = c
	})
	d.eachEntry(v, "modules", func(name string, e entry) {
		m := decodeModule(name, e)
		s.Modules = append(s.Modules, m)
		s.modules[name] = m
	})
	d.eachEntry(v, "environments", func(name string, e entry) {
		env := decodeEnvironment(name, e)
		s.Environments = append(s.Environments, env)
		s.environments[name] = env
	})
	d.eachEntry(v, "stacks", func(name string, e entry) {
		st := decodeStack(name, e)
		s.Stacks = append(s.Stacks, st)
		s.stacks[name] = st
	})
	d.eachEntry(v, "clients", func(name string, e entry) {
		s.Clients = append(s.Clients, decodeClient(name, e))
	})
	return s
}

func decodeStack(name string, e entry) *Stack {
	st := &Stack{Node: e.node, Name: name}
	st.Description = e.str("description")
	st.Kind = e.str("kind")
	st.APIVersion = e.strOr("apiVersion", "v1alpha1")
	st.Group = e.strOr("group", "kro.run")
	st.Spec = e.values("spec")
	st.Status = e.values("status")
	st.ValuesDir = e.strOr("valuesDir", name)
	st.Namespace = e.strOr("namespace", "${schema.metadata.namespace}")
	e.eachField("outputs", func(out string, o entry) {
		expr, _ := o.v.String()
		st.Outputs = append(st.Outputs, &Output{Node: o.node, Name: out, Expr: expr})
	})
	e.eachField("wiring", func(key string, w entry) {
		st.Wiring = append(st.Wiring, &StackWire{
			Node: w.node, Key: key, SpecPath: SplitValuesPath(key),
			FromStack: w.str("stack"), FromOutput: w.str("output"),
		})
	})
	e.eachFieldInOrder("primitives", func(id string, p entry) {
		st.Primitives = append(st.Primitives, &Primitive{
			Node: p.node, ID: id, Kind: p.str("kind"), Name: p.str("name"),
			Spec: p.values("spec"), IncludeWhen: p.strings("includeWhen"), ReadyWhen: p.strings("readyWhen"),
		})
	})
	e.eachFieldInOrder("modules", func(id string, m entry) {
		sm := &StackModule{
			Node: m.node, ID: id, Description: m.str("description"), Chart: m.str("chart"),
			Namespace: m.str("namespace"), ValuesFile: m.strOr("valuesFile", id+".yaml"),
			Values: m.values("values"), IncludeWhen: m.strings("includeWhen"), ReadyWhen: m.strings("readyWhen"),
			SyncOptions: m.strings("syncOptions"), Allow: m.allow(),
		}
		m.eachField("wiring", func(key string, w entry) {
			expr, _ := w.v.String()
			sm.Wiring = append(sm.Wiring, &ExprWire{Node: w.node, Key: key, ValuesPath: SplitValuesPath(key), Expr: expr})
		})
		st.Modules = append(st.Modules, sm)
	})
	return st
}

func decodeClient(name string, e entry) *Client {
	c := &Client{Node: e.node, Name: name, Description: e.str("description"), Allow: e.allow()}
	v := e.sub("values")
	c.Values = ClientValues{
		Node: v.node, RepoURL: v.str("repoURL"),
		Revision: v.strOr("revision", "main"), Prefix: v.strOr("prefix", "clients/"+name),
	}
	e.eachField("stacks", func(stack string, s entry) {
		c.Stacks = append(c.Stacks, &ClientStack{
			Node: s.node, Stack: stack, Environments: s.strings("environments"),
			Spec: s.values("spec"), Project: s.str("project"),
		})
	})
	return c
}

func decodePlatform(e entry) Platform {
	return Platform{
		Node:               e.node,
		Name:               e.str("name"),
		Description:        e.str("description"),
		RepoURL:            e.str("repoURL"),
		OutDir:             e.strOr("outDir", DefaultOutDir),
		ArgoCDNamespace:    e.strOr("argocdNamespace", "argocd"),
		DefaultEnvironment: e.str("defaultEnvironment"),
		ResourceTracking:   e.strOr("resourceTracking", "annotation"),
	}
}

func decodeModule(name string, e entry) *Module {
	m := &Module{Node: e.node, Name: name}
	m.Description = e.str("description")
	m.Chart = e.str("chart")
	m.Dir = e.str("path")
	m.Members = e.strings("group")
	if e.Has("stacks") {
		m.Stacks = e.strings("stacks")
	} else {
		m.Stacks = e.strings("definitions")
	}
	kinds := 0
	for k, field := range Kinds {
		if field != "" && e.Has(field) {
			kinds++
			m.Kind = ModuleKind(k)
		}
	}
	if kinds != 1 {
		m.Kind = KindInvalid
	}
	m.Namespace = e.str("namespace")
	m.Needs = e.strings("needs")
	if w, ok := e.int("wave"); ok {
		wave := int(w)
		m.Wave = &wave
	}
	m.Values = e.values("values")
	m.Endpoint = e.endpoint("endpoint")
	m.CreateNamespace = e.boolOr("createNamespace", true)
	m.SyncOptions = e.strings("syncOptions")
	m.CascadeDelete = e.boolOr("cascadeDelete", true)
	m.Allow = e.allow()
	e.eachField("wiring", func(key string, w entry) {
		m.Wiring = append(m.Wiring, &Wire{
			Node:       w.node,
			Key:        key,
			ValuesPath: SplitValuesPath(key),
			From:       w.str("from"),
			Field:      w.strOr("field", "address"),
		})
	})
	return m
}

func decodeEnvironment(name string, e entry) *Environment {
	env := &Environment{Node: e.node, Name: name, Settings: map[string]*ModuleSettings{}}
	env.Description = e.str("description")
	env.Revision = e.str("revision")
	env.Pinned = e.boolOr("pinned", false)
	env.DirectApply = e.boolOr("directApply", false)
	env.Project = e.strOr("project", "default")
	d := e.sub("destination")
	env.Destination = Destination{Node: d.node, Server: d.str("server"), Name: d.str("name")}
	if env.Destination.Server == "" && env.Destination.Name == "" {
		env.Destination.Server = "https://kubernetes.default.svc"
	}
	e.eachField("projects", func(pname string, p entry) {
		proj := &Project{Node: p.node, Name: pname}
		proj.Description = p.str("description")
		proj.SourceRepos = p.strings("sourceRepos")
		p.eachElem("destinations", func(d entry) {
			proj.Destinations = append(proj.Destinations, ProjectDestination{
				Server: d.str("server"), Name: d.str("name"), Namespace: d.str("namespace"),
			})
		})
		proj.ClusterResourceWhitelist = p.groupKinds("clusterResourceWhitelist")
		proj.NamespaceResourceBlacklist = p.groupKinds("namespaceResourceBlacklist")
		proj.SourceNamespaces = p.strings("sourceNamespaces")
		proj.Allow = p.allow()
		env.Projects = append(env.Projects, proj)
	})
	e.eachField("modules", func(mname string, s entry) {
		env.Settings[mname] = &ModuleSettings{
			Node:     s.node,
			Module:   mname,
			Enabled:  s.boolOr("enabled", true),
			External: s.endpoint("external"),
			Values:   s.values("values"),
			Project:  s.str("project"),
		}
	})
	return env
}

// decoder holds what every entry needs to place itself.
type decoder struct {
	decls map[string]diag.Pos
	// valid says every field is concrete and free of errors (load.Spec):
	// then none is checked, which saves a CUE evaluation context per value.
	valid bool
}

// entry is a CUE struct being decoded, with its node.
type entry struct {
	d    *decoder
	v    cue.Value
	node Node
	// vals are the fields' values, defaults taken, read once by entry so
	// that decoding a field does not look it up again.
	vals map[string]cue.Value
}

// entry starts decoding the struct v at the spec path. Its position is where
// its label was written; each field's is where its value was written, or
// its label.
func (d *decoder) entry(v cue.Value, path string) entry {
	e := entry{d: d, v: v, node: Node{Path: path, Pos: d.decls[path], fields: map[string]field{}}, vals: map[string]cue.Value{}}
	if !v.Exists() {
		return e
	}
	if !e.node.Pos.IsValid() {
		e.node.Pos = load.Pos(v)
	}
	if !e.node.Pos.IsValid() {
		e.node.Pos = diag.Nearest(d.decls, diag.ParentPath(path))
	}
	it, err := v.Fields()
	if err != nil {
		return e
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		x, _ := it.Value().Default()
		pos := load.Pos(x)
		if k := x.IncompleteKind(); !pos.IsValid() || k == cue.StructKind || k == cue.ListKind {
			// A struct or a list is placed at its label.
			if p, ok := d.decls[diag.JoinPath(path, name)]; ok {
				pos = p
			}
		}
		e.node.fields[name] = field{pos: pos, ok: d.valid || usable(x)}
		e.vals[name] = x
	}
	return e
}

// Has reports whether the field is set in the spec.
func (e entry) Has(field string) bool { return e.node.Has(field) }

// usable reports whether a field's value, its default taken, can be
// decoded: it has no error (load reported those) and is concrete, or a
// struct or list whose parts are decoded one by one.
func usable(v cue.Value) bool {
	if v.Err() != nil {
		return false
	}
	switch v.IncompleteKind() {
	case cue.StructKind, cue.ListKind:
		return true
	}
	return v.IsConcrete()
}

// field returns the value of a field that is set and usable, its default
// taken where it is a disjunction with one (*"HEAD" | string).
func (e entry) field(name string) (cue.Value, bool) {
	if !e.node.OK(name) {
		return cue.Value{}, false
	}
	return e.vals[name], true
}

func (e entry) str(name string) string { return e.strOr(name, "") }

func (e entry) strOr(name, def string) string {
	if v, ok := e.field(name); ok {
		if s, err := v.String(); err == nil {
			return s
		}
	}
	return def
}

func (e entry) boolOr(name string, def bool) bool {
	if v, ok := e.field(name); ok {
		if b, err := v.Bool(); err == nil {
			return b
		}
	}
	return def
}

func (e entry) int(name string) (int64, bool) {
	if v, ok := e.field(name); ok {
		if i, err := v.Int64(); err == nil {
			return i, true
		}
	}
	return 0, false
}

func (e entry) strings(name string) []string {
	var out []string
	e.eachElem(name, func(x entry) {
		if s, err := x.v.String(); err == nil {
			out = append(out, s)
		}
	})
	return out
}

// allow decodes the allow field: reasons by lint name.
func (e entry) allow() Allow {
	var out Allow
	e.eachField("allow", func(lint string, x entry) {
		if out == nil {
			out = Allow{}
		}
		out[lint], _ = x.v.String()
	})
	return out
}

func (e entry) groupKinds(name string) []GroupKind {
	var out []GroupKind
	e.eachElem(name, func(x entry) {
		out = append(out, GroupKind{Group: x.str("group"), Kind: x.str("kind")})
	})
	return out
}

func (e entry) sub(name string) entry {
	v, _ := e.field(name)
	sub := e.d.entry(v, e.node.FieldPath(name))
	if !sub.node.Pos.IsValid() {
		sub.node.Pos = e.node.Pos
	}
	return sub
}

func (e entry) endpoint(name string) *Endpoint {
	if !e.Has(name) {
		return nil
	}
	s := e.sub(name)
	port, _ := s.int("port")
	return &Endpoint{Node: s.node, Host: s.str("host"), Port: port, Scheme: s.str("scheme")}
}

func (e entry) values(name string) map[string]any {
	v, ok := e.field(name)
	if !ok {
		return nil
	}
	m, _ := value(v, e.d.valid).(map[string]any)
	return m
}

// eachField calls fn for each field of the struct-valued field name, in
// sorted order.
func (e entry) eachField(name string, fn func(string, entry)) {
	v, ok := e.field(name)
	if !ok {
		return
	}
	e.d.eachField(v, e.node.FieldPath(name), true, fn)
}

func (e entry) eachElem(name string, fn func(entry)) {
	v, ok := e.field(name)
	if !ok {
		return
	}
	it, err := v.List()
	if err != nil {
		return
	}
	for i := 0; it.Next(); i++ {
		x := e.d.entry(it.Value(), e.node.FieldPath(name)+"["+strconv.Itoa(i)+"]")
		if !x.node.Pos.IsValid() {
			x.node.Pos = e.node.At(name)
		}
		fn(x)
	}
}

// eachFieldInOrder is eachField in the order the fields were written, for
// lists whose order the author chose (a stack's resources).
func (e entry) eachFieldInOrder(name string, fn func(string, entry)) {
	if v, ok := e.field(name); ok {
		e.d.eachField(v, e.node.FieldPath(name), false, fn)
	}
}

func (d *decoder) eachEntry(root cue.Value, name string, fn func(string, entry)) {
	v := root.LookupPath(cue.MakePath(cue.Str(name)))
	if !v.Exists() {
		return
	}
	d.eachField(v, name, true, fn)
}

// eachField calls fn for each field of the struct v at path, sorted by name
// or in the order they were written.
func (d *decoder) eachField(v cue.Value, path string, sorted bool, fn func(string, entry)) {
	it, err := v.Fields()
	if err != nil {
		return
	}
	type named struct {
		name string
		v    cue.Value
	}
	var fields []named
	for it.Next() {
		v, _ := it.Value().Default()
		fields = append(fields, named{it.Selector().Unquoted(), v})
	}
	if sorted {
		slices.SortFunc(fields, func(a, b named) int { return strings.Compare(a.name, b.name) })
	}
	for _, f := range fields {
		fn(f.name, d.entry(f.v, diag.JoinPath(path, f.name)))
	}
}

// Value converts a concrete CUE value into plain Go data: map[string]any,
// []any, string, int64, float64, bool or nil, taking defaults. Fields and
// elements that are not concrete are left out; load has reported them.
func Value(v cue.Value) any {
	return value(v, false)
}

// value is Value; valid says v is known to be concrete and free of errors
// throughout, so that its parts need no check.
func value(v cue.Value, valid bool) any {
	v, _ = v.Default()
	switch v.Kind() {
	case cue.StructKind:
		m := map[string]any{}
		if it, err := v.Fields(); err == nil {
			for it.Next() {
				if x, ok := concrete(it.Value(), valid); ok {
					m[it.Selector().Unquoted()] = value(x, valid)
				}
			}
		}
		return m
	case cue.ListKind:
		l := []any{}
		if it, err := v.List(); err == nil {
			for it.Next() {
				if x, ok := concrete(it.Value(), valid); ok {
					l = append(l, value(x, valid))
				}
			}
		}
		return l
	case cue.StringKind:
		s, _ := v.String()
		return s
	case cue.BytesKind:
		b, _ := v.Bytes()
		return string(b)
	case cue.IntKind:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case cue.FloatKind:
		f, _ := v.Float64()
		return f
	case cue.BoolKind:
		b, _ := v.Bool()
		return b
	}
	return nil
}

// SplitValuesPath splits a dotted Helm values path ("a.b\.c" is a, b.c).
// It returns nil if the path is empty or has an empty element.
func SplitValuesPath(key string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(key); i++ {
		switch {
		case key[i] == '\\' && i+1 < len(key) && key[i+1] == '.':
			cur.WriteByte('.')
			i++
		case key[i] == '.':
			if cur.Len() == 0 {
				return nil
			}
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(key[i])
		}
	}
	if cur.Len() == 0 {
		return nil
	}
	return append(parts, cur.String())
}

// concrete returns v with its default taken, and whether it is data: a
// concrete scalar, or a struct or list (whose parts Value checks in turn).
func concrete(v cue.Value, valid bool) (cue.Value, bool) {
	v, _ = v.Default()
	if valid {
		return v, true
	}
	if v.Err() != nil {
		return v, false
	}
	switch v.Kind() {
	case cue.StructKind, cue.ListKind:
		return v, true
	}
	return v, v.IsConcrete()
}
