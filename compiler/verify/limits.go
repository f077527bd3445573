package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
)

// The API server's limits on an object: its size, its annotations' size,
// and the form of label and annotation keys and label values, checked on
// every rendered object and every object kro will create.

// MaxObjectSize is the largest object, in bytes of JSON, the API server
// can store: etcd refuses requests above --max-request-bytes, 1.5 MiB by
// default (etcd server/embed/config.go, DefaultMaxRequestBytes), and each
// object is one request, as JSON plus the server's own metadata
// (managedFields, uid...). An object a little smaller may still fail.
const MaxObjectSize = 1572864

// MaxDataSize is the most bytes a ConfigMap's data and binaryData, or a
// Secret's data and stringData, may hold together (the values, decoded):
// k8s.io/api core/v1 MaxSecretSize, 1 MiB, which the API server's
// ValidateConfigMap and ValidateSecret check (pkg/apis/core/validation).
const MaxDataSize = 1 << 20

// sizeProblems says why the API server refuses an object for its size
// (MaxObjectSize, or MaxDataSize for a ConfigMap or Secret).
func sizeProblems(obj map[string]any) []string {
	var out []string
	if size := jsonSize(obj); size >= MaxObjectSize {
		out = append(out, fmt.Sprintf("it is %d bytes as JSON (%s), more than the API server can store (%d bytes, 1.5 MiB, etcd's request limit)", size, mib(size), MaxObjectSize))
	}
	if n, kind := dataSize(obj); n > MaxDataSize {
		out = append(out, fmt.Sprintf("its data are %d bytes (%s), more than a %s may hold (%d bytes, 1 MiB)", n, mib(n), kind, MaxDataSize))
	}
	return out
}

// dataSize is the bytes of data a core/v1 ConfigMap or Secret holds, as
// the API server counts them, and its kind; 0 for another object.
func dataSize(obj any) (int, string) {
	if object.Lookup(obj, "apiVersion") != "v1" {
		return 0, ""
	}
	kind, _ := object.Lookup(obj, "kind").(string)
	var plain, encoded string // the field of strings, of base64 strings
	switch kind {
	case "ConfigMap":
		plain, encoded = "data", "binaryData"
	case "Secret":
		plain, encoded = "stringData", "data"
	default:
		return 0, ""
	}
	n := 0
	eachString(object.Lookup(obj, plain), func(_, v string) { n += len(v) })
	eachString(object.Lookup(obj, encoded), func(_, v string) { n += base64.StdEncoding.DecodedLen(len(v)) })
	return n, kind
}

// MaxAnnotationsSize is the most bytes an object's annotations may hold,
// keys and values together: k8s.io/apimachinery v0.36.1,
// pkg/api/validation/objectmeta.go, TotalAnnotationSizeLimitB and
// ValidateAnnotationsSize.
const MaxAnnotationsSize = 256 * (1 << 10)

// jsonPerYAMLByte bounds the bytes of JSON per byte of emit's YAML: at
// most 6, for a character JSON escapes as \u00XX; JSON's punctuation costs
// no more than YAML's indentation and markers. An object whose YAML fits
// MaxObjectSize/jsonPerYAMLByte is small enough without encoding it.
const jsonPerYAMLByte = 6

// Size checks that every object of the rendered file f is smaller than
// MaxObjectSize, from body, f's YAML documents after the header. It is
// emit.Encode's each, called concurrently. Only an object whose YAML
// exceeds the jsonPerYAMLByte bound is encoded as JSON.
func Size(spec *model.Spec, f render.File, body []byte, log *diag.Log) {
	if f.Values || len(f.Objects) == 0 || len(body)*jsonPerYAMLByte < MaxObjectSize {
		return
	}
	docs := documents(body)
	for j, obj := range f.Objects {
		if len(docs) == len(f.Objects) && len(docs[j])*jsonPerYAMLByte < MaxObjectSize {
			continue
		}
		tooLarge(spec, log, obj, "spec", "in the chart, a values file or a ConfigMap", func() (string, string) {
			return renderedOrigin(spec, f, obj, "values"), describe(obj, path.Join(spec.Platform.OutDir, f.Path))
		})
	}
}

