package kro

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	"github.com/kubernetes-sigs/kro/pkg/graph/parser"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// eachReadyWhen reports what kro v0.9.3 refuses on some runs and accepts
// on others: the readyWhen of a collection is type-checked with `each`
// declared by the build context's extendWithTypedVar
// (pkg/graph/build_context.go), which caches the extended environment by
// parent environment and variable name only. Every collection's readyWhen
// then sees `each` typed by the schema of the collection kro validated
// first, in Go's random map order (NewResourceGraphDefinition ranges over
// a map of nodes). A readyWhen that does not type-check against another
// collection's kind is refused whenever that one comes first, so platc
// refuses it always, for the same verdict on every run.
func (c *checker) eachReadyWhen() {
	type coll struct {
		idx    int
		kind   string
		schema *spec.Schema
	}
	var colls []coll
	for i, r := range c.rgd.Resources {
		if len(r.ForEach) == 0 || len(r.ReadyWhen) == 0 || r.Template == nil {
			continue
		}
		apiVersion, _ := r.Template["apiVersion"].(string)
		kind, _ := r.Template["kind"].(string)
		s, err := c.kinds.ResolveSchema(gvkOf(apiVersion, kind))
		if err != nil || s == nil {
			continue // reported as the kind's problem
		}
		colls = append(colls, coll{i, apiVersion + " " + kind, s})
	}
	if len(colls) < 2 {
		return
	}
	base, _, err := krocel.TypedEnvironmentWithProvider(map[string]*spec.Schema{})
	if err != nil {
		c.errorf(-1, "", "cannot build kro's CEL environment: %v", err)
		return
	}
	// each typed as each collection's kind, made once for every pair.
	envs := make([]*cel.Env, len(colls))
	for i, b := range colls {
		envs[i], _ = extendTyped(base, graph.EachVarName, b.schema) // nil: not typed, not checked
	}
	for _, a := range colls {
		for i, b := range colls {
			env := envs[i]
			if a.kind == b.kind || env == nil {
				continue
			}
			for j, w := range c.rgd.Resources[a.idx].ReadyWhen {
				path := fmt.Sprintf("readyWhen[%d]", j)
				if c.has(a.idx, path) {
					continue
				}
				exprs, err := parser.UnwrapExpressions([]string{w})
				if err != nil {
					continue // reported by the diagnosis
				}
				if _, iss := env.Compile(exprs[0].Original); iss.Err() != nil {
					first := strings.SplitN(iss.Err().Error(), "\n", 2)[0]
					c.errorf(a.idx, path, "kro v0.9.3 types each in every collection's readyWhen as the collection it checks first, in random order: typed as %s of collection %q, readyWhen %q does not type-check (%s), and kro refuses the graph on some runs: give readyWhen to the collections of one kind only, or write it so that it holds for both kinds (kro: failed to type-check readyWhen expression %q in resource %q)",
						strings.TrimPrefix(b.kind, " "), c.rgd.Resources[b.idx].ID, exprs[0].Original, first, exprs[0].Original, c.rgd.Resources[a.idx].ID)
				}
			}
		}
	}
}
