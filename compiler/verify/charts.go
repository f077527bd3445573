package verify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
)

// helmSource is one Helm source of an Application, and what renders it.
type helmSource struct {
	src    any
	index  int
	pin    *model.Chart // a pinned chart, or nil for a folder of this repository
	folder string
}

// chartPins indexes the spec's charts by their Argo CD source
// (argocd.ChartSource).
func chartPins(spec *model.Spec) map[pinSource]*model.Chart {
	pins := map[pinSource]*model.Chart{}
	// The environments' own versions too (model.Spec.PinnedVersions),
	// each placed at its pin.
	for _, c := range spec.PinnedVersions() {
		src := argocd.ChartSource(c)
		name, _ := src.Get("chart").(string)
		pins[pinSource{src.Get("repoURL").(string), name, c.Version}] = c
	}
	return pins
}

// pinSource is where Argo CD reads a pinned chart from: a chartPins key.
type pinSource struct{ repoURL, chart, version string }

// helmSources are a's sources that Argo CD renders with Helm and platc can
// render: a pinned chart, or a chart folder of this repository.
func (v *verifier) helmSources(a app) []helmSource {
	var out []helmSource
	for i, src := range sources(object.Lookup(a.obj, "spec")) {
		repo, rev, chart, dir := str(src, "repoURL"), str(src, "targetRevision"), str(src, "chart"), str(src, "path")
		if c := v.pins[pinSource{repo, chart, rev}]; c != nil && (chart != "" || dir == ".") {
			out = append(out, helmSource{src: src, index: i, pin: c})
			continue
		}
		if chart == "" && repo == v.in.Spec.Platform.RepoURL && dir != "" && !rgd.HasPlaceholder(dir) && v.isHelmFolder(dir) {
			out = append(out, helmSource{src: src, index: i, folder: dir})
		}
	}
	return out
}

// charts renders the Helm sources of env's Applications as Argo CD's repo
// server would (compiler/charts), and checks what they give.
func (v *verifier) charts(env *model.Environment, apps []app, e *envArgo) {
	r := v.in.Charts
	if r == nil {
		return
	}
	var rendered []renderedApp
	for _, a := range apps {
		if a.root {
			continue
		}
		for _, hs := range v.helmSources(a) {
			var out *charts.Outcome
			var chart func() (*charts.Chart, error)
			var req charts.Request
			var partial bool
			var what, source string
			if c := hs.pin; c != nil {
				what = "chart " + c.Chart + " " + c.Version
				status, entry, err := r.Pin(c.RepoURL, c.Chart, c.Version)
				switch status {
				case charts.NoLock, charts.Missing:
					r.NotRendered(c.Name, status)
					continue
				case charts.NotLocked:
					r.NotRendered(c.Name+" "+c.Version, status)
					v.log.Reportf(diag.ChartUnlocked, c.Pos, c.Path, "chart %s %s of %s has no entry in %s: it is neither verified nor rendered; run platc charts pull", c.Chart, c.Version, c.RepoURL, path.Join(v.in.SpecDir, charts.LockFile))
					continue
				case charts.Mismatch:
					v.reportf(diag.ChartLock, c.Path, "%v", err)
					continue
				case charts.Ready:
				default:
					panic(fmt.Sprintf("verify: a chart status of unknown kind %d", status))
				}
				source = c.RepoURL + " " + c.Chart + " " + c.Version
				req, partial = v.request(env, a, hs)
				out, chart = r.RenderPin(entry, req)
			} else {
				what, source = "the chart in "+hs.folder, hs.folder
				for _, name := range []string{"Chart.yaml", "values.yaml", "requirements.yaml", "Chart.lock", "requirements.lock"} {
					v.duplicateKeys(path.Join(hs.folder, name), nil)
				}
				req, partial = v.request(env, a, hs)
				var err error
				out, chart, err = r.RenderFolder(hs.folder, req)
				if err != nil {
					v.reportf(diag.ChartLock, a.origin, "%v", err)
					continue
				}
				if out == nil {
					continue // its dependencies are not at hand: UnbuiltFolders says so
				}
			}
			r.Record(charts.NewApp(env.Name, a.name(), a.namespace(), source, out, chart))
			// An Application of a client whose values repository is
			// out of reach is said with the client (compiler.Gap).
			if partial && (a.client == nil || v.in.Layers == nil || v.in.Layers.InReach(a.client.Name)) {
				r.Partial(env.Name + "/" + a.name())
			}
			v.chartOutcome(env, a, hs, what, out, partial, e)
			rendered = append(rendered, renderedApp{a, hs, what, out})
		}
	}
	v.renderedKindsExist(env, rendered)
	v.kroStatusRBAC(env, apps, rendered)
}

