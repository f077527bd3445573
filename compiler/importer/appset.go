package importer

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
)

// The ApplicationSets of a repository are expanded offline, as Argo CD's
// ApplicationSet controller expands them (applicationset/generators and
// applicationset/utils, ported), where every input of their generators is
// in the repository (list elements, and Git directories and files of the
// repository the objects live in) or given (the cluster Secrets of Argo
// CD, which the clusters generator reads). A generator whose input is
// elsewhere (an SCM provider, a pull request or a plugin an API) is
// reported.

// maxGenerated bounds the Applications one ApplicationSet may generate.
const maxGenerated = 10000

// expandSet returns the Applications the ApplicationSet set generates,
// each an Object of the set's environment and file, or why it cannot be
// expanded offline. home is the repository the objects live in.
func expandSet(fsys fs.FS, set *Object, home string, clusters []Cluster) ([]*Object, string) {
	spec, _ := set.Body["spec"].(map[string]any)
	patch, isText := spec["templatePatch"].(string)
	if spec["templatePatch"] != nil && !isText {
		return nil, "its templatePatch is not a string"
	}
	var options []string
	for _, o := range anyList(spec["goTemplateOptions"]) {
		options = append(options, str(o))
	}
	tmpl, _ := spec["template"].(map[string]any)
	if tmpl == nil {
		return nil, "it has no template"
	}
	x := &expander{fsys: fsys, home: home, goTemplate: spec["goTemplate"] == true, options: options, clusterList: clusters}
	var out []*Object
	names := map[string]bool{}
	for _, g := range anyList(spec["generators"]) {
		gen, _ := g.(map[string]any)
		tmpl := tmpl
		if own, ok := firstGenerator(gen)["template"].(map[string]any); ok && len(own) > 0 {
			// The generator's own template, its unset fields taken from
			// the ApplicationSet's (generators: mergeGeneratorTemplate,
			// mergo.Merge).
			tmpl = mergo(own, tmpl, false)
		}
		params, reason := x.params(gen, nil)
		if reason != "" {
			return nil, reason
		}
		for _, p := range params {
			rendered, err := x.renderValue(tmpl, p)
			if err != nil {
				return nil, "its template does not render: " + oneLine(err.Error())
			}
			app, _ := rendered.(map[string]any)
			if app["metadata"] == nil {
				app["metadata"] = map[string]any{}
			}
			meta, _ := app["metadata"].(map[string]any)
			if len(anyList(meta["finalizers"])) == 0 && object.Lookup(spec, "syncPolicy", "preserveResourcesOnDeletion") != true {
				meta["finalizers"] = []any{argocd.ResourcesFinalizer}
			}
			if isText {
				// Argo CD renders the patch with the parameters and
				// applies it to the Application rendered, finalizer
				// and all (controllers/template: renderTemplatePatch).
				text, err := x.replace(patch, p)
				if err != nil {
					return nil, "its templatePatch does not render: " + oneLine(err.Error())
				}
				var m map[string]any
				if err := unmarshal([]byte(text), &m); err != nil {
					return nil, "its templatePatch is not YAML once rendered: " + oneLine(err.Error())
				}
				mergePatch(app, m)
				if meta, _ = app["metadata"].(map[string]any); meta == nil {
					meta = map[string]any{}
					app["metadata"] = meta
				}
			}
			name := str(meta["name"])
			if names[name] {
				continue // Argo CD keeps one Application of a name
			}
			names[name] = true
			meta["namespace"] = set.Namespace
			body := map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": app["spec"]}
			out = append(out, &Object{Kind: "Application", Name: name, Namespace: set.Namespace, File: set.File, Line: set.Line, Env: set.Env, Root: set.Root, Body: body, GeneratedBy: set.Name})
			if len(out) > maxGenerated {
				return nil, fmt.Sprintf("it generates more than %d Applications", maxGenerated)
			}
		}
	}
	return out, ""
}

// mergo is mergo.Merge(dst, src) over decoded values, and with override
// mergo.WithOverride: maps merge key by key; a value of src fills one
// that dst leaves empty (absent, nil, "", false, zero, an empty list or
// map), and, with override, replaces one dst sets unless src's is empty.
// Neither input is modified.
func mergo(dst, src map[string]any, override bool) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergo(dm, sm, override)
				continue
			}
		}
		if empty(out[k]) || override && !empty(v) {
			out[k] = v
		}
	}
	return out
}

