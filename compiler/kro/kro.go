// Package kro checks a kro ResourceGraphDefinition (RGD) offline with kro's
// own code (github.com/kubernetes-sigs/kro at upstream.Kro): its graph
// builder runs over Kinds, with a schema resolver and REST mapper made from
// CRDs instead of cluster discovery, under the spec's feature gates
// (Gates). The API server's checks of the generated CRD are ported from
// k8s.io/apiextensions-apiserver; objects are validated with the API
// server's own validators (the RGD against kro's CRD, an instance against
// the generated CRD: Result.Instance).
//
// kro's builder stops at the first error. This package reports every
// problem at once, each with its place (resource id and path) and what to
// change, by running kro's finer pieces (SimpleSchema transformer, template
// parser, expression inspector, typed environment, type compatibility, DAG)
// one item at a time. The builder is the final gate: if it refuses a graph
// no piece faulted, its error is the problem. A Program evaluates one
// expression in kro's typed environment, for previews.
//
// It does not talk to a cluster, render YAML, know platc's spec, or know
// built-in kinds beyond those platc embeds (builtin.go).
package kro

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/upstream"
	"github.com/platc/platc/internal/cache"
)

// Resource is one resource of an RGD: a Template, or an ExternalRef.
type Resource struct {
	ID          string
	Template    map[string]any // apiVersion, kind, metadata, spec...; any string may hold ${...}
	ExternalRef *ExternalRef   // an object kro reads and does not own; Template nil
	// ForEach makes the resource a collection: one object per element of
	// each dimension's list (their cartesian product).
	ForEach     []Dimension
	IncludeWhen []string
	ReadyWhen   []string
}

// Dimension is one entry of a resource's forEach: an iterator and the
// ${...} list it iterates.
type Dimension struct{ Name, Expr string }

// ExternalRef is kro's externalRef by name: the object's kind, name and
// namespace (templates; "" for the instance's namespace).
type ExternalRef struct {
	APIVersion, Kind, Name, Namespace string
}

// RGD is the part of a ResourceGraphDefinition's spec that Check reads.
type RGD struct {
	Name       string         // metadata.name; "" for the kind in lower case
	APIVersion string         // spec.schema.apiVersion, e.g. v1alpha1
	Kind       string         // spec.schema.kind
	Group      string         // spec.schema.group ("" means kro.run)
	Spec       map[string]any // spec.schema.spec, SimpleSchema tree
	Types      map[string]any // spec.schema.types
	Status     map[string]any // spec.schema.status, tree whose leaves are "${...}" strings
	Resources  []Resource
	// Kinds resolves the kinds of the resources; nil means Embedded, the
	// CRDs platc carries.
	Kinds *Kinds
	// Cache, when set, keeps between runs what Check derives from an
	// accepted RGD, with its warnings, keyed by a digest of all it reads,
	// so kro's builder runs once per change; and Result.Instance's outcome
	// per instance spec.
	Cache cache.Cache
	// Parses, when set, shares expression parses of Result.Program across
	// RGDs.
	Parses *Parses
	// Gates are the feature gates of the kro that will build the RGD
	// (Gates.Check must accept them); nil is kro's defaults.
	Gates Gates
}

// kroVersion is the version of kro whose code checks RGDs: part of every
// cache key.
const kroVersion = "github.com/kubernetes-sigs/kro@" + upstream.Kro

// Problem is one finding. Resource is the id ("" for the schema or
// status); Path is where inside, such as "includeWhen[0]", "id",
// "status.lokiEndpoint" or "types.Server", or "" for the whole resource or
// graph. A name with a dot is written ["a.b"] (JoinPath).
type Problem struct {
	Resource, Path, Msg string
	// ID is the kind of problem. A warning ID means kro accepts it, but it
	// is not what it seems (a default the API server reads otherwise).
	ID diag.ID
	// Str, when set, is the string at Path holding the problem (a ${...}
	// template), and Offset the byte of Str where it is.
	Str    string
	Offset int
}

// Result is what kro derives from an RGD it accepts.
type Result struct {
	// CRD is the CustomResourceDefinition kro generates for the instances,
	// as plain data (JSON), as kro sends it to the API server.
	CRD  map[string]any
	Deps map[string][]string // resource id -> ids it depends on (sorted)
	// Iterators are the names the collections' forEach dimensions
	// declare, sorted: Program's expressions may read them.
	Iterators []string
	// Collections are the ids of the forEach resources, sorted: others
	// read them as lists.
	Collections []string
	Order       []string // kro's topological order

	crd   *extv1.CustomResourceDefinition
	kinds *Kinds
	// cache and key are the RGD's Cache and entry key, for Instance.
	cache  cache.Cache
	key    string
	parses *Parses

	envOnce  sync.Once
	env      *evalEnv
	envErr   error
	instOnce sync.Once
	inst     *kind
	instErr  error
	// schemaEnv is the typed environment of the schema, for CheckOverSchema.
	schemaOnce     sync.Once
	schemaEnv      *cel.Env
	schemaProvider *krocel.DeclTypeProvider
	schemaErr      error
}