// renderedApp is one Helm source rendered for an Application.
type renderedApp struct {
	a    app
	hs   helmSource
	what string
	out  *charts.Outcome
}

// renderedKindsExist reports chart-rendered objects whose kind is wrong
// (kindProblem), once the CRDs of every chart of the environment are known.
func (v *verifier) renderedKindsExist(env *model.Environment, rendered []renderedApp) {
	if len(rendered) == 0 {
		return
	}
	k := v.platformKinds(env)
	outcomes := map[*charts.Outcome]bool{}
	for _, ra := range rendered {
		if outcomes[ra.out] {
			continue
		}
		outcomes[ra.out] = true
		objects, _ := v.objectsOf(ra.out)
		for _, o := range objects {
			if o.defines[1] != "" {
				k.define(o.defines[0], o.defines[1])
			}
		}
	}
	v.envKindsMu.Lock()
	v.envKinds[env] = k
	v.envKindsMu.Unlock()
	// Judge each outcome once: most are shared by many Applications.
	type issue struct {
		kind, source string
		verdict      kindVerdict
	}
	issues := map[*charts.Outcome][]issue{}
	for _, ra := range rendered {
		found, seen := issues[ra.out]
		if !seen {
			objects, _ := v.objectsOf(ra.out)
			reported := map[[2]string]bool{}
			for _, o := range objects {
				key := [2]string{o.apiVersion, o.kind}
				if o.noKind || reported[key] {
					continue
				}
				if verdict := k.verdict(o.apiVersion, o.kind); verdict.msg != "" {
					reported[key] = true
					found = append(found, issue{o.kind, o.source, verdict})
				}
			}
			issues[ra.out] = found
		}
		for _, i := range found {
			v.reportf(i.verdict.id, ra.a.origin, "%s renders %s (%s) for Application %q (%s), which Argo CD %s sync: %s", ra.what, i.kind, i.source, ra.a.name(), where(ra.a, env), i.verdict.can(), i.verdict.msg)
		}
	}
}

// request is what Argo CD's repo server passes to helm template for the
// source (reposerver/repository/repository.go, helmTemplate). partial is
// set when a value file is out of reach (another repository, no checkout):
// the render goes on without it, and errors the missing values could
// explain are not judged.
func (v *verifier) request(env *model.Environment, a app, hs helmSource) (req charts.Request, partial bool) {
	helm := object.Lookup(hs.src, "helm")
	req = charts.Request{
		Release:     cmp.Or(str(helm, "releaseName"), a.name()),
		Namespace:   cmp.Or(str(helm, "namespace"), str(a.obj, "spec", "destination", "namespace")),
		KubeVersion: cmp.Or(str(helm, "kubeVersion"), env.Kubernetes.Version),
		APIVersions: env.Kubernetes.APIVersions,
	}
	if l := strings_(object.Lookup(helm, "apiVersions")); len(l) > 0 {
		req.APIVersions = l
	}
	for _, f := range strings_(object.Lookup(helm, "valueFiles")) {
		data, file, ok, outOfReach := v.valueFile(a, hs, f)
		if ok {
			req.ValueFiles = append(req.ValueFiles, charts.ValuesFile{Name: cmp.Or(file, f), Data: data})
		}
		partial = partial || outOfReach
	}
	if vo := object.Lookup(helm, "valuesObject"); vo != nil {
		req.ValuesObject = v.valuesJSON(vo)
	} else if s := str(helm, "values"); s != "" {
		req.ValuesObject = []byte(s)
	}
	if ps, ok := object.Plain(object.Lookup(helm, "parameters")).([]any); ok {
		for _, p := range ps {
			force, _ := object.Lookup(p, "forceString").(bool)
			req.Parameters = append(req.Parameters, charts.Parameter{Name: str(p, "name"), Value: str(p, "value"), ForceString: force})
		}
		// Argo CD passes them from a map, in no order: here by name.
		slices.SortStableFunc(req.Parameters, func(a, b charts.Parameter) int { return strings.Compare(a.Name, b.Name) })
	}
	req.SkipCRDs, _ = object.Lookup(helm, "skipCrds").(bool)
	req.SkipSchemaValidation, _ = object.Lookup(helm, "skipSchemaValidation").(bool)
	req.SkipTests, _ = object.Lookup(helm, "skipTests").(bool)
	return req, partial
}

