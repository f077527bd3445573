package model

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/object"
)

// DefaultOutDir is the output root when the spec names none.
const DefaultOutDir = "out"

// OutDir is Decode(loaded).Platform.OutDir, read alone so the output
// folder can be read while the spec decodes.
func OutDir(loaded *load.Spec) string {
	if v := loaded.Data.Lookup("platform").Lookup("outDir"); v != nil && v.OK && v.Kind == load.String {
		return v.Str
	}
	return DefaultOutDir
}

// Decode turns the loaded spec into a Spec.
func Decode(loaded *load.Spec) *Spec {
	d := decoder(loaded.Decls)
	v := loaded.Data
	s := &Spec{charts: map[string]*Chart{}, modules: map[string]*Module{}, stacks: map[string]*Stack{}, environments: map[string]*Environment{}, decls: loaded.Decls, literals: loaded.Literals}
	s.Platform = decodePlatform(d.entry(v.Lookup("platform"), "platform"))
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
		if m.RepoURL == s.Platform.RepoURL {
			m.RepoURL = "" // this repository, written out
		}
		for _, src := range m.ExtraSources {
			if src.RepoURL == s.Platform.RepoURL {
				src.RepoURL = ""
			}
		}
		s.Modules = append(s.Modules, m)
		s.modules[name] = m
	})
	// Environments are independent: decode them in parallel.
	type named struct {
		name string
		e    entry
	}
	var envs []named
	d.eachEntry(v, "environments", func(name string, e entry) {
		envs = append(envs, named{name, e})
	})
	s.Environments = make([]*Environment, len(envs))
	object.Parallel(len(envs), func(i int) {
		s.Environments[i] = decodeEnvironment(envs[i].name, envs[i].e)
	})
	for _, env := range s.Environments {
		s.environments[env.Name] = env
	}
	s.resolvePins()
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
	st.Types = e.values("types")
	st.Status = e.values("status")
	st.ValuesDir = e.strOr("valuesDir", name)
	st.Namespace = e.strOr("namespace", "${schema.metadata.namespace}")
	e.eachField("outputs", func(out string, o entry) {
		st.Outputs = append(st.Outputs, &Output{Node: o.node, Name: out, Expr: o.v.Str})
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
			Spec: p.values("spec"), ForEach: p.forEach("forEach"), IncludeWhen: p.strings("includeWhen"), ReadyWhen: p.strings("readyWhen"),
		})
	})
	e.eachFieldInOrder("resources", func(id string, r entry) {
		res := &Resource{Node: r.node, ID: id, Template: r.values("template"),
			ForEach: r.forEach("forEach"), IncludeWhen: r.strings("includeWhen"), ReadyWhen: r.strings("readyWhen")}
		res.APIVersion, _ = res.Template["apiVersion"].(string)
		res.Kind, _ = res.Template["kind"].(string)
		st.Resources = append(st.Resources, res)
	})
	e.eachFieldInOrder("externalRefs", func(id string, r entry) {
		st.ExternalRefs = append(st.ExternalRefs, &ExternalRef{Node: r.node, ID: id, APIVersion: r.str("apiVersion"),
			Kind: r.str("kind"), Name: r.str("name"), Namespace: r.str("namespace")})
	})
	e.eachFieldInOrder("modules", func(id string, m entry) {
		sm := &StackModule{
			Node: m.node, ID: id, Description: m.str("description"), Chart: m.str("chart"),
			Namespace: m.str("namespace"), ValuesFile: m.strOr("valuesFile", id+".yaml"),
			Values: m.values("values"), ForEach: m.forEach("forEach"), IncludeWhen: m.strings("includeWhen"), ReadyWhen: m.strings("readyWhen"),
			SyncOptions: m.strings("syncOptions"), Allow: m.allow(),
			SyncPolicy: m.syncPolicy("syncPolicy"), IgnoreDifferences: m.ignoreDifferences("ignoreDifferences"),
		}
		sm.RespectIgnoreDifferences, sm.RevisionHistoryLimit = m.optionalAppFields()
		m.eachField("wiring", func(key string, w entry) {
			sm.Wiring = append(sm.Wiring, &ExprWire{Node: w.node, Key: key, ValuesPath: SplitValuesPath(key), Expr: w.v.Str})
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
		ApplicationHealth:  e.boolOr("applicationHealth", false),

		KustomizeBuildOptions: e.str("kustomizeBuildOptions"),
		GeneratePaths:         e.boolOr("manifestGeneratePaths", true),
		Kro:                   decodeKro(e.sub("kro")),
	}
}

func decodeKro(e entry) Kro {
	k := Kro{Node: e.node}
	e.eachField("featureGates", func(name string, g entry) {
		if k.FeatureGates == nil {
			k.FeatureGates = map[string]bool{}
		}
		k.FeatureGates[name] = g.v.Kind == load.Bool && g.v.Bool
	})
	return k
}

func decodeModule(name string, e entry) *Module {
	m := &Module{Node: e.node, Name: name}
	m.Description = e.str("description")
	m.Chart = e.str("chart")
	m.Dir = e.str("path")
	m.RepoURL = e.str("repoURL")
	m.Revision = e.str("revision")
	m.Destination = e.destination("destination")
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
	} else if v, ok := e.field("wave"); ok && v.Kind == load.Float && v.Float > 0 {
		// An integer beyond int64 reads as a float: keep the largest
		// int, for check to refuse.
		wave := math.MaxInt
		m.Wave = &wave
	}
	m.Values = e.values("values")
	m.Endpoint = e.endpoint("endpoint")
	m.CreateNamespace = e.boolOr("createNamespace", true)
	m.SyncOptions = e.strings("syncOptions")
	m.CascadeDelete = e.boolOr("cascadeDelete", true)
	m.Allow = e.allow()
	m.AppFields = decodeAppFields(e)
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
	k := e.sub("kubernetes")
	env.Kubernetes = Kubernetes{Node: k.node, Version: k.strOr("version", DefaultKubeVersion), APIVersions: k.strings("apiVersions")}
	a := e.sub("argocd")
	env.ArgoCD = Release{Node: a.node, Version: a.str("version")}
	r := e.sub("kro")
	env.Kro = Release{Node: r.node, Version: r.str("version")}
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
		proj.ProjectFields = decodeProjectFields(p)
		env.Projects = append(env.Projects, proj)
	})
	e.eachField("modules", func(mname string, s entry) {
		env.sources = env.sources || s.Has("repoURL") || s.Has("path") || s.Has("revision") || s.Has("destination") || s.Has("namespace") || s.Has("extraSources")
		env.Settings[mname] = &ModuleSettings{
			Node:     s.node,
			Module:   mname,
			Enabled:  s.boolOr("enabled", true),
			External: s.endpoint("external"),
			Values:   s.values("values"),
			Project:  s.str("project"),

			RepoURL:     s.str("repoURL"),
			Dir:         s.str("path"),
			Revision:    s.str("revision"),
			Destination: s.destination("destination"),
			Namespace:   s.str("namespace"),

			SyncPolicy:        s.syncPolicy("syncPolicy"),
			IgnoreDifferences: s.ignoreDifferences("ignoreDifferences"),
			Labels:            s.strMap("labels"),
			Annotations:       s.strMap("annotations"),
		}
		set := env.Settings[mname]
		set.Helm, set.ExtraSources, set.HasExtraSources = s.helm("helm"), s.extraSources("extraSources"), s.Has("extraSources")
		set.SyncOptions, set.HasSyncOptions = s.strings("syncOptions"), s.Has("syncOptions")
		set.CascadeDelete, set.CreateNamespace = s.optBool("cascadeDelete"), s.optBool("createNamespace")
		env.overrides = env.overrides || set.Helm != nil || set.HasExtraSources || set.HasSyncOptions || set.CascadeDelete != nil || set.CreateNamespace != nil
	})
	env.SyncPolicy = e.syncPolicy("syncPolicy")
	if e.Has("root") {
		r := e.sub("root")
		env.Root = &Root{Node: r.node, Name: r.str("name"), CascadeDelete: r.boolOr("cascadeDelete", false), SyncPolicy: r.syncPolicy("syncPolicy")}
	}
	e.eachField("charts", func(chart string, c entry) {
		env.Charts = append(env.Charts, &ChartPin{Node: c.node, Env: name, Chart: chart, Version: c.str("version")})
	})
	return env
}