// rgdConfig is kro's controller's default configuration of RGDs (the
// flags of cmd/controller at upstream.Kro).
var rgdConfig = graph.RGDConfig{MaxCollectionSize: 1000, MaxCollectionDimensionSize: 10}

// Check checks rgd as kro does, and the CRD kro would create as the API
// server does, and returns every problem, sorted by resource then path.
// The result is nil if any problem is not a warning.
func Check(rgd *RGD) (*Result, []Problem) {
	kinds := rgd.Kinds
	if kinds == nil {
		var err error
		if kinds, err = Embedded(); err != nil {
			return nil, []Problem{{ID: diag.IO, Msg: fmt.Sprintf("reading the embedded CRDs: %v", err)}}
		}
	}
	c := &checker{rgd: rgd, kinds: kinds}
	plain := rgd.plain()
	key := ""
	if rgd.Cache != nil {
		// A digest of what Check reads (cache.KroCheck).
		data, _ := json.Marshal(plain) // plain data; maps are encoded sorted
		key = cache.KroCheck.Key(kroVersion, kinds.digest, builtinDigest(), rgd.Gates.key(), string(data))
		if r, warnings := cached(rgd.Cache, key, kinds); r != nil {
			r.parses = rgd.Parses
			return r, warnings
		}
	}
	if _, err := kinds.typed(); err != nil {
		return nil, []Problem{{ID: diag.IO, Msg: fmt.Sprintf("reading the CRDs of the resources' kinds: %v", err)}}
	}
	obj, err := c.admit(plain)
	if err != nil {
		c.reportf(diag.KroTemplate, -1, "", "the ResourceGraphDefinition does not encode as kro's API types: %v: write plain strings, numbers, lists and maps", err)
		return nil, c.sorted()
	}
	g, err := kinds.build(obj, rgd.Gates)
	if err == nil {
		c.crdChecks(g.CRD)
		if c.hasErrors() {
			return nil, c.sorted()
		}
		r := newResult(g, kinds)
		r.parses = rgd.Parses
		warnings := c.sorted()
		if rgd.Cache != nil {
			r.cache, r.key = rgd.Cache, key
			if data, ok := encodeCheckEntry(r, warnings); ok {
				rgd.Cache.Put(key, data)
			}
		}
		return r, warnings
	}
	c.diagnose(obj)
	if !c.hasErrors() {
		c.builderError(err)
	}
	return nil, c.sorted()
}

// cached returns an entry's Result and warnings; the Result is nil when
// there is none or it does not decode.
func cached(cache cache.Cache, key string, kinds *Kinds) (*Result, []Problem) {
	data, ok := cache.Get(key)
	if !ok {
		return nil, nil
	}
	r, warnings, err := decodeCheckEntry(data)
	if err != nil {
		return nil, nil
	}
	if r.crd, err = toCRD(r.CRD); err != nil {
		return nil, nil
	}
	r.kinds, r.cache, r.key = kinds, cache, key
	return r, warnings
}

// checkEntry is what the cache keeps of an accepted RGD: the Result's
// exported fields, and the warnings, which are said again at every run.
type checkEntry struct {
	Result   *Result
	Warnings []Problem
}

func encodeCheckEntry(r *Result, warnings []Problem) ([]byte, bool) {
	return object.Entry(cache.KroCheck.Layout(), checkEntry{r, warnings})
}

// decodeCheckEntry reads what encodeCheckEntry wrote; an entry without a
// CRD or dependencies is not one it wrote.
func decodeCheckEntry(data []byte) (*Result, []Problem, error) {
	var e checkEntry
	err := object.ReadEntry(cache.KroCheck.Layout(), data, &e)
	if err == nil && (e.Result == nil || e.Result.CRD == nil || e.Result.Deps == nil) {
		err = object.ErrCorrupt
	}
	if err != nil {
		return nil, nil, err
	}
	return e.Result, e.Warnings, nil
}