// valuesJSON is the JSON of a valuesObject vo, encoded once per map: render
// shares one map among a module's Applications where environments agree,
// and rendered maps never change. The memo keeps the map alive so its
// address, the key, is not reused.
func (v *verifier) valuesJSON(vo any) []byte {
	m, ok := vo.(map[string]any)
	if !ok {
		data, _ := marshalValues(vo)
		return data
	}
	key := reflect.ValueOf(m).UnsafePointer()
	if e, ok := v.values.Load(key); ok {
		return e.(encodedValues).data
	}
	data, _ := marshalValues(m)
	v.values.Store(key, encodedValues{m: m, data: data})
	return data
}

// encodedValues is a map of values and its JSON (valuesJSON).
type encodedValues struct {
	m    map[string]any
	data []byte
}

// valueFile reads a Helm source's values file where platc can: a stack
// instance's client file (read strictly by layers) or a file of this
// repository. A missing file is left out (as Argo CD's
// ignoreMissingValueFiles; valueFiles reports it otherwise); so is one out
// of reach, which outOfReach says. file is its path here, if any.
func (v *verifier) valueFile(a app, hs helmSource, name string) (data []byte, file string, ok, outOfReach bool) {
	if a.client != nil && a.stackModule != nil && v.in.Layers != nil && strings.HasSuffix(name, "/"+a.stackModule.ValuesFile) {
		if !v.in.Layers.InReach(a.client.Name) {
			return nil, "", false, true
		}
		if f := v.in.Layers.File(a.client.Name, a.stack.Name, a.stackModule.ID); f != nil && f.Tree != nil {
			data, err := json.Marshal(f.Tree.Plain())
			return data, "", err == nil, false
		}
		return nil, "", false, false
	}
	if ref, rest, ok := strings.Cut(strings.TrimPrefix(name, "$"), "/"); strings.HasPrefix(name, "$") && ok {
		for _, s := range sources(object.Lookup(a.obj, "spec")) {
			if str(s, "ref") == ref && str(s, "repoURL") == v.in.Spec.Platform.RepoURL {
				file = rest
			}
		}
	} else if hs.folder != "" {
		file = path.Join(hs.folder, name)
	}
	if file == "" || rgd.HasPlaceholder(file) {
		return nil, "", false, true
	}
	data, err := fs.ReadFile(v.in.Repo, file)
	if err == nil {
		v.duplicateKeys(file, data)
	}
	return data, file, err == nil, false
}