// tooLarge reports obj if the API server refuses its size; of says what to
// keep large values out of, and where to keep them instead; named, called
// only then, gives the spec path that makes obj.
func tooLarge(spec *model.Spec, log *diag.Log, obj any, of, instead string, named func() (where, what string)) {
	if size := jsonSize(obj); size >= MaxObjectSize {
		where, what := named()
		log.Reportf(diag.SizeLimit, spec.PosOf(where), where, "%s is %d bytes as JSON (%s), more than the API server can store (%d bytes, 1.5 MiB, etcd's request limit): keep large values out of the %s (%s)", what, size, mib(size), MaxObjectSize, of, instead)
	}
	if n, kind := dataSize(obj); n > MaxDataSize {
		where, what := named()
		log.Reportf(diag.SizeLimit, spec.PosOf(where), where, "%s holds %d bytes of data (%s), more than a %s may hold (%d bytes, 1 MiB): keep large data out of the %s", what, n, mib(n), kind, MaxDataSize, of)
	}
}

// documents splits an encoded body into its YAML documents: emit writes
// "---" alone on a line only between documents (block strings are
// indented).
func documents(data []byte) [][]byte {
	var docs [][]byte
	for {
		i := bytes.Index(data, []byte("\n---\n"))
		if i < 0 {
			return append(docs, data)
		}
		docs = append(docs, data[:i+1])
		data = data[i+5:]
	}
}

// jsonSize is the length of v encoded as the API server encodes it.
func jsonSize(v any) int {
	b, err := json.Marshal(object.Plain(v))
	if err != nil {
		return 0
	}
	return len(b)
}

// jsonBound is an upper bound of jsonSize(v), without encoding: six bytes
// per string byte (\u00XX), generous for the rest.
func jsonBound(v any) int {
	n := 0
	switch v := v.(type) {
	case *object.Map:
		n += 2
		v.Each(func(k string, x any) { n += 6*len(k) + 4 + jsonBound(x) })
	case map[string]any:
		n += 2
		for k, x := range v {
			n += 6*len(k) + 4 + jsonBound(x)
		}
	case []any:
		n += 2
		for _, x := range v {
			n += 1 + jsonBound(x)
		}
	case []string:
		n += 2
		for _, s := range v {
			n += 3 + 6*len(s)
		}
	case string:
		n += 2 + 6*len(v)
	default:
		n += 32 // a number, a bool, null
	}
	return n
}

// mib formats a size in MiB, for people.
func mib(size int) string {
	return fmt.Sprintf("%.1f MiB", float64(size)/(1<<20))
}

// describe names an object for a message: its kind, name and where it is.
func describe(obj any, where string) string {
	return fmt.Sprintf("%v %q (%s)", object.Lookup(obj, "kind"), str(obj, "metadata", "name"), where)
}

// renderedOrigin is the spec path that makes a rendered object (module,
// project, stack or client), else the environment.
func renderedOrigin(spec *model.Spec, f render.File, obj *object.Map, field string) string {
	name := str(obj, "metadata", "name")
	env := spec.Environment(f.Env)
	switch kind := obj.Get("kind"); kind {
	case "Application":
		if m := spec.Module(name); m != nil && !strings.HasPrefix(f.Path, render.RootAppsDir+"/") {
			if field != "" && m.Has(field) {
				return m.FieldPath(field)
			}
			return m.Path
		}
	case "AppProject":
		if env != nil {
			for _, p := range env.Projects {
				if p.Name == name {
					return p.Path
				}
			}
		}
	case "ResourceGraphDefinition":
		if st := spec.Stack(name); st != nil {
			return st.Path
		}
	default:
		for _, st := range spec.Stacks {
			if st.Kind != kind {
				continue
			}
			for _, c := range spec.Clients {
				if cs := c.Stack(st.Name); cs != nil && c.Name == name {
					return cs.Path
				}
			}
		}
	}
	if env != nil {
		return env.Path
	}
	return ""
}

