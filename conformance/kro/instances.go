package conformance

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"sigs.k8s.io/yaml"
)

// Family 4 runs platc's whole pipeline, since platc's instance checks
// (rgd's, with the CRD kro generates, at the client's spec) have no entry
// of their own: one small repository per generated schema, with one
// client per generated instance spec, in memory.

const (
	platformRepo     = "https://git.example.com/p.git"
	clientsPerSchema = 50
	instanceKind     = "Thing"
	instanceNS       = "inst"
	instanceModule   = "inst" // the module that delivers the instances
)

// instanceRepo is the repository of one stack, s, of the instance schema
// spec, and clients, by name, with their instance specs.
func instanceRepo(spec map[string]any, clients map[string]map[string]any) fs.FS {
	var b strings.Builder
	fmt.Fprintf(&b, `package platform

platform: {name: "p", repoURL: %q}
modules: {
	defs: definitions: ["s"]
	inst: {stacks: ["s"], namespace: %q}
}
environments: dev: revision: "HEAD"
stacks: s: {kind: %q, spec: %s}
`, platformRepo, instanceNS, instanceKind, cueValue(spec))
	if len(clients) > 0 {
		b.WriteString("clients: {\n")
		for _, name := range slices.Sorted(maps.Keys(clients)) {
			fmt.Fprintf(&b, "\t%q: {values: repoURL: %q, stacks: s: {environments: [\"dev\"], spec: %s}}\n", name, platformRepo, cueValue(clients[name]))
		}
		b.WriteString("}\n")
	}
	return fstest.MapFS{"sources/platform.cue": {Data: []byte(b.String())}}
}

// expectedInstance is the instance platc renders for client with spec:
// the spec, and the fields platc fills (where the values live, the
// AppProject), which platc sets over any the client wrote.
func expectedInstance(client string, spec map[string]any) map[string]any {
	s := maps.Clone(spec)
	s["values"] = map[string]any{"path": "clients/" + client + "/s", "repoURL": platformRepo, "revision": "HEAD"}
	s["project"] = instanceModule // argocd.InstancesProject: the project platc generates for the module's instances
	return map[string]any{
		"apiVersion": "kro.run/v1alpha1",
		"kind":       instanceKind,
		"metadata":   map[string]any{"name": client, "namespace": instanceNS},
		"spec":       s,
	}
}

// InstanceCase is one client's instance spec against one stack's schema.
type InstanceCase struct {
	Seed   uint64
	Schema map[string]any // the stack's SimpleSchema spec
	Spec   map[string]any // the client's instance spec
}

// InstanceReport is the outcome of family 4.
type InstanceReport struct {
	Report
	Schemas, SkippedSchemas int
	Harness                 []string // the suite's own failures
}

// RunInstances generates schemas from seeds base, base+1... and for each
// clientsPerSchema instance specs, until n instance cases are judged.
// A schema either side refuses is skipped: family 1 covers schemas.
func RunInstances(base uint64, n int, w *World) *InstanceReport {
	start := time.Now()
	r := &InstanceReport{Report: Report{Family: "instances"}}
	defer func() { r.Judging = time.Since(start) }()
	byClass := map[string]*DisagreementClass{}
	var mu sync.Mutex
	seeds := make(chan uint64)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for seed := range seeds {
				res := judgeSchema(seed, w)
				mu.Lock()
				r.Schemas++
				if res.skipped {
					r.SkippedSchemas++
				}
				r.Harness = append(r.Harness, res.harness...)
				for _, c := range res.cases {
					if r.Cases >= n {
						break
					}
					r.Cases++
					v := c.verdict
					switch {
					case v.Agree() && v.Kro == nil:
						r.BothAccept++
					case v.Agree():
						r.BothRefuse++
					default:
						dc := byClass[v.Class()]
						if dc == nil {
							dc = &DisagreementClass{Class: v.Class(), Seed: c.Seed, Case: map[string]any{"stack spec": c.Schema, "client spec, in CUE": cueValue(c.Spec)}, Verdict: v}
							byClass[dc.Class] = dc
							r.Classes = append(r.Classes, dc)
						}
						dc.Count++
					}
				}
				mu.Unlock()
			}
		})
	}
	for seed := base; ; seed++ {
		mu.Lock()
		done := r.Cases >= n || seed-base > uint64(4*n/clientsPerSchema+100)
		mu.Unlock()
		if done {
			break
		}
		seeds <- seed
	}
	close(seeds)
	wg.Wait()
	slices.SortStableFunc(r.Classes, func(a, b *DisagreementClass) int { return b.Count - a.Count })
	return r
}

type judgedInstance struct {
	InstanceCase
	verdict Verdict
}

type schemaResult struct {
	cases   []judgedInstance
	skipped bool
	harness []string
}

// judgeSchema generates the schema of seed and its clients, and judges
// every client on both sides.
func judgeSchema(seed uint64, w *World) schemaResult {
	g := NewGen(seed)
	fields := genFields(g, 0)
	spec := map[string]any{}
	for _, f := range fields {
		spec[f.name] = f.simpleSchema()
	}
	specs := map[string]map[string]any{}
	for i := range clientsPerSchema {
		specs[fmt.Sprintf("c%d", i)] = genInstanceSpec(g, fields)
	}
	// The stack alone: both sides must accept it.
	alone := Compile(instanceRepo(spec, nil))
	if len(alone.Problems) > 0 {
		return schemaResult{skipped: true}
	}
	var rgdObj map[string]any
	if err := yaml.Unmarshal(alone.Outputs["out/stacks/s.yaml"], &rgdObj); err != nil || rgdObj == nil {
		return schemaResult{harness: []string{fmt.Sprintf("seed %d: platc rendered no out/stacks/s.yaml (%v)", seed, err)}}
	}
	acc, err := w.BuildRGD(rgdObj)
	if err != nil {
		return schemaResult{skipped: true}
	}
	refused, rendered, other := PlatcClients(func(clients []string) fs.FS {
		sub := map[string]map[string]any{}
		for _, c := range clients {
			sub[c] = specs[c]
		}
		return instanceRepo(spec, sub)
	}, slices.Sorted(maps.Keys(specs)), instanceKind)
	res := schemaResult{}
	for _, p := range other {
		res.harness = append(res.harness, fmt.Sprintf("seed %d: platc problem of no client: %s", seed, p))
	}
	for _, client := range slices.Sorted(maps.Keys(specs)) {
		obj := expectedInstance(client, specs[client])
		if r, ok := rendered[client]; ok {
			if want, got := canonical(obj), canonical(r); want != got {
				res.harness = append(res.harness, fmt.Sprintf("seed %d: platc renders client %s as\n%s\nnot, as the suite expects,\n%s", seed, client, got, want))
			}
			obj = r
		}
		_, kerr := AdmitWith(acc.CRD, obj)
		res.cases = append(res.cases, judgedInstance{
			InstanceCase: InstanceCase{Seed: seed, Schema: spec, Spec: specs[client]},
			verdict:      Verdict{Platc: refused[client], Kro: kerr},
		})
	}
	return res
}

// canonical is v as JSON, through YAML, as kubectl sends it.
func canonical(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var x any
	if err := yaml.Unmarshal(b, &x); err != nil {
		return err.Error()
	}
	out, _ := yaml.Marshal(x)
	return string(out)
}
