package compiler_test

import (
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/internal/synth"
)

// TestSampleRendersItsChart: the sample's RAG service is a chart of this
// repository, which platc renders offline in every environment, as Argo
// CD's repo server would; the upstream charts, which the sample does not
// lock, are named in a note.
func TestSampleRendersItsChart(t *testing.T) {
	res := compiler.Compile(os.DirFS(".."), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the sample platform does not compile:\n%s", res.Log)
	}
	envs := map[string]bool{}
	for _, a := range res.Charts.Apps() {
		if a.Name != "rag-service" {
			continue
		}
		if a.Outcome.Error != "" {
			t.Errorf("%s: %s", a.Env, a.Outcome.Error)
		}
		var kinds []string
		for _, o := range a.Outcome.Objects {
			kinds = append(kinds, o.Object["kind"].(string))
		}
		if got, want := strings.Join(kinds, ","), "ConfigMap,Service,Deployment"; got != want {
			t.Errorf("%s: rag-service renders %s, want %s", a.Env, got, want)
		}
		envs[a.Env] = true
	}
	if !envs["local"] || !envs["customer"] {
		t.Errorf("rag-service is rendered in %v, want local and customer", envs)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "qdrant") || !strings.Contains(res.Notes[0], "platc charts pull") {
		t.Errorf("notes = %q", res.Notes)
	}
}

// countingCache is a compiler.Cache in memory, safe for concurrent use,
// that counts what it is asked.
type countingCache struct {
	mu         sync.Mutex
	data       map[string][]byte
	gets, puts int
}

func (c *countingCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	d, ok := c.data[key]
	return d, ok
}

func (c *countingCache) Put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.data[key] = data
}

func (c *countingCache) renders() int {
	n := 0
	for k := range c.data {
		if strings.HasPrefix(k, "chart-render-") {
			n++
		}
	}
	return n
}

// TestChartRendersAreCached: each distinct render is done once and kept in
// the cache, keyed by what it read; the next compilation renders nothing
// and finds the same; an entry that does not match what it claims to
// describe is rendered again.
func TestChartRendersAreCached(t *testing.T) {
	fsys := synth.PlatformWithCharts(synth.Size{Environments: 4, Modules: 20, Clients: 2})
	cache := &countingCache{data: map[string][]byte{}}
	first := compiler.Compile(fsys, compiler.Options{Cache: cache})
	if first.Log.HasErrors() {
		t.Fatal(first.Log)
	}
	distinct := cache.renders()
	if apps := len(first.Charts.Apps()); distinct == 0 || distinct >= apps {
		t.Errorf("%d renders kept for %d Applications: the same request must render once", distinct, apps)
	}
	puts := cache.puts
	second := compiler.Compile(fsys, compiler.Options{Cache: cache})
	if cache.puts != puts {
		t.Errorf("the second compilation rendered %d charts again", cache.puts-puts)
	}
	if a, b := first.Charts.Apps(), second.Charts.Apps(); !reflect.DeepEqual(outcomes(a), outcomes(b)) {
		t.Error("a cached render differs from the render")
	}
	// Corrupt every entry: each is rendered again, with the same outcome.
	for k, v := range cache.data {
		if strings.HasPrefix(k, "chart-render-") {
			// Another first byte (a digest may start with "0").
			cache.data[k] = append([]byte{v[0] ^ 1}, v[1:]...)
		}
	}
	third := compiler.Compile(fsys, compiler.Options{Cache: cache})
	if cache.puts != puts+distinct || !reflect.DeepEqual(outcomes(first.Charts.Apps()), outcomes(third.Charts.Apps())) {
		t.Errorf("corrupt entries: %d rendered again, want %d", cache.puts-puts, distinct)
	}
}

func outcomes(apps []charts.App) []*charts.Outcome {
	var out []*charts.Outcome
	for _, a := range apps {
		out = append(out, a.Outcome)
	}
	return out
}

// BenchmarkVetWithCharts measures a compilation that renders every chart:
// cold (every distinct render done) and warm (every outcome from the
// cache), against the same platform without charts, with a warm cache
// too (the schema check's verdict, kro's, the CEL parses are cached in
// both, as in a real run from the second on).
func BenchmarkVetWithCharts(b *testing.B) {
	size := synth.Size{Environments: 10, Modules: 100, Clients: 4}
	plain, withCharts := synth.Platform(size), synth.PlatformWithCharts(size)
	b.Run("without", func(b *testing.B) {
		cache := &countingCache{data: map[string][]byte{}}
		compiler.Compile(plain, compiler.Options{Cache: cache})
		for b.Loop() {
			compiler.Compile(plain, compiler.Options{Cache: cache})
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			compiler.Compile(withCharts, compiler.Options{Cache: &countingCache{data: map[string][]byte{}}})
		}
	})
	warm := &countingCache{data: map[string][]byte{}}
	compiler.Compile(withCharts, compiler.Options{Cache: warm})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			compiler.Compile(withCharts, compiler.Options{Cache: warm})
		}
	})
}