// limits checks the metadata of every rendered object, and the metadata
// and size of every object kro will create (Size checks rendered sizes).
func (v *verifier) limits() {
	spec := v.in.Spec
	object.Parallel(len(v.in.Files), func(i int) {
		f := v.in.Files[i]
		if f.Values {
			return
		}
		for _, obj := range f.Objects {
			for _, msg := range metadataProblems(obj) {
				where := path.Join(spec.Platform.OutDir, f.Path)
				origin := renderedOrigin(spec, f, obj, "")
				if obj.Get("kind") == "ResourceGraphDefinition" {
					if st := spec.Stack(str(obj, "metadata", "name")); st != nil && st.Description != "" {
						origin = st.FieldPath("description")
					}
				}
				v.reportf(diag.Metadata, origin, "%s: %s", describe(obj, where), msg)
			}
		}
	})
	if v.in.Stacks == nil {
		return
	}
	for _, inst := range v.in.Stacks.Instances {
		p, err := v.in.Stacks.PreviewInstance(inst.Stack.Model.Name, inst.Client.Name, inst.Env.Name)
		if err != nil {
			continue // kroApps reports it
		}
		for _, r := range p.Resources {
			if r.Object == nil {
				continue
			}
			_, origin := stackModule(inst.Stack.Model, r.ID)
			what := func() string {
				return describe(r.Object, fmt.Sprintf("created by kro for %s in %s", inst.Client.Name, inst.Env.Name))
			}
			for _, msg := range metadataProblems(r.Object) {
				v.reportf(diag.Metadata, origin, "%s: %s", what(), msg)
			}
			if jsonBound(r.Object) >= MaxObjectSize {
				tooLarge(spec, v.log, r.Object, "stack", "in the chart, or a values file", func() (string, string) { return origin, what() })
			}
		}
	}
}

// metadataProblems checks an object's labels and annotations as the API
// server does (k8s.io/apimachinery v0.36.1: ValidateLabels and
// ValidateAnnotations, pkg/apis/meta/v1/validation and pkg/api/validation):
// keys are qualified names (annotation keys in any case), and annotations
// hold at most MaxAnnotationsSize bytes. It does not allocate for a clean
// object: every rendered object passes here.
func metadataProblems(obj any) []string {
	meta := object.Lookup(obj, "metadata")
	var out []string
	eachString(object.Lookup(meta, "labels"), func(k, v string) {
		if msg := qualifiedNameProblem(k); msg != "" {
			out = append(out, fmt.Sprintf("label key %q %s", k, msg))
		}
		if msg := labelValueProblem(v); msg != "" {
			out = append(out, fmt.Sprintf("the value of label %s, %q, %s", k, v, msg))
		}
	})
	size := 0
	eachString(object.Lookup(meta, "annotations"), func(k, v string) {
		size += len(k) + len(v)
		if msg := qualifiedNameProblem(strings.ToLower(k)); msg != "" {
			out = append(out, fmt.Sprintf("annotation key %q %s", k, msg))
		}
	})
	slices.Sort(out) // a map's keys come in any order
	if size > MaxAnnotationsSize {
		out = append(out, fmt.Sprintf("the annotations hold %d bytes, more than the %d (256 KiB) Kubernetes allows an object: shorten them", size, MaxAnnotationsSize))
	}
	return out
}

// eachString calls fn for each entry of a string map such as labels; a
// non-string value is passed as text (the schema check reports its type).
func eachString(v any, fn func(k, v string)) {
	text := func(x any) string {
		if s, ok := x.(string); ok {
			return s
		}
		return fmt.Sprint(x)
	}
	switch v := v.(type) {
	case *object.Map:
		v.Each(func(k string, x any) { fn(k, text(x)) })
	case map[string]any:
		for k, x := range v {
			fn(k, text(x))
		}
	case map[string]string:
		for k, x := range v {
			fn(k, x)
		}
	}
}

// The forms of Kubernetes' names, from k8s.io/apimachinery v0.36.1,
// pkg/api/validate/content/kube.go (IsLabelKey, IsLabelValue: the name
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters) and
// dns.go (IsDNS1123Subdomain, argocd.IsDNSSubdomain), as loops rather than
// regular expressions: every rendered object's keys pass here.

// isLabelName reports whether s is the name of a label key, or a label
// value that is not empty.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// qualifiedNameProblem says why k is not a qualified name (a label key: an
// optional DNS subdomain prefix and a '/', then a name), or "".
func qualifiedNameProblem(k string) string {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		if strings.Contains(rest, "/") {
			return "has more than one '/': write an optional DNS prefix, '/', and a name, such as example.com/my-name"
		}
		if !argocd.IsDNSSubdomain(prefix) {
			return "has a prefix that is not a DNS subdomain (at most 253 lower-case letters, digits, '-' and '.'): write one, such as example.com/my-name"
		}
		name = rest
	}
	if !isLabelName(name) {
		return "is not a Kubernetes qualified name: write at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional DNS prefix and '/'"
	}
	return ""
}

// labelValueProblem says why v is not a label value (empty, or a name of
// at most 63 characters), or "".
func labelValueProblem(v string) string {
	if v != "" && !isLabelName(v) {
		return "is not a Kubernetes label value: write at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	}
	return ""
}
