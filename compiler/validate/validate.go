// Package validate checks rendered Kubernetes objects against the JSON
// Schemas of their kinds, taken from CustomResourceDefinitions.
//
// The check is strict on purpose: a field that the CRD does not declare is
// an error (the API server would silently prune it), except below nodes
// marked x-kubernetes-preserve-unknown-fields. metadata is checked against
// a small built-in schema of the ObjectMeta fields a manifest may set.
// CEL rules (x-kubernetes-validations) and formats are not checked.
//
// Each served CRD version is converted (convert.go) and compiled once:
// at construction, or with FromTrusted on first use.
package validate

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// Validator validates objects of the kinds defined by a set of CRDs. It is
// safe for concurrent use.
type Validator struct {
	kinds map[gvk]*kindSchema
	known string // the kinds an unknown kind's error lists
}

type gvk struct{ apiVersion, kind string }

func (k gvk) String() string { return k.apiVersion + "/" + k.kind }

// kindSchema is the JSON Schema of one kind, compiled on first use
// (FromCRDs and FromObjects compile all at once, to report errors).
type kindSchema struct {
	key     gvk
	origin  string         // where the kind is defined, for messages
	doc     map[string]any // the converted schema
	shape   *shape         // what the schema looks at, for Memo
	trusted bool           // doc is known to be valid against the meta-schema

	once     sync.Once
	compiled *jsonschema.Schema
	err      error
}

// Locations of the schemas for the library. The library checks every
// schema against the draft 2020-12 meta-schema when loading it, except one
// located under json-schema.org (roots.addRoot in
// santhosh-tekuri/jsonschema v6.0.3, roots.go; there is no option). A
// trusted schema is put there, and TestEmbeddedSchemas in compiler/verify
// checks it instead. The library's own meta-schemas are under draft/ and
// draft-0N/, never platc/.
const (
	checkedBase = "mem://platc/"
	trustedBase = "https://json-schema.org/platc/"
)

// schema returns the compiled schema of the kind, compiling it on first
// use.
func (k *kindSchema) schema() (*jsonschema.Schema, error) {
	k.once.Do(func() {
		base := checkedBase
		if k.trusted {
			base = trustedBase
		}
		loc := base + k.key.String() + ".json"
		// A Compiler per kind: it is not safe for concurrent use.
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		err := c.AddResource(loc, k.doc)
		if err == nil {
			k.compiled, err = c.Compile(loc)
		}
		if err != nil {
			k.err = fmt.Errorf("%s: compiling the schema of %s: %w", k.origin, k.key, err)
		}
	})
	return k.compiled, k.err
}

// Problem is one schema violation.
type Problem struct {
	Pointer string // JSON pointer into the object, e.g. /spec/source/helm/valuesObjekt
	Message string // lower-case, no trailing period, says what is wrong
	// Unknown says that the problem is a field the schema does not
	// declare, which Pointer names.
	Unknown bool
}

func (p Problem) String() string { return p.Pointer + ": " + p.Message }

// FromCRDs builds a Validator from CRD YAML files, keyed by file name for
// messages. Every document must be an apiextensions.k8s.io/v1 CRD; each
// served version becomes a kind. All schemas compile here, so any CRD's
// error is returned here.
func FromCRDs(files map[string][]byte) (*Validator, error) {
	v := &Validator{kinds: map[gvk]*kindSchema{}}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for i, doc := range splitDocuments(files[name]) {
			where := fmt.Sprintf("%s: document %d", name, i+1)
			var crd any
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if crd == nil {
				continue // empty document or only comments
			}
			m, ok := crd.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not a CustomResourceDefinition: want a mapping, got %T", where, crd)
			}
			if err := v.add(where, m, false); err != nil {
				return nil, err
			}
		}
	}
	return v.compile()
}

// FromObjects is FromCRDs for CRDs already decoded to plain data, by file
// name. A nil document is skipped, and errors name documents as FromCRDs
// does. The CRDs are only read.
func FromObjects(files map[string][]map[string]any) (*Validator, error) {
	v, err := fromObjects(files, false)
	if err != nil {
		return nil, err
	}
	return v.compile()
}

// FromTrusted is FromObjects for CRDs known to be sound (the embedded
// ones, which a test compiles against the meta-schema). Each schema is
// compiled when first needed, so a run pays only for the kinds it meets,
// and unchecked against the meta-schema; a compile error becomes
// Validate's error for that kind.
func FromTrusted(files map[string][]map[string]any) (*Validator, error) {
	v, err := fromObjects(files, true)
	if err != nil {
		return nil, err
	}
	v.known = strings.Join(v.Kinds(), ", ")
	return v, nil
}

