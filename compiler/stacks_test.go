package compiler_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/object"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/testkit/cachetest"
	"github.com/platc/platc/testkit/rgdobject"
	"github.com/platc/platc/testkit/synth"
)

// TestRenderedRGDsCheck reads every ResourceGraphDefinition platc renders
// (for the sample and the golden cases) back from its bytes and checks it
// with kro's own code, as kro's controller will read it; then validates
// every rendered instance of it, read back from its bytes too, with the CRD
// kro generates from it, as the API server will.
func TestRenderedRGDsCheck(t *testing.T) {
	checked, instances := 0, 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		results := map[string]*kro.Result{} // apiVersion + " " + kind
		type rendered struct {
			path     string
			g        *kro.RGD
			problems []kro.Problem // of its last check
		}
		var rgds []rendered
		var docs []map[string]any
		for _, o := range res.Outputs {
			if !strings.HasSuffix(o.Path, ".yaml") {
				continue
			}
			for _, doc := range bytes.Split(o.Data, []byte("\n---\n")) {
				var obj map[string]any
				if err := yaml.Unmarshal(bytes.TrimSpace(doc), &obj); err != nil {
					t.Fatalf("%s: %v", o.Path, err)
				}
				if obj == nil {
					continue
				}
				if !strings.Contains(o.Path, "/stacks/") {
					docs = append(docs, obj)
					continue
				}
				if obj["kind"] != "ResourceGraphDefinition" {
					t.Fatalf("%s: kind %v", o.Path, obj["kind"])
				}
				g, err := rgdobject.Read(obj)
				if err != nil {
					t.Fatalf("%s: %v", o.Path, err)
				}
				// As the platform's kro runs.
				g.Gates = res.Spec.Platform.Kro.FeatureGates
				rgds = append(rgds, rendered{path: o.Path, g: g})
				checked++
			}
		}
		// An RGD that creates instances of another stack is checked beside
		// the CRDs kro generates for the others, as rgd.Compile does: in
		// rounds, until no more are accepted.
		for pending := rgds; len(pending) > 0; {
			var next []rendered
			for _, x := range pending {
				if len(results) > 0 {
					var rs []*kro.Result
					for _, k := range slices.Sorted(maps.Keys(results)) {
						rs = append(rs, results[k])
					}
					base, err := kro.Embedded()
					if err != nil {
						t.Fatal(err)
					}
					if x.g.Kinds, err = base.WithResults(rs...); err != nil {
						t.Fatal(err)
					}
				}
				r, problems := kro.Check(x.g)
				if r == nil {
					x.problems = problems
					next = append(next, x)
					continue
				}
				group := x.g.Group
				if group == "" {
					group = "kro.run"
				}
				results[group+"/"+x.g.APIVersion+" "+x.g.Kind] = r
			}
			if len(next) == len(pending) {
				for _, x := range next {
					for _, p := range x.problems {
						if !p.Warning() {
							t.Errorf("%s: %s: resource %q %s: %s", repo, x.path, p.Resource, p.Path, p.Msg)
						}
					}
				}
				break
			}
			pending = next
		}
		for _, obj := range docs {
			r := results[fmt.Sprint(obj["apiVersion"])+" "+fmt.Sprint(obj["kind"])]
			if r == nil {
				continue
			}
			spec, _ := obj["spec"].(map[string]any)
			if _, problems := r.Instance(spec); len(problems) > 0 {
				t.Errorf("%s: instance %v: %v", repo, obj["metadata"], problems)
			}
			instances++
		}
	}
	if checked < 4 || instances < 4 {
		t.Errorf("checked %d ResourceGraphDefinitions and %d instances; the sample and the golden cases render more", checked, instances)
	}
}