// destination decodes a #Destination field, or nil where it is not set.
func (e entry) destination(name string) *Destination {
	if !e.Has(name) {
		return nil
	}
	d := e.sub(name)
	return &Destination{Node: d.node, Server: d.str("server"), Name: d.str("name")}
}

// decoder records where each spec path is declared.
type decoder map[string]diag.Pos

// entry is a struct of the spec being decoded, with its node.
type entry struct {
	d    decoder
	v    *load.Value
	node Node
	// vals are the fields' values, read once by entry.
	vals map[string]*load.Value
}

// entry starts decoding the struct v at the spec path, placed at its
// label; each field at its value, or its label.
func (d decoder) entry(v *load.Value, path string) entry {
	e := entry{d: d, v: v, node: Node{Path: path, Pos: d[path]}}
	if v == nil {
		e.v = &load.Value{}
		return e
	}
	if !e.node.Pos.IsValid() {
		e.node.Pos = v.Pos
	}
	if !e.node.Pos.IsValid() {
		e.node.Pos = diag.Nearest(d, diag.ParentPath(path))
	}
	if len(v.Fields) == 0 {
		return e
	}
	e.node.fields = make(map[string]field, len(v.Fields))
	e.vals = make(map[string]*load.Value, len(v.Fields))
	for _, f := range v.Fields {
		x := f.Value
		pos := x.Pos
		if !pos.IsValid() || x.Kind == load.Struct || x.Kind == load.List {
			// A struct or a list is placed at its label.
			if p, ok := d[diag.JoinPath(path, f.Name)]; ok {
				pos = p
			}
		}
		e.node.fields[f.Name] = field{pos: pos, ok: x.OK}
		e.vals[f.Name] = x
	}
	return e
}