// duplicateKeys warns, once per file, of keys set twice in a YAML file Helm
// reads (data, or read here where nil): sigs.k8s.io/yaml takes the last.
func (v *verifier) duplicateKeys(file string, data []byte) {
	if _, done := v.duplicatesRead.LoadOrStore(file, true); done {
		return
	}
	if data == nil {
		var err error
		if data, err = fs.ReadFile(v.in.Repo, file); err != nil {
			return
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			return // the end, or a syntax error Helm reports
		}
		for _, d := range diag.DuplicateKeys(&doc, false) {
			v.log.Reportf(diag.DuplicateKey, diag.Pos{File: file, Line: d.Line, Col: d.Col}, "", "%s", diag.DuplicateMsg(d, "Helm"))
		}
	}
}

// chartOutcome reports what rendering one Helm source found.
func (v *verifier) chartOutcome(env *model.Environment, a app, hs helmSource, what string, out *charts.Outcome, partial bool, e *envArgo) {
	var vo any
	if len(out.Schema) > 0 {
		vo = object.Plain(object.Lookup(hs.src, "helm", "valuesObject"))
	}
	for _, p := range out.Schema {
		if partial || rgd.HasPlaceholder(fmt.Sprint(object.Lookup(vo, p.Path...))) {
			continue // kro fills it in the cluster
		}
		pos, specPath, layer := v.valueLayer(env, a, hs, p.Path)
		v.log.Reportf(diag.ChartValues, pos, specPath, "%s of Application %q (%s) refuses %s (%s): %s: fix the value, or the chart's values.schema.json", what, a.name(), where(a, env), layers.ValuesPath(p.Path), layer, p.Message)
	}
	if out.SchemaNote != "" && !partial {
		if _, seen := v.schemaNotes.LoadOrStore(what+"\x00"+out.SchemaNote, true); !seen {
			v.reportf(diag.ChartSchemaRef, a.origin, "%s: %s", what, out.SchemaNote)
		}
	}
	if out.Error != "" && len(out.Schema) == 0 && !partial {
		v.reportf(diag.ChartRender, a.origin, "%s does not render for Application %q (%s): %s", what, a.name(), where(a, env), strings.Join(strings.Fields(out.Error), " "))
	}
	for _, u := range out.Unknown {
		pos, specPath, layer := v.valueLayer(env, a, hs, u.Path)
		hint := "remove it"
		if u.Suggest != "" {
			hint = fmt.Sprintf("did you mean %q?", layers.ValuesPath(append(slices.Clone(u.Path[:len(u.Path)-1]), u.Suggest)))
		}
		c := unknownCause{pos: pos, specPath: specPath, key: layers.ValuesPath(u.Path), layer: layer, hint: hint}
		v.unknownMu.Lock()
		v.unknown[c] = append(v.unknown[c], unknownSetter{what, a.name(), a.file == "kro", env.Name})
		v.unknownMu.Unlock()
	}
	if out.Len() > 0 {
		v.renderedObjects(env, a, what, out, e)
	}
}

// unknownCause is one key a chart does not have, where it is set.
type unknownCause struct {
	pos                        diag.Pos
	specPath, key, layer, hint string
}

// unknownSetter is an Application that sets an unknownCause's key.
type unknownSetter struct {
	what, name string
	kro        bool
	env        string
}