// empty is mergo's isEmptyValue over decoded values.
func empty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case bool:
		return !t
	case int:
		return t == 0
	case int64:
		return t == 0
	case float64:
		return t == 0
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// mergePatch applies patch to v as Kubernetes' strategic merge patch
// applies it to an Application, whose Go types name no merge key: maps
// merge, a null removes the field, and anything else (lists included)
// replaces what v holds.
func mergePatch(v, patch map[string]any) {
	for k, p := range patch {
		switch pm := p.(type) {
		case nil:
			delete(v, k)
		case map[string]any:
			if vm, ok := v[k].(map[string]any); ok {
				mergePatch(vm, pm)
				continue
			}
			fresh := map[string]any{}
			mergePatch(fresh, pm)
			v[k] = fresh
		default:
			v[k] = p
		}
	}
}

// firstGenerator is the one generator a generator entry names.
func firstGenerator(gen map[string]any) map[string]any {
	for _, k := range slices.Sorted(maps.Keys(gen)) {
		if m, ok := gen[k].(map[string]any); ok && k != "selector" {
			return m
		}
	}
	return nil
}

type expander struct {
	fsys       fs.FS
	home       string
	goTemplate bool
	options    []string
	// clusterList are the cluster Secrets of the environment's Argo CD,
	// nil where none were given.
	clusterList []Cluster
}

// params are the parameter sets of one generator; outer are a matrix's
// first generator's, which the second's spec may use.
func (x *expander) params(gen map[string]any, outer map[string]any) ([]map[string]any, string) {
	if outer != nil {
		rendered, err := x.renderValue(gen, outer)
		if err != nil {
			return nil, "a matrix generator does not render: " + oneLine(err.Error())
		}
		gen, _ = rendered.(map[string]any)
	}
	params, reason := x.generate(gen)
	sel, _ := gen["selector"].(map[string]any)
	if reason != "" || sel == nil {
		return params, reason
	}
	// The generator's own selector keeps the parameter sets it matches.
	var kept []map[string]any
	for _, p := range params {
		ok, err := paramsMatch(sel, p)
		if err != nil {
			return nil, "a generator's selector is not one: " + err.Error()
		}
		if ok {
			kept = append(kept, p)
		}
	}
	return kept, ""
}

// generate is the parameter sets of the one generator gen names.
func (x *expander) generate(gen map[string]any) ([]map[string]any, string) {
	body := func(kind string) map[string]any {
		m, _ := gen[kind].(map[string]any)
		return m
	}
	switch {
	case gen["list"] != nil:
		return x.list(body("list"))
	case gen["git"] != nil:
		return x.git(body("git"))
	case gen["matrix"] != nil:
		gens := anyList(object.Lookup(gen, "matrix", "generators"))
		if len(gens) != 2 {
			return nil, "a matrix generator combines two generators"
		}
		g0, _ := gens[0].(map[string]any)
		g1, _ := gens[1].(map[string]any)
		first, reason := x.params(g0, nil)
		if reason != "" {
			return nil, reason
		}
		var out []map[string]any
		for _, a := range first {
			second, reason := x.params(g1, a)
			if reason != "" {
				return nil, reason
			}
			for _, b := range second {
				m := maps.Clone(b)
				maps.Copy(m, a) // the first generator's win, as mergo.WithOverride does
				out = append(out, m)
				if len(out) > maxGenerated {
					return nil, fmt.Sprintf("it generates more than %d Applications", maxGenerated)
				}
			}
		}
		return out, ""
	}
	kinds := slices.DeleteFunc(slices.Sorted(maps.Keys(gen)), func(k string) bool { return k == "selector" })
	switch kind := strings.Join(kinds, ", "); kind {
	case "clusters":
		return x.clusters(body("clusters"))
	case "clusterDecisionResource", "scmProvider", "pullRequest", "plugin":
		return nil, fmt.Sprintf("its %s generator reads what is not in the repository", kind)
	case "merge":
		return x.merge(body("merge"))
	default:
		return nil, fmt.Sprintf("its %s generator is not expanded offline yet", kind)
	}
}