func fromObjects(files map[string][]map[string]any, trusted bool) (*Validator, error) {
	v := &Validator{kinds: map[gvk]*kindSchema{}}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for i, crd := range files[name] {
			if crd == nil {
				continue
			}
			if err := v.add(fmt.Sprintf("%s: document %d", name, i+1), crd, trusted); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// add adds the served versions of the CRD m, found at where; trusted says
// their schemas are known to be valid against the meta-schema.
func (v *Validator) add(where string, m map[string]any, trusted bool) error {
	versions, err := crdSchemas(m)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	for _, vs := range versions {
		if prev, dup := v.kinds[vs.gvk]; dup {
			return fmt.Errorf("%s: %s is already defined in %s", where, vs.gvk, prev.origin)
		}
		v.kinds[vs.gvk] = &kindSchema{key: vs.gvk, origin: where, doc: vs.schema, shape: shapeOf(vs.schema), trusted: trusted}
	}
	return nil
}

// compile compiles the schemas added, in the order of their kinds, and
// returns the first error.
func (v *Validator) compile() (*Validator, error) {
	v.known = strings.Join(v.Kinds(), ", ")
	for _, k := range slices.SortedFunc(maps.Values(v.kinds), func(a, b *kindSchema) int {
		return strings.Compare(a.key.String(), b.key.String())
	}) {
		if _, err := k.schema(); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// With returns a Validator of v's kinds and extra's, extra winning. An
// unknown kind gets v's error, listing v's kinds only: extra is for
// particular objects, such as kro's generated CRDs beside a cluster's.
// Neither changes; all three share compiled schemas.
func (v *Validator) With(extra *Validator) *Validator {
	out := &Validator{kinds: maps.Clone(v.kinds), known: v.known}
	maps.Copy(out.kinds, extra.kinds)
	return out
}

type versionSchema struct {
	gvk    gvk
	schema map[string]any
}

// crdSchemas converts the schemas of the served versions of one CRD.
func crdSchemas(m map[string]any) ([]versionSchema, error) {
	if m["apiVersion"] != "apiextensions.k8s.io/v1" || m["kind"] != "CustomResourceDefinition" {
		return nil, fmt.Errorf("not an apiextensions.k8s.io/v1 CustomResourceDefinition: apiVersion %v, kind %v", m["apiVersion"], m["kind"])
	}
	spec, _ := m["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	if group == "" || kind == "" {
		return nil, fmt.Errorf("CustomResourceDefinition without spec.group or spec.names.kind")
	}
	versions, _ := spec["versions"].([]any)
	var out []versionSchema
	for i, vv := range versions {
		ver, _ := vv.(map[string]any)
		name, _ := ver["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("%s: spec.versions[%d] has no name", kind, i)
		}
		if !isTrue(ver["served"]) {
			continue
		}
		sch, _ := ver["schema"].(map[string]any)
		openAPI, ok := sch["openAPIV3Schema"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s %s: no schema.openAPIV3Schema", kind, name)
		}
		k := gvk{group + "/" + name, kind}
		js, err := rootSchema(openAPI, k.apiVersion, kind)
		if err != nil {
			return nil, fmt.Errorf("%s: openAPIV3Schema%w", k, err)
		}
		out = append(out, versionSchema{k, js})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s.%s: no served version", kind, group)
	}
	return out, nil
}

// splitDocuments splits a YAML stream at its "---" document separators.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		trimmed := strings.TrimRight(string(line), " \t\r\n")
		if trimmed == "---" || strings.HasPrefix(trimmed, "--- ") || strings.HasPrefix(trimmed, "---\t") {
			docs = append(docs, bytes.Clone(cur.Bytes()))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	return append(docs, cur.Bytes())
}

// Knows reports whether v has a schema for apiVersion and kind: whether
// Validate judges an object of that kind.
func (v *Validator) Knows(apiVersion, kind string) bool {
	_, ok := v.kinds[gvk{apiVersion, kind}]
	return ok
}

// Validate checks obj (decoded JSON/YAML) against its kind's schema. It
// returns the problems sorted by pointer, then message, or an error if
// the kind is unknown.
func (v *Validator) Validate(obj map[string]any) ([]Problem, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	k, ok := v.kinds[gvk{apiVersion, kind}]
	if !ok {
		return nil, fmt.Errorf("no schema for apiVersion %q, kind %q (known: %s)", apiVersion, kind, v.known)
	}
	sch, err := k.schema()
	if err != nil {
		return nil, err
	}
	return problems(sch.Validate(obj))
}

// Kinds lists the apiVersion/kind pairs the validator knows, sorted, as
// "<apiVersion>/<kind>", e.g. "argoproj.io/v1alpha1/Application".
func (v *Validator) Kinds() []string {
	out := make([]string, 0, len(v.kinds))
	for k := range v.kinds {
		out = append(out, k.String())
	}
	slices.Sort(out)
	return out
}