// noteUnknownKeys reports each key a chart does not have once, where it is
// set, naming the charts (versions of one chart count once), the
// Applications that set it and their environments: `3 Applications,
// created by kro, set in environments customer and local: "a", "b" and
// "c"`.
func (v *verifier) noteUnknownKeys() {
	for c, setters := range v.unknown {
		slices.SortFunc(setters, func(a, b unknownSetter) int {
			return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.env, b.env), strings.Compare(a.what, b.what))
		})
		setters = slices.Compact(setters)
		var whats []string
		kro := true
		type named struct{ name, envs string }
		var apps []named
		for i := 0; i < len(setters); {
			j := i + 1
			for j < len(setters) && setters[j].name == setters[i].name {
				j++
			}
			var envs []string
			for _, s := range setters[i:j] {
				envs = append(envs, s.env)
				whats = append(whats, s.what)
				kro = kro && s.kro
			}
			apps = append(apps, named{setters[i].name, inEnvironments(slices.Compact(envs))})
			i = j
		}
		slices.Sort(whats)
		whats = slices.Compact(whats)
		has := "has"
		if len(whats) > 1 {
			has = "have"
		}
		by := ""
		if kro {
			by = ", created by kro,"
		}
		sameEnvs := true
		for _, a := range apps[1:] {
			sameEnvs = sameEnvs && a.envs == apps[0].envs
		}
		who := fmt.Sprintf("Application %q%s sets %s", apps[0].name, by, apps[0].envs)
		if len(apps) > 1 {
			// "3 Applications: ...", the environments before the names
			// where they are the same.
			set := " set " + apps[0].envs
			items := make([]diag.Item, len(apps))
			for i, a := range apps {
				items[i] = diag.Item{What: "Application", Name: a.name}
				if !sameEnvs {
					items[i].Where, set = a.envs, " set"
				}
			}
			count, names, _ := strings.Cut(diag.Affects(items), ": ")
			who = fmt.Sprintf("%s%s%s: %s", count, by, set, names)
		}
		v.log.ReportStrictf(v.in.Strict, diag.ChartValue, c.pos, c.specPath, "%s %s no value %s (%s), which %s: not in its values.yaml, and no template reads it, so Helm ignores it; %s", diag.List(whats), has, c.key, c.layer, who, c.hint)
	}
}

// inEnvironments says in which environments something holds, for a
// message: "in environment dev", "in environments dev and prod".
func inEnvironments(envs []string) string {
	if len(envs) == 1 {
		return "in environment " + envs[0]
	}
	return "in environments " + diag.List(envs)
}

var group = manifests.Group

// validator is the validator of the embedded CRDs, or the cluster's
// (Input.CRDs), compiled once for schemasCheck and the charts' objects,
// which run concurrently; nil if they do not compile (v.crdsErr says why).
func (v *verifier) validator() *validate.Validator {
	v.crdsOnce.Do(func() {
		if v.in.CRDs != nil {
			v.crds, v.crdsErr = validate.FromCRDs(v.in.CRDs)
		} else {
			v.crds, v.crdsErr = embedded()
		}
	})
	return v.crds
}

// nameProblems are what the API server says of an object's name, by kind
// (k8s.io/kubernetes pkg/apis/*/validation): a DNS-1123 label for a
// Namespace, DNS-1035 for a Service, a path segment for RBAC kinds
// (system:... names are common), a DNS-1123 subdomain otherwise.
func nameProblems(group, kind, name string) []string {
	switch {
	case group == "" && kind == "Namespace":
		return validation.IsDNS1123Label(name)
	case group == "" && kind == "Service":
		return validation.IsDNS1035Label(name)
	case group == "rbac.authorization.k8s.io":
		var msgs []string
		if name == "." || name == ".." {
			msgs = append(msgs, fmt.Sprintf("may not be %q", name))
		}
		if strings.ContainsAny(name, "/%") {
			msgs = append(msgs, "may not contain '/' or '%'")
		}
		return msgs
	}
	return validation.IsDNS1123Subdomain(name)
}