func (x *expander) list(l map[string]any) ([]map[string]any, string) {
	if l["elementsYaml"] != nil {
		return nil, "a list generator's elementsYaml is not read offline yet"
	}
	var out []map[string]any
	for _, e := range anyList(l["elements"]) {
		element, _ := e.(map[string]any)
		if x.goTemplate {
			out = append(out, element)
			continue
		}
		params := map[string]any{}
		for k, v := range element {
			if k == "values" {
				values, _ := v.(map[string]any)
				for vk, vv := range values {
					params["values."+vk] = fmt.Sprint(vv)
				}
				continue
			}
			params[k] = fmt.Sprint(v)
		}
		out = append(out, params)
	}
	return out, ""
}

// git is the Git generator over the repository the objects live in, read
// from the working tree.
func (x *expander) git(g map[string]any) ([]map[string]any, string) {
	if sameRepo(str(g["repoURL"])) != x.home {
		return nil, fmt.Sprintf("its git generator reads %s, which is not the repository imported", str(g["repoURL"]))
	}
	if g["directories"] == nil && g["files"] == nil {
		return nil, "its git generator names neither directories nor files"
	}
	// The repository's folders and regular files, but .git.
	var dirs, all []string
	walkErr := fs.WalkDir(x.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case d.IsDir() && p != ".":
			dirs = append(dirs, p)
		case d.Type().IsRegular():
			all = append(all, p)
		}
		return nil
	})
	prefix := str(g["pathParamPrefix"])
	var out []map[string]any
	if g["directories"] != nil {
		if walkErr != nil {
			return nil, "its git generator's folders cannot be read: " + diag.PathCause(walkErr).Error()
		}
		for _, dir := range dirs {
			include, exclude := false, false
			for _, it := range anyList(g["directories"]) {
				m, _ := it.(map[string]any)
				if ok, _ := path.Match(str(m["path"]), dir); ok {
					if m["exclude"] == true {
						exclude = true
					} else {
						include = true
					}
				}
			}
			if include && !exclude {
				out = append(out, x.pathParams(dir, "", prefix, nil))
			}
		}
	} else {
		if walkErr != nil {
			return nil, "its git files generator's files cannot be read: " + diag.PathCause(walkErr).Error()
		}
		files := map[string]bool{}
		for _, it := range anyList(g["files"]) {
			m, _ := it.(map[string]any)
			pattern := str(m["path"])
			match, err := pathspec(pattern)
			if err != nil {
				return nil, "its git files generator's pattern " + pattern + " is not one: " + err.Error()
			}
			for _, f := range all {
				if match(f) {
					files[f] = m["exclude"] != true
				}
			}
		}
		for _, f := range slices.Sorted(maps.Keys(files)) {
			if !files[f] {
				continue
			}
			data, err := fs.ReadFile(x.fsys, f)
			if err != nil || len(data) > MaxFileSize {
				return nil, "its git files generator's file " + f + " cannot be read"
			}
			var docs []map[string]any
			var one map[string]any
			if unmarshal(data, &one) == nil {
				docs = []map[string]any{one}
			} else if err := unmarshal(data, &docs); err != nil {
				if se := diag.NewSyntaxError(f, data, err); se != nil {
					return nil, "its git files generator's file " + se.Error()
				}
				return nil, "its git files generator's file " + f + " is not YAML or JSON: " + oneLine(err.Error())
			}
			for _, d := range docs {
				out = append(out, x.pathParams(path.Dir(f), f, prefix, d))
			}
		}
	}
	if reason := x.appendValues(g, out); reason != "" {
		return nil, reason
	}
	return out, ""
}

// pathParams are the parameters of a folder (dir), or of a file's
// content (file, content), as the Git generator makes them.
func (x *expander) pathParams(dir, file, prefix string, content map[string]any) map[string]any {
	params := map[string]any{}
	if x.goTemplate {
		maps.Copy(params, content)
		p := map[string]any{"path": dir, "basename": path.Base(dir), "basenameNormalized": sanitizeName(path.Base(dir)), "segments": toAny(strings.Split(dir, "/"))}
		if file != "" {
			p["filename"], p["filenameNormalized"] = path.Base(file), sanitizeName(path.Base(file))
		}
		if prefix != "" {
			params[prefix] = map[string]any{"path": p}
		} else {
			params["path"] = p
		}
		return params
	}
	flatten("", content, params)
	name := "path"
	if prefix != "" {
		name = prefix + ".path"
	}
	params[name] = dir
	params[name+".basename"] = path.Base(dir)
	params[name+".basenameNormalized"] = sanitizeName(path.Base(dir))
	if file != "" {
		params[name+".filename"] = path.Base(file)
		params[name+".filenameNormalized"] = sanitizeName(path.Base(file))
	}
	for i, s := range strings.Split(dir, "/") {
		if s != "" {
			params[name+"["+strconv.Itoa(i)+"]"] = s
		}
	}
	return params
}