// newResult is what Check returns for the graph g kro built.
func newResult(g *graph.Graph, kinds *Kinds) *Result {
	r := &Result{crd: g.CRD, kinds: kinds, Order: g.TopologicalOrder, Deps: map[string][]string{}}
	for id, n := range g.Nodes {
		d := append([]string{}, n.Meta.Dependencies...)
		slices.Sort(d)
		r.Deps[id] = d
		if len(n.ForEach) > 0 {
			r.Collections = append(r.Collections, id)
		}
		for _, it := range n.ForEach {
			r.Iterators = append(r.Iterators, it.Name)
		}
	}
	slices.Sort(r.Iterators)
	r.Iterators = slices.Compact(r.Iterators)
	slices.Sort(r.Collections)
	// The CRD as the API server has it: kro's client sends it as JSON.
	crd, err := decodeCRD(g.CRD)
	var plain *map[string]any
	if err == nil {
		plain, err = fromJSON[map[string]any](crd)
	}
	if err != nil {
		// crdChecks has refused a CRD that does not encode.
		panic(fmt.Sprintf("platc: kro's CRD does not encode: %v", err))
	}
	r.crd, r.CRD = crd, *plain
	return r
}

// CacheKey is the key of the RGD's Cache entry, a digest of all Check read;
// what derives from the Result alone may be cached under it. It is ""
// without a Cache.
func (r *Result) CacheKey() string { return r.key }

// Instance validates an instance's spec as the API server does with the
// generated CRD (defaults, pruning, schema, x-kubernetes-validations, list
// types) and returns the spec with defaults applied. Problem paths are
// inside the spec ("endpoints.logs"). With the RGD's Cache, outcomes are
// cached per spec.
func (r *Result) Instance(spec map[string]any) (map[string]any, []Problem) {
	if r.cache == nil {
		return r.instance(spec)
	}
	// The validator sees the spec as JSON: its JSON, with the RGD's key,
	// names the outcome.
	data, err := json.Marshal(spec)
	if err != nil {
		return r.instance(spec)
	}
	e := readThrough(r.cache, cache.KroInstance.Key(r.key, string(data)), decodeInstanceEntry, encodeInstanceEntry, func() instanceEntry {
		defaulted, probs := r.instance(spec)
		return instanceEntry{Spec: defaulted, Problems: probs}
	})
	return e.Spec, e.Problems
}

func (r *Result) instance(spec map[string]any) (map[string]any, []Problem) {
	r.instOnce.Do(func() {
		for i := range r.crd.Spec.Versions {
			if v := &r.crd.Spec.Versions[i]; v.Served {
				r.inst = &kind{gvk: schema.GroupVersionKind{Group: r.crd.Spec.Group, Version: v.Name, Kind: r.crd.Spec.Names.Kind}, crd: r.crd, version: v}
			}
		}
		if r.inst == nil {
			r.instErr = fmt.Errorf("no version of %s is served", r.crd.Name)
		}
	})
	if r.instErr != nil {
		return spec, []Problem{{ID: diag.KroCRD, Msg: fmt.Sprintf("the CRD kro generates does not load: %v", r.instErr)}}
	}
	obj := map[string]any{
		"apiVersion": r.inst.gvk.GroupVersion().String(),
		"kind":       r.inst.gvk.Kind,
		"metadata":   map[string]any{"name": "instance", "namespace": "default"},
		"spec":       spec,
	}
	out, found, err := r.inst.validate(context.Background(), obj)
	if err != nil {
		return spec, []Problem{{ID: diag.KroCRD, Msg: fmt.Sprintf("the CRD kro generates cannot validate: %v", err)}}
	}
	var probs []Problem
	for _, p := range found {
		path, msg := r.inst.instanceMessage(p, out)
		probs = append(probs, Problem{ID: diag.KroAPI, Path: strings.TrimPrefix(strings.TrimPrefix(path, "spec"), "."), Msg: msg})
	}
	slices.SortFunc(probs, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Msg, b.Msg))
	})
	defaulted, _ := out["spec"].(map[string]any)
	return defaulted, probs
}

// checker holds the state of one Check.
type checker struct {
	rgd   *RGD
	kinds *Kinds
	// provider gives a type's fields for messages, once diagnosis made it.
	provider *krocel.DeclTypeProvider
	probs    []indexed
}

// indexed is a problem with the index of its resource, for sorting.
type indexed struct {
	idx int // resource index, -1 for the schema and status
	Problem
}

// Warning reports whether kro accepts what p is about.
func (p Problem) Warning() bool { return p.ID.Info().Severity == diag.Warning }