// valueLayer says which layer of an Application's values sets the value
// Helm uses at p (or its nearest set parent).
func (v *verifier) valueLayer(env *model.Environment, a app, hs helmSource, p []string) (diag.Pos, string, string) {
	spec := v.in.Spec
	if x := extraSource(env, a, hs); x != nil {
		if n := setDepth(x.Values, p); n > 0 {
			at := layers.AppendLabels(x.FieldPath("values"), p[:n])
			return spec.PosOf(at), at, "set at " + at
		}
		return x.Pos, x.Path, "set by the Application"
	}
	// A module's chart: an upstream one, or its folder (a chart, since
	// Helm rendered it).
	if a.mod != nil && a.mod.Kind.TakesValues(true) {
		ls := render.ValuesLayers(spec, env, a.mod)
		for i := len(ls) - 1; i >= 0; i-- {
			l := ls[i]
			if n := setDepth(l.Values, p); n > 0 {
				at := l.SpecPath
				if !l.Wiring {
					at = layers.AppendLabels(l.SpecPath, p[:n])
				}
				return spec.PosOf(at), at, "set at " + at
			}
		}
		return spec.PosOf(a.origin), a.origin, "set by the Application"
	}
	if m := a.stackModule; m != nil {
		for _, w := range m.Wiring {
			if w.ValuesPath != nil && len(w.ValuesPath) <= len(p) && slices.Equal(p[:len(w.ValuesPath)], w.ValuesPath) {
				return w.Pos, w.Path, "wired at " + w.Path
			}
		}
		if n := setDepth(m.Values, p); n > 0 {
			at := layers.AppendLabels(m.FieldPath("values"), p[:n])
			return spec.PosOf(at), at, "set at " + at
		}
		if v.in.Layers != nil {
			if f := v.in.Layers.File(a.client.Name, a.stack.Name, m.ID); f != nil && f.Tree != nil {
				return keyPos(f.Tree, p, f.Tree.Pos), a.client.Path, "in " + f.Path
			}
		}
	}
	return spec.PosOf(a.origin), a.origin, "set by the Application"
}

// extraSource is the module's extra source (model.ExtraSource) that hs is,
// or nil for the module's own; extras are the Application's last sources.
func extraSource(env *model.Environment, a app, hs helmSource) *model.ExtraSource {
	if a.mod == nil {
		return nil
	}
	extras := a.mod.ExtraSourcesIn(env)
	first := len(sources(object.Lookup(a.obj, "spec"))) - len(extras)
	if i := hs.index - first; len(extras) > 0 && i >= 0 && i < len(extras) {
		return extras[i]
	}
	return nil
}

// keyPos is the position of the deepest key of p a file's tree has.
func keyPos(t *layers.Node, p []string, fallback diag.Pos) diag.Pos {
	pos, n := fallback, t
	for _, k := range p {
		i := slices.IndexFunc(n.Keys, func(key layers.Key) bool { return key.Name == k })
		if i < 0 {
			break
		}
		pos, n = n.Keys[i].Pos, n.Values[i]
		if n == nil {
			break
		}
	}
	return pos
}

// setDepth is how many labels of p the values set (0: none), where the
// value there is a leaf or the path ends.
func setDepth(values map[string]any, p []string) int {
	var cur any = values
	for i, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return i
		}
		next, ok := m[k]
		if !ok {
			return 0
		}
		cur = next
	}
	return len(p)
}