// Has reports whether the field is set in the spec.
func (e entry) Has(field string) bool { return e.node.Has(field) }

// field returns the value of a field that is set and usable.
func (e entry) field(name string) (*load.Value, bool) {
	if !e.node.OK(name) {
		return nil, false
	}
	return e.vals[name], true
}

// container returns the struct or list named name, of the kind given,
// even when something below it does not fit the schema: each entry says
// whether it is usable, and one bad entry must not hide the others (a typo
// in one module's settings must not lose all of them).
func (e entry) container(name string, kind load.Kind) (*load.Value, bool) {
	v := e.vals[name]
	if v == nil || v.Kind != kind || !e.node.Has(name) {
		return nil, false
	}
	return v, true
}

func (e entry) str(name string) string { return e.strOr(name, "") }

func (e entry) strOr(name, def string) string {
	if v, ok := e.field(name); ok && v.Kind == load.String {
		return v.Str
	}
	return def
}

func (e entry) boolOr(name string, def bool) bool {
	if v, ok := e.field(name); ok && v.Kind == load.Bool {
		return v.Bool
	}
	return def
}

func (e entry) int(name string) (int64, bool) {
	if v, ok := e.field(name); ok && v.Kind == load.Int {
		return v.Int, true
	}
	return 0, false
}

func (e entry) strings(name string) []string {
	var out []string
	e.eachElem(name, func(x entry) {
		if x.v.OK && x.v.Kind == load.String {
			out = append(out, x.v.Str)
		}
	})
	return out
}