// add records a problem of kind id of resource idx (-1: schema or status)
// at path.
func (c *checker) add(id diag.ID, idx int, path, msg string) {
	res := ""
	if idx >= 0 {
		res = c.rgd.Resources[idx].ID
	}
	c.probs = append(c.probs, indexed{idx, Problem{ID: id, Resource: res, Path: path, Msg: msg}})
}

// addAt records a problem of resource idx at path, at byte offset of str,
// the string value there.
func (c *checker) addAt(id diag.ID, idx int, path, msg, str string, offset int) {
	c.add(id, idx, path, msg)
	p := &c.probs[len(c.probs)-1].Problem
	p.Str, p.Offset = str, offset
}

// reportf records a problem of kind id of resource idx at path.
func (c *checker) reportf(id diag.ID, idx int, path, format string, args ...any) {
	c.add(id, idx, path, fmt.Sprintf(format, args...))
}

// has reports whether a non-warning problem is recorded for resource idx
// at path, so a later step does not repeat it. Warnings do not count: kro
// accepts them, and other faults there are still to find.
func (c *checker) has(idx int, path string) bool {
	return slices.ContainsFunc(c.probs, func(p indexed) bool { return p.idx == idx && p.Path == path && !p.Warning() })
}

// hasErrors reports whether a problem that is not a warning is recorded.
func (c *checker) hasErrors() bool {
	return slices.ContainsFunc(c.probs, func(p indexed) bool { return !p.Warning() })
}

// sorted returns the problems by resource, path and message, deduplicated.
func (c *checker) sorted() []Problem {
	slices.SortStableFunc(c.probs, func(a, b indexed) int {
		return cmp.Or(a.idx-b.idx, strings.Compare(a.Path, b.Path), strings.Compare(a.Msg, b.Msg))
	})
	c.probs = slices.Compact(c.probs)
	var out []Problem
	for _, p := range c.probs {
		out = append(out, p.Problem)
	}
	return out
}

// builderError reports the error of kro's builder, which refused a graph
// in which no finer check found a problem, at the resource it names.
func (c *checker) builderError(err error) {
	msg := err.Error()
	for i, r := range c.rgd.Resources {
		if strings.Contains(msg, fmt.Sprintf("resource %q", r.ID)) {
			c.reportf(diag.KroGraph, i, "", "kro refuses the graph: %s: fix what it names", msg)
			return
		}
	}
	path := ""
	if strings.Contains(msg, "instance conditions") {
		path = "status.conditions"
	}
	c.reportf(diag.KroGraph, -1, path, "kro refuses the graph: %s: fix what it names", msg)
}

// JoinPath appends a field to a Problem path as kro writes it: ["a.b"] for
// a name with a dot or another ambiguous character.
func JoinPath(path, field string) string {
	if field == "" || strings.ContainsAny(field, ".[]\"") {
		b, _ := json.Marshal(field)
		return path + "[" + string(b) + "]"
	}
	if path == "" {
		return field
	}
	return path + "." + field
}

// plain is the RGD as the API server receives it.
func (r *RGD) plain() map[string]any {
	schema := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind}
	if r.Group != "" {
		schema["group"] = r.Group
	}
	schema["spec"] = r.Spec
	if r.Spec == nil {
		schema["spec"] = map[string]any{}
	}
	if len(r.Types) > 0 {
		schema["types"] = r.Types
	}
	if len(r.Status) > 0 {
		schema["status"] = r.Status
	}
	resources := make([]any, len(r.Resources))
	for i, res := range r.Resources {
		m := map[string]any{"id": res.ID}
		if res.Template != nil {
			m["template"] = res.Template
		}
		if e := res.ExternalRef; e != nil {
			meta := map[string]any{"name": e.Name}
			if e.Namespace != "" {
				meta["namespace"] = e.Namespace
			}
			m["externalRef"] = map[string]any{"apiVersion": e.APIVersion, "kind": e.Kind, "metadata": meta}
		}
		if len(res.ForEach) > 0 {
			dims := make([]any, len(res.ForEach))
			for i, d := range res.ForEach {
				dims[i] = map[string]any{d.Name: d.Expr}
			}
			m["forEach"] = dims
		}
		if len(res.IncludeWhen) > 0 {
			m["includeWhen"] = res.IncludeWhen
		}
		if len(res.ReadyWhen) > 0 {
			m["readyWhen"] = res.ReadyWhen
		}
		resources[i] = m
	}
	return map[string]any{
		"apiVersion": "kro.run/v1alpha1",
		"kind":       "ResourceGraphDefinition",
		"metadata":   map[string]any{"name": cmp.Or(r.Name, strings.ToLower(r.Kind))},
		"spec":       map[string]any{"schema": schema, "resources": resources},
	}
}