// renderedObjects checks what a chart renders for an Application: its
// objects as Kubernetes and CRDs judge them (objectsOf), and their kinds
// and namespaces against the Application's project.
func (v *verifier) renderedObjects(env *model.Environment, a app, what string, out *charts.Outcome, e *envArgo) {
	proj := e.projects[a.spec.ProjectName()]
	cluster, _ := argocd.DestinationCluster(a.spec.Destination, e.permissions.Clusters)
	reported := map[string]bool{}
	report := func(id diag.ID, key, format string, args ...any) {
		if !reported[key] {
			reported[key] = true
			v.reportf(id, a.origin, format, args...)
		}
	}
	objects, err := v.objectsOf(out)
	if err != nil {
		report(diag.IO, "cache", "%s for Application %q (%s): %v", what, a.name(), where(a, env), err)
	}
	for _, o := range objects {
		if o.noKind {
			report(diag.Manifest, "kind "+o.source, "%s renders an object without apiVersion or kind for Application %q (%s), in %s: Argo CD refuses the manifests", what, a.name(), where(a, env), o.source)
			continue
		}
		if o.noName {
			report(diag.ResourceName, "name "+o.source, "%s renders %s %s without a name for Application %q (%s): Kubernetes refuses it", what, o.kind, o.source, a.name(), where(a, env))
		} else if len(o.nameMsgs) > 0 {
			report(diag.ResourceName, "name "+o.desc, "%s renders %s for Application %q (%s), a name Kubernetes refuses: %s", what, o.desc, a.name(), where(a, env), strings.Join(o.nameMsgs, "; "))
		}
		if len(o.nsMsgs) > 0 {
			report(diag.ResourceName, "ns "+o.desc, "%s renders %s in namespace %q for Application %q (%s), which Kubernetes refuses: %s", what, o.desc, o.ns, a.name(), where(a, env), strings.Join(o.nsMsgs, "; "))
		}
		if proj != nil {
			if o.clusterScoped && !proj.IsGroupKindPermitted(o.group, o.kind, o.name, false) {
				off := "or turn it off in the chart's values"
				if o.crd {
					off = "or have the Application skip the chart's CRDs (helm.skipCrds)"
				}
				report(diag.ProjectKind, "gk "+o.group+"/"+o.kind, "%s creates the cluster-scoped kind %s (%s) for Application %q (%s), which project %s does not allow: add {group: %q, kind: %q} to %s, %s", what, o.kind, o.source, a.name(), where(a, env), proj.Name, o.group, o.kind, proj.fixPath("clusterResourceWhitelist"), off)
			} else if !o.clusterScoped && !proj.IsGroupKindPermitted(o.group, o.kind, o.name, true) {
				report(diag.ProjectKind, "gk "+o.group+"/"+o.kind, "%s creates %s (%s) for Application %q (%s), which project %s denies: %s, or turn it off in the chart's values", what, o.kind, o.source, a.name(), where(a, env), proj.Name, proj.namespacedKindFix(o.group, o.kind))
			}
			if !o.clusterScoped && o.ns != "" && o.ns != a.spec.Destination.Namespace {
				if ok, known := proj.IsDestinationPermitted(cluster, o.ns); known && !ok {
					report(diag.ProjectDestination, "dest "+o.ns, "%s puts %s in namespace %s, which project %s does not permit as a destination of Application %q (%s): add {server: %q, namespace: %q} to %s, or keep the object in the Application's namespace", what, o.desc, o.ns, proj.Name, a.name(), where(a, env), cmp.Or(cluster.Server, cluster.Name), o.ns, proj.fixPath("destinations"))
				}
			}
		}
		if len(o.sizeMsgs) > 0 {
			report(diag.SizeLimit, "size "+o.desc, "%s renders %s for Application %q (%s), which the API server refuses: %s: make it smaller in the chart's values, or split it", what, o.desc, a.name(), where(a, env), strings.Join(o.sizeMsgs, "; "))
		}
		if len(o.crdProblems) > 0 {
			report(diag.ObjectSchema, "crd "+o.desc, "%s renders %s for Application %q (%s), which its CRD refuses: %s", what, o.desc, a.name(), where(a, env), strings.Join(o.crdProblems, "; "))
		}
	}
}

// renderedObject is one object of a chart's outcome, judged independently
// of the Application.
type renderedObject struct {
	source                string
	desc                  string // kind "name" (source), for messages
	crd                   bool   // from the chart's crds/ folder
	noKind                bool   // no apiVersion or kind: nothing else is judged
	group, kind, name, ns string
	apiVersion            string
	defines               [2]string // a CRD's group and kind
	noName                bool      // neither a name nor a generateName
	nameMsgs, nsMsgs      []string  // what Kubernetes says of the name and namespace
	clusterScoped         bool
	// crdProblems are those of the first CRD (the chart's or platc's)
	// refusing the object.
	crdProblems []string
	// sizeMsgs say what the API server refuses of the object's size.
	sizeMsgs []string
}

// judgedOutcome is the objects of one outcome, judged once.
type judgedOutcome struct {
	once    sync.Once
	objects []renderedObject
	err     error // reading the outcome's objects from the cache
}