// TestPreviewKroEnvironment previews golden/stacks-kro's instance: kro's
// functions and the Kubernetes CEL libraries evaluate offline, and an
// includeWhen whose optional has no value leaves its resource out, as kro
// takes none for false.
func TestPreviewKroEnvironment(t *testing.T) {
	res := compiler.Compile(os.DirFS("../golden/stacks-kro"), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("golden/stacks-kro does not compile:\n%s", res.Log)
	}
	p, err := res.Stacks.PreviewInstance("web", "team", "dev")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p.Resources {
		got[r.ID] = r.Included
	}
	want := map[string]string{
		"traces": "not created: schema.spec.?tracing.?enabled has no value, which kro takes as false",
		"site":   "created",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	for _, r := range p.Resources {
		if r.ID != "site" {
			continue
		}
		sources, _ := object.Lookup(object.Plain(r.Object), "spec", "sources").([]any)
		if len(sources) == 0 {
			t.Fatalf("site has no sources: %v", object.Plain(r.Object))
		}
		values := object.Lookup(sources[0], "helm", "valuesObject")
		for key, v := range map[string]any{"host": "shop.example.com", "port": "8443", "memoryBytes": int64(512 << 20), "major": int64(1), "inNetwork": true, "word": "abc"} {
			if g := object.Lookup(values, key); !cmp.Equal(g, v) {
				t.Errorf("valuesObject.%s = %#v, want %#v", key, g, v)
			}
		}
	}
}

// TestPreviewsFromTheCache checks that the previews of a second run, read
// from the cache, are those the first run evaluated (resources, inclusion,
// objects with their keys' order and their values' types) and that the
// second run evaluates none (it adds no entry and reads one per
// instance whose schema variable no instance before had), for the sample
// and golden/stacks-kro.
func TestPreviewsFromTheCache(t *testing.T) {
	for _, dir := range []string{"..", "../golden/stacks-kro"} {
		cache := &cachetest.Memory{}
		first := compiler.Compile(os.DirFS(dir), compiler.Options{Cache: cache})
		if first.Log.HasErrors() {
			t.Fatalf("%s does not compile:\n%s", dir, first.Log)
		}
		entries := cache.Len()
		counting := &previewCounter{Memory: cache}
		second := compiler.Compile(os.DirFS(dir), compiler.Options{Cache: counting})
		if second.Log.HasErrors() {
			t.Fatalf("%s does not compile from the cache:\n%s", dir, second.Log)
		}
		if cache.Len() != entries {
			t.Errorf("%s: the second run added %d cache entries", dir, cache.Len()-entries)
		}
		n := 0
		for _, inst := range first.Stacks.Instances {
			stack, client, env := inst.Stack.Model.Name, inst.Client.Name, inst.Env.Name
			want, err := first.Stacks.PreviewInstance(stack, client, env)
			if err != nil {
				t.Fatal(err)
			}
			got, err := second.Stacks.PreviewInstance(stack, client, env)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if len(got.Resources) != len(want.Resources) {
				t.Fatalf("%s: %s of %s in %s: %d resources from the cache, want %d", dir, stack, client, env, len(got.Resources), len(want.Resources))
			}
			for i, w := range want.Resources {
				g := got.Resources[i]
				if g.ID != w.ID || g.Kind != w.Kind || g.Included != w.Included {
					t.Errorf("%s: %s of %s: resource %d is %s %s %q, want %s %s %q", dir, stack, client, i, g.ID, g.Kind, g.Included, w.ID, w.Kind, w.Included)
				}
				if gs, ws := fmt.Sprintf("%#v", dump(g.Object)), fmt.Sprintf("%#v", dump(w.Object)); gs != ws {
					t.Errorf("%s: %s of %s: %s from the cache:\n%s\nwant\n%s", dir, stack, client, w.ID, gs, ws)
				}
			}
		}
		if n == 0 || counting.previews < n {
			t.Errorf("%s: %d previews compared, %d read from the cache", dir, n, counting.previews)
		}
	}
}

// dump is v with its Maps as ordered lists of keys and values, and every
// value with its Go type, for comparing previews exactly.
func dump(v any) any {
	switch v := v.(type) {
	case *object.Map:
		if v == nil {
			return nil
		}
		var out []any
		v.Each(func(k string, x any) { out = append(out, k, dump(x)) })
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = dump(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = dump(x)
		}
		return out
	}
	return fmt.Sprintf("%T %v", v, v)
}

// previewCounter is a cachetest.Memory that counts the previews read from it.
type previewCounter struct {
	*cachetest.Memory
	mu       sync.Mutex
	previews int
}

func (c *previewCounter) Get(k string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.Memory.Get(k)
	if ok && strings.HasPrefix(k, "rgd-preview-") {
		c.previews++
	}
	return v, ok
}

func (c *previewCounter) Put(k string, v []byte) {
	c.Memory.Put(k, v)
}

// TestKroGatesPerCompilation compiles, at once and many times over, a
// platform whose kro runs with CELOmitFunction on and the same platform
// with the gate left at kro's default (off): kro's builder reads its gates
// from a process-wide variable, and each compilation must get the verdict
// of its own gates, whatever runs beside it (go test -race proves the
// handover).
func TestKroGatesPerCompilation(t *testing.T) {
	on := fstest.MapFS{}
	dir := "../golden/stacks-kro-gates"
	if err := fs.WalkDir(os.DirFS(dir), "sources", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(dir + "/" + p)
		on[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	off := maps.Clone(on)
	spec := string(on["sources/platform.cue"].Data)
	spec = strings.Replace(spec, "kro: featureGates: CELOmitFunction: true", "", 1)
	spec = strings.Replace(spec, "values: config: featureGates: CELOmitFunction: true", "", 1)
	off["sources/platform.cue"] = &fstest.MapFile{Data: []byte(spec)}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fsys, gate := on, "on"
			if i%2 == 1 {
				fsys, gate = off, "off"
			}
			res := compiler.Compile(fsys, compiler.Options{})
			refused := strings.Contains(res.Log.String(), "calls omit(), which kro refuses")
			if gate == "on" && res.Log.HasErrors() || gate == "off" && !refused {
				t.Errorf("CELOmitFunction %s:\n%s", gate, res.Log)
			}
		}()
	}
	wg.Wait()
}

// TestPreviewsShared checks that instances CEL's schema sees alike (a
// client's instance in environments alike, as in the benchmark's
// platform) share one preview, read from the cache once, each preview
// still naming its own instance.
func TestPreviewsShared(t *testing.T) {
	fsys := synth.Platform(synth.Sizes["50x200x20"])
	cache := &cachetest.Memory{}
	if res := compiler.Compile(fsys, compiler.Options{Cache: cache}); res.Log.HasErrors() {
		t.Fatalf("the platform does not compile:\n%s", res.Log)
	}
	counting := &previewCounter{Memory: cache}
	res := compiler.Compile(fsys, compiler.Options{Cache: counting})
	if res.Log.HasErrors() {
		t.Fatalf("the platform does not compile from the cache:\n%s", res.Log)
	}
	keys := 0
	for _, k := range cache.Keys() {
		if strings.HasPrefix(k, "rgd-preview-") {
			keys++
		}
	}
	if counting.previews != keys || keys >= len(res.Stacks.Instances) {
		t.Errorf("%d previews read for %d instances with %d distinct previews: want one read each", counting.previews, len(res.Stacks.Instances), keys)
	}
	for _, inst := range res.Stacks.Instances {
		p, err := res.Stacks.PreviewInstance(inst.Stack.Model.Name, inst.Client.Name, inst.Env.Name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Instance != inst {
			t.Errorf("the preview of %s of %s in %s names the instance of %s in %s", inst.Stack.Model.Name, inst.Client.Name, inst.Env.Name, p.Instance.Client.Name, p.Instance.Env.Name)
		}
	}
}