// appendValues adds a generator's values (g's), rendered with each
// parameter set of out, as values.<key> (values, with Go templates).
func (x *expander) appendValues(g map[string]any, out []map[string]any) string {
	values, _ := g["values"].(map[string]any)
	if len(values) == 0 {
		return ""
	}
	for _, params := range out {
		rendered := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(values)) {
			v, err := x.replace(fmt.Sprint(values[k]), params)
			if err != nil {
				return "its generator's values do not render: " + oneLine(err.Error())
			}
			if x.goTemplate {
				rendered[k] = v
			} else {
				params["values."+k] = v
			}
		}
		if x.goTemplate {
			params["values"] = rendered
		}
	}
	return ""
}

// flatten adds the fields of v as dotted keys, as Argo CD's
// flatten.DotStyle does, with their values as text.
func flatten(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, e, out)
		}
	case []any:
		for i, e := range t {
			flatten(prefix+"."+strconv.Itoa(i), e, out)
		}
	default:
		if prefix != "" {
			out[prefix] = fmt.Sprint(v)
		}
	}
}

// renderValue templates every string of v, not its keys, as Argo CD's
// deeplyReplace does over the Application's Go structs; Helm's
// valuesObject, raw bytes there, is left as written.
func (x *expander) renderValue(v any, params map[string]any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if k == "valuesObject" {
				out[k] = e
				continue
			}
			r, err := x.renderValue(e, params)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := x.renderValue(e, params)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case string:
		return x.replace(t, params)
	}
	return v, nil
}

var templated = regexp.MustCompile(`{{.*}}`)

// replace is Argo CD's Render.Replace: a Go template with sprig's
// functions, or fasttemplate's {{ param }}, which leaves a tag it does not
// know as written.
func (x *expander) replace(s string, params map[string]any) (string, error) {
	if x.goTemplate {
		t := template.New("").Funcs(funcs())
		for _, o := range x.options {
			t = t.Option(o)
		}
		t, err := t.Parse(s)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, params); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	if !templated.MatchString(s) {
		return s, nil
	}
	var b strings.Builder
	for {
		before, after, opened := strings.Cut(s, "{{")
		tag, rest, closed := strings.Cut(after, "}}")
		if !opened || !closed {
			break
		}
		b.WriteString(before)
		if v, ok := params[strings.TrimSpace(tag)].(string); ok && strings.TrimSpace(tag) != "" {
			b.WriteString(v)
		} else {
			b.WriteString("{{" + tag + "}}")
		}
		s = rest
	}
	b.WriteString(s)
	return b.String(), nil
}

// funcs are the template functions of Argo CD's ApplicationSet
// controller: sprig's, less those that read the environment, and
// normalize; made on first use, not at every platc's start.
var funcs = sync.OnceValue(func() template.FuncMap {
	m := sprig.GenericFuncMap()
	delete(m, "env")
	delete(m, "expandenv")
	delete(m, "getHostByName")
	m["normalize"] = sanitizeName
	m["toYaml"] = func(v any) (string, error) {
		b, err := yaml.Marshal(v)
		return strings.TrimSuffix(string(b), "\n"), err
	}
	return m
})

var invalidDNSNameChars = regexp.MustCompile(`[^-a-z0-9.]`)

// sanitizeName is Argo CD's utils.SanitizeName.
func sanitizeName(name string) string {
	name = invalidDNSNameChars.ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

func toAny[T any](l []T) []any {
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = x
	}
	return out
}

// pathspec is how Argo CD's git files generator matches a path pattern
// by default: git ls-files -- PATTERN (util/git's LsFiles, without
// applicationsetcontroller.enable.new.git.file.globbing), a pathspec
// whose wildcards match across '/', so that "apps/*/config.json" also
// names apps/a/b/config.json and "**" is "*" twice. A pattern without a
// wildcard names the file, or every file below the folder it names.
func pathspec(pattern string) (func(string) bool, error) {
	if !strings.ContainsAny(pattern, "*?[\\") {
		return func(p string) bool { return p == pattern || strings.HasPrefix(p, pattern+"/") }, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\\`, `\\\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}