// objectsOf judges the objects of out once per verifier: Applications with
// the same render request share an outcome (charts.Renderer).
func (v *verifier) objectsOf(out *charts.Outcome) ([]renderedObject, error) {
	v.judgedMu.Lock()
	j := v.judged[out]
	if j == nil {
		j = &judgedOutcome{}
		v.judged[out] = j
	}
	v.judgedMu.Unlock()
	j.once.Do(func() { j.objects, j.err = v.judgeObjects(out) })
	return j.objects, j.err
}

// judgeObjects is objectsOf without the memo. It reads the objects' heads,
// and decodes bodies only where a CRD judges an object (the chart's CRDs
// and objects of kinds they or platc's describe): most charts render only
// built-in kinds, and are never decoded.
func (v *verifier) judgeObjects(out *charts.Outcome) ([]renderedObject, error) {
	heads := out.Heads()
	var decoded []charts.Manifest
	body := func(i int) (map[string]any, error) {
		if decoded == nil {
			var err error
			if decoded, err = out.Manifests(); err != nil {
				return nil, err
			}
		}
		return decoded[i].Object, nil
	}
	scopes := map[string]bool{} // group/kind -> cluster-scoped, from the chart's CRDs
	crds := map[string][]map[string]any{}
	defines := map[int][2]string{}
	for i, h := range heads {
		if h.Kind == "CustomResourceDefinition" {
			obj, err := body(i)
			if err != nil {
				return nil, err
			}
			g := str(obj, "spec", "group")
			k := str(obj, "spec", "names", "kind")
			scopes[g+"/"+k] = str(obj, "spec", "scope") == "Cluster"
			crds[h.Source] = append(crds[h.Source], obj)
			defines[i] = [2]string{g, k}
		}
	}
	var val *validate.Validator
	if len(crds) > 0 {
		val, _ = validate.FromObjects(crds)
	}
	// The kinds platc knows (Argo CD's, kro's, the primitives'), or the
	// cluster's with -crds.
	platform := v.validator()
	objects := make([]renderedObject, 0, len(heads))
	for i, h := range heads {
		r := renderedObject{source: h.Source, crd: h.CRD, kind: h.Kind, apiVersion: h.APIVersion, defines: defines[i],
			group: group(h.APIVersion), name: h.Name, ns: h.Namespace, noKind: h.APIVersion == "" || h.Kind == ""}
		if r.noKind {
			objects = append(objects, r)
			continue
		}
		r.desc = h.Kind + " " + strconv.Quote(r.name) + " (" + h.Source + ")" // as %s %q (%s)
		if r.name == "" {
			r.noName = h.GenerateName == ""
		} else {
			r.nameMsgs = nameProblems(r.group, h.Kind, r.name)
		}
		if r.ns != "" {
			r.nsMsgs = validation.IsDNS1123Label(r.ns)
		}
		var known bool
		r.clusterScoped, known = scopes[r.group+"/"+h.Kind]
		if !known {
			r.clusterScoped = manifests.ClusterScoped(h.APIVersion, h.Kind)
		}
		for _, val := range []*validate.Validator{val, platform} {
			if val == nil || h.CRD || r.crdProblems != nil || !val.Knows(h.APIVersion, h.Kind) {
				continue
			}
			obj, err := body(i)
			if err != nil {
				return nil, err
			}
			if problems, err := val.Validate(obj); err == nil && len(problems) > 0 {
				for _, p := range problems {
					// platc's own CRDs bound what platc renders: a field
					// they lack that Argo CD's CRD declares is the chart's
					// to set (a cluster's CRDs, with -crds, are whole).
					if p.Unknown && val == platform && v.in.CRDs == nil && schemas.UpstreamDeclares(h.APIVersion, h.Kind, p.Pointer) {
						continue
					}
					r.crdProblems = append(r.crdProblems, p.String())
				}
			}
		}
		if h.Size*jsonPerYAMLByte >= MaxObjectSize {
			obj, err := body(i)
			if err != nil {
				return nil, err
			}
			r.sizeMsgs = sizeProblems(obj)
		}
		objects = append(objects, r)
	}
	return objects, nil
}
