package conformance

// This file is the only one that calls platc's compiler. Its entry points
// change as compiler/kro and compiler/rgd move to kro's own code: adapt
// only this file.

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/verify"
	"github.com/platc/platc/schemas"
	"github.com/platc/platc/testkit/rgdobject"
)

// PlatcRGD is platc's verdict on a ResourceGraphDefinition (as decoded
// YAML): the problems platc reports before it renders one, none if it
// would. That is what rgd.Compile and verify do with a stack's RGD:
// kro.Check over the RGD (kro's own builder over the embedded CRDs, then
// the API server's checks of the CRD kro generates), then verify over the
// rendered object (the embedded CRDs' schemas, Kubernetes' limits on
// metadata). Warnings are not refusals: platc renders the RGD.
func PlatcRGD(obj map[string]any) []string {
	var out []string
	r, err := rgdobject.Read(obj)
	if err != nil {
		return []string{"reading the RGD: " + err.Error()}
	}
	_, probs := kro.Check(r)
	for _, p := range probs {
		if !p.Warning() {
			out = append(out, fmt.Sprintf("kro.Check: %s: %s: %s", p.Resource, p.Path, p.Msg))
		}
	}
	// verify over the one file render would write, in a spec of nothing
	// else (no environment, module or stack: only the object's own
	// checks run).
	log := &diag.Log{}
	verify.Verify(verify.Input{
		Spec:  &model.Spec{},
		Files: []render.File{{Path: "stacks/conformance.yaml", Objects: []*object.Map{toMap(obj)}}},
	}, log)
	for _, p := range log.Problems() {
		if p.Severity == diag.Error {
			out = append(out, "verify: "+p.Msg)
		}
	}
	return out
}

// PlatcWarnings are the warnings platc gives about an RGD it renders.
func PlatcWarnings(obj map[string]any) []string {
	r, err := rgdobject.Read(obj)
	if err != nil {
		return nil
	}
	var out []string
	_, probs := kro.Check(r)
	for _, p := range probs {
		if p.Warning() {
			out = append(out, p.Path+": "+p.Msg)
		}
	}
	return out
}

// toMap is plain data as render holds an object: maps as *object.Map,
// keys sorted.
func toMap(obj map[string]any) *object.Map {
	m := object.NewMap()
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		m.Set(k, toValue(obj[k]))
	}
	return m
}

func toValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return toMap(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toValue(x)
		}
		return out
	}
	return v
}

// PlatcInstanceCRD is the CRD platc validates the instances of an RGD it
// accepts with (kro.Result.CRD, the one kro generates), nil if it refuses
// the RGD. others are the repository's other RGDs: an RGD that creates
// instances of theirs is checked beside the CRDs of those platc accepts
// alone, as rgd.Compile does.
func PlatcInstanceCRD(gates map[string]bool, obj map[string]any, others ...map[string]any) map[string]any {
	r, err := rgdobject.Read(obj)
	if err != nil {
		return nil
	}
	r.Gates = gates
	if res, _ := kro.Check(r); res != nil {
		return res.CRD
	}
	var results []*kro.Result
	for _, o := range others {
		if or, err := rgdobject.Read(o); err == nil {
			or.Gates = gates
			if res, _ := kro.Check(or); res != nil {
				results = append(results, res)
			}
		}
	}
	base, err := kro.Embedded()
	if err != nil || len(results) == 0 {
		return nil
	}
	if r.Kinds, err = base.WithResults(results...); err != nil {
		return nil
	}
	res, _ := kro.Check(r)
	if res == nil {
		return nil
	}
	return res.CRD
}

// EmbeddedCRDs are the CRDs platc embeds (schemas/crds), by file name.
func EmbeddedCRDs() map[string][]byte { return schemas.CRDs() }

// Compiled is the outcome of platc's whole pipeline on a repository.
type Compiled struct {
	Problems []diag.Problem    // errors only
	Outputs  map[string][]byte // by path in the repository, such as out/stacks/x.yaml
	// Gates are the kro feature gates the spec says its kro runs with.
	Gates map[string]bool
}

// Compile runs platc's pipeline (what `platc render` does, without writing)
// on the repository fsys.
func Compile(fsys fs.FS) *Compiled {
	res := compiler.Compile(fsys, compiler.Options{})
	out := &Compiled{Outputs: map[string][]byte{}}
	for _, p := range res.Log.Problems() {
		if p.Severity == diag.Error {
			out.Problems = append(out.Problems, p)
		}
	}
	for _, o := range res.Outputs {
		out.Outputs[o.Path] = o.Data
	}
	if res.Spec != nil {
		out.Gates = res.Spec.Platform.Kro.FeatureGates
	}
	return out
}

// PlatcClients is platc's verdict on the instance of each client: it
// compiles the repository repo makes for a set of clients and attributes
// each problem to its client, by its spec path (clients.<name>...: rgd's
// checks) or by the instance it names in the rendered file ("<kind>
// <name>: ...": verify's check against the instance CRD). Compile stops at
// the first stage with errors, so the clients refused are dropped and the
// rest compiled again, until none is refused. It returns the problems of
// each refused client, the instances (of kind) rendered for the others,
// and the problems of no client.
func PlatcClients(repo func(clients []string) fs.FS, clients []string, kind string) (refused map[string][]string, rendered map[string]map[string]any, other []string) {
	refused = map[string][]string{}
	left := clients
	for len(left) > 0 {
		c := Compile(repo(left))
		if len(c.Problems) == 0 {
			rendered = map[string]map[string]any{}
			for _, data := range c.Outputs {
				for _, doc := range SplitYAML(data) {
					if obj, err := DecodeYAML(doc); err == nil && obj["kind"] == kind {
						name, _ := lookup(obj, "metadata", "name").(string)
						rendered[name] = obj
					}
				}
			}
			return refused, rendered, other
		}
		for _, p := range c.Problems {
			name, msg := clientOf(p, kind)
			if name == "" || !slices.Contains(left, name) {
				other = append(other, p.String())
				continue
			}
			refused[name] = append(refused[name], msg)
		}
		if len(other) > 0 {
			return refused, nil, other
		}
		left = slices.DeleteFunc(slices.Clone(left), func(c string) bool { return refused[c] != nil })
	}
	return refused, map[string]map[string]any{}, other
}

// clientOf names the client a problem is about, and the problem without
// its position (which is in a generated file).
func clientOf(p diag.Problem, kind string) (string, string) {
	if rest, ok := strings.CutPrefix(p.Path, "clients."); ok {
		name, _, _ := strings.Cut(rest, ".")
		return name, p.Path + ": " + p.Msg
	}
	if rest, ok := strings.CutPrefix(p.Msg, kind+" "); ok && strings.HasSuffix(p.Pos.File, ".yaml") {
		name, _, _ := strings.Cut(rest, ":")
		return name, p.Msg
	}
	return "", ""
}