// allow decodes the allow field: reasons by lint name.
func (e entry) allow() Allow { return e.strMap("allow") }

func (e entry) groupKinds(name string) []GroupKind {
	var out []GroupKind
	e.eachElem(name, func(x entry) {
		out = append(out, GroupKind{Group: x.str("group"), Kind: x.str("kind")})
	})
	return out
}

func (e entry) sub(name string) entry {
	v, ok := e.field(name)
	if x := e.vals[name]; !ok && x != nil && x.Kind == load.Struct {
		v = x // a struct with an error below: its fields have their own OK
	}
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
	m, _ := Value(v).(map[string]any)
	return m
}

// eachField calls fn for each field of the struct-valued field name, in
// sorted order.
func (e entry) eachField(name string, fn func(string, entry)) {
	if v, ok := e.container(name, load.Struct); ok {
		e.d.eachField(v, e.node.FieldPath(name), true, fn)
	}
}

func (e entry) eachElem(name string, fn func(entry)) {
	v, ok := e.container(name, load.List)
	if !ok {
		return
	}
	for i, x := range v.Elems {
		xe := e.d.entry(x, e.node.FieldPath(name)+"["+strconv.Itoa(i)+"]")
		if !xe.node.Pos.IsValid() {
			xe.node.Pos = e.node.At(name)
		}
		fn(xe)
	}
}

// eachFieldInOrder is eachField in the order the fields were written, for
// lists whose order the author chose (a stack's resources).
func (e entry) eachFieldInOrder(name string, fn func(string, entry)) {
	if v, ok := e.container(name, load.Struct); ok {
		e.d.eachField(v, e.node.FieldPath(name), false, fn)
	}
}

func (d decoder) eachEntry(root *load.Value, name string, fn func(string, entry)) {
	if v := root.Lookup(name); v != nil {
		d.eachField(v, name, true, fn)
	}
}

// eachField calls fn for each field of the struct v at path, sorted or in
// written order.
func (d decoder) eachField(v *load.Value, path string, sorted bool, fn func(string, entry)) {
	fields := v.Fields
	if sorted {
		fields = slices.Clone(fields)
		slices.SortFunc(fields, func(a, b load.Field) int { return strings.Compare(a.Name, b.Name) })
	}
	for _, f := range fields {
		fn(f.Name, d.entry(f.Value, diag.JoinPath(path, f.Name)))
	}
}

// Value converts a value of the spec into plain Go data: map[string]any,
// []any, string, int64, float64, bool or nil. Fields and elements that are
// not OK are left out; load has reported them.
func Value(v *load.Value) any {
	switch v.Kind {
	case load.Struct:
		m := make(map[string]any, len(v.Fields))
		for _, f := range v.Fields {
			if f.Value.OK {
				m[f.Name] = Value(f.Value)
			}
		}
		return m
	case load.List:
		l := make([]any, 0, len(v.Elems))
		for _, x := range v.Elems {
			if x.OK {
				l = append(l, Value(x))
			}
		}
		return l
	case load.String, load.Bytes:
		return v.Str
	case load.Int:
		return v.Int
	case load.Float:
		return v.Float
	case load.Bool:
		return v.Bool
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

// forEach decodes a forEach: a list of single-key maps, each an iterator
// and the list it iterates, in the order written.
func (e entry) forEach(name string) []*ForEach {
	var out []*ForEach
	e.eachElem(name, func(x entry) {
		f := &ForEach{Node: x.node}
		for _, fl := range x.v.Fields {
			f.Names = append(f.Names, fl.Name)
		}
		slices.Sort(f.Names)
		if len(x.v.Fields) == 1 && x.v.Fields[0].Value.Kind == load.String {
			f.Name, f.Expr = x.v.Fields[0].Name, x.v.Fields[0].Value.Str
		}
		out = append(out, f)
	})
	return out
}
