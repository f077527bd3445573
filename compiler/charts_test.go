package compiler_test

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
	memcache "github.com/platc/platc/internal/cache"
	"github.com/platc/platc/testkit/cachetest"
	"github.com/platc/platc/testkit/synth"
)

// TestRendersKeptWhenAsked: the renders of the Applications' charts are
// kept in Result.Charts for the commands that show them
// (Options.KeepRenders), and otherwise not, as check, render and vet
// need none.
func TestRendersKeptWhenAsked(t *testing.T) {
	for _, keep := range []bool{false, true} {
		res := compiler.Compile(os.DirFS(".."), compiler.Options{KeepRenders: keep})
		if res.Log.HasErrors() {
			t.Fatalf("the sample platform does not compile:\n%s", res.Log)
		}
		if got := len(res.Charts.Apps()) > 0; got != keep {
			t.Errorf("KeepRenders %v: renders kept %v", keep, got)
		}
	}
}

// TestSampleRendersItsChart: the sample's RAG service is a chart of this
// repository, which platc renders offline in every environment, as Argo
// CD's repo server would; the upstream charts, which the sample does not
// lock, are named in a gap.
func TestSampleRendersItsChart(t *testing.T) {
	res := compiler.Compile(os.DirFS(".."), compiler.Options{KeepRenders: true})
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
		for _, h := range a.Outcome.Heads() {
			kinds = append(kinds, h.Kind)
		}
		if got, want := strings.Join(kinds, ","), "ConfigMap,Service,Deployment"; got != want {
			t.Errorf("%s: rag-service renders %s, want %s", a.Env, got, want)
		}
		envs[a.Env] = true
	}
	if !envs["local"] || !envs["customer"] {
		t.Errorf("rag-service is rendered in %v, want local and customer", envs)
	}
	// What was not checked: the charts without a lock, and the values
	// of the client whose repository is another (search).
	if len(res.Gaps) != 2 || res.Gaps[0].Kind != compiler.GapUnlockedCharts || !slices.Contains(res.Gaps[0].Names, "qdrant") || !strings.Contains(strings.Join(res.Gaps[0].Notes, "\n"), "platc charts pull") ||
		res.Gaps[1].Kind != compiler.GapClientValues || !slices.Equal(res.Gaps[1].Names, []string{"search"}) || !strings.Contains(strings.Join(res.Gaps[1].Notes, "\n"), "-client-repo search=DIR") {
		t.Errorf("gaps = %+v", res.Gaps)
	}
}

// countingCache is a cachetest.Memory that counts the entries of chart
// renders (the pack's included) it is asked for and given.
type countingCache struct {
	*cachetest.Memory
	mu                   sync.Mutex
	chartGets, chartPuts int
}

func (c *countingCache) Get(key string) ([]byte, bool) {
	if strings.HasPrefix(key, "chart-render") {
		c.mu.Lock()
		c.chartGets++
		c.mu.Unlock()
	}
	return c.Memory.Get(key)
}

func (c *countingCache) Put(key string, data []byte) {
	if strings.HasPrefix(key, "chart-render") {
		c.mu.Lock()
		c.chartPuts++
		c.mu.Unlock()
	}
	c.Memory.Put(key, data)
}

// renders is the keys of the entries of single renders.
func (c *countingCache) renders() []string {
	var keys []string
	for _, k := range c.Keys() {
		if strings.HasPrefix(k, "chart-render-") {
			keys = append(keys, k)
		}
	}
	return keys
}

// TestChartRendersAreCached: each distinct render is done once and kept in
// the cache, keyed by what it read, and the compilation's outcomes are
// kept together in one entry (the pack); the next compilation renders
// nothing, reads that one entry and finds the same; an entry that does
// not match what it claims to describe is rendered again.
func TestChartRendersAreCached(t *testing.T) {
	fsys := synth.PlatformWithCharts(synth.Size{Environments: 4, Modules: 20, Clients: 2})
	cache := &countingCache{Memory: &cachetest.Memory{}}
	first := compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if first.Log.HasErrors() {
		t.Fatal(first.Log)
	}
	distinct := len(cache.renders())
	if apps := len(first.Charts.Apps()); distinct == 0 || distinct >= apps {
		t.Errorf("%d renders kept for %d Applications: the same request must render once", distinct, apps)
	}
	if _, ok := cache.Memory.Get(memcache.ChartRenders.Key()); !ok || cache.chartPuts != distinct+1 {
		t.Errorf("the first compilation put %d entries of renders, want the %d renders and the pack", cache.chartPuts, distinct)
	}
	puts, chartGets := cache.Puts(), cache.chartGets
	second := compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if cache.Puts() != puts {
		t.Errorf("the second compilation put %d entries (renders or the pack)", cache.Puts()-puts)
	}
	if n := cache.chartGets - chartGets; n != 1 {
		t.Errorf("the second compilation read %d entries of renders, want the pack alone", n)
	}
	if a, b := first.Charts.Apps(), second.Charts.Apps(); !reflect.DeepEqual(outcomes(t, a), outcomes(t, b)) {
		t.Error("a cached render differs from the render")
	}
	// Corrupt every entry of a render: the pack still holds them.
	for _, k := range cache.renders() {
		// Another first byte: the head no longer names what it describes.
		cache.Edit(k, func(data []byte) []byte { return append([]byte{data[0] ^ 1}, data[1:]...) })
	}
	compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if cache.Puts() != puts {
		t.Errorf("with the pack whole: %d entries put again, want none", cache.Puts()-puts)
	}
	// Corrupt the pack's entries too: each is rendered again, with the
	// same outcome, and the pack is written again.
	cache.Edit(memcache.ChartRenders.Key(), damagePackEntries)
	third := compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if cache.Puts() != puts+distinct+1 || !reflect.DeepEqual(outcomes(t, first.Charts.Apps()), outcomes(t, third.Charts.Apps())) {
		t.Errorf("corrupt entries: %d put again, want the %d renders and the pack", cache.Puts()-puts, distinct)
	}
	// A damaged pack alone: the entries of single renders serve, and the
	// pack is written again.
	cache.Edit(memcache.ChartRenders.Key(), func(pack []byte) []byte { return pack[:len(pack)/2] })
	chartPuts := cache.chartPuts
	fourth := compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if n := cache.chartPuts - chartPuts; n != 1 || !reflect.DeepEqual(outcomes(t, first.Charts.Apps()), outcomes(t, fourth.Charts.Apps())) {
		t.Errorf("a damaged pack: %d entries of renders put, want the pack alone", n)
	}
	// Entries of the pack that are not what they claim, the pack whole:
	// the same.
	cache.Edit(memcache.ChartRenders.Key(), damagePackEntries)
	chartPuts = cache.chartPuts
	fifth := compiler.Compile(fsys, compiler.Options{Cache: cache, KeepRenders: true})
	if n := cache.chartPuts - chartPuts; n != 1 || !reflect.DeepEqual(outcomes(t, first.Charts.Apps()), outcomes(t, fifth.Charts.Apps())) {
		t.Errorf("damaged entries in the pack: %d entries of renders put, want the pack alone", n)
	}
}

// damagePackEntries changes the first byte of the head of every entry
// the pack holds (as the single entries are damaged above).
func damagePackEntries(pack []byte) []byte {
	for i := len(memcache.ChartRenders.Layout()); i < len(pack); i++ {
		if bytes.HasPrefix(pack[i:], []byte(memcache.ChartRender.Layout())) {
			pack[i] ^= 1
		}
	}
	return pack
}

func outcomes(t *testing.T, apps []charts.App) []outcomeView {
	t.Helper()
	var out []outcomeView
	for _, a := range apps {
		o := a.Outcome
		objects, err := o.Manifests()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, outcomeView{o.Heads(), objects, o.Error, o.Schema, o.SchemaNote, o.Unknown})
	}
	return out
}

// outcomeView is what an outcome says, through its methods.
type outcomeView struct {
	Heads      []charts.Head
	Objects    []charts.Manifest
	Error      string
	Schema     []charts.SchemaProblem
	SchemaNote string
	Unknown    []charts.UnknownKey
}

// BenchmarkVetWithCharts measures a compilation that renders every chart:
// cold (every distinct render done) and warm (every outcome from the
// cache), against the same platform without charts, with a warm cache
// too (the spec's reading, kro's verdicts, the CEL parses are cached in
// both, as in a real run from the second on).
func BenchmarkVetWithCharts(b *testing.B) {
	size := synth.Size{Environments: 10, Modules: 100, Clients: 4}
	plain, withCharts := synth.Platform(size), synth.PlatformWithCharts(size)
	b.Run("without", func(b *testing.B) {
		cache := &cachetest.Memory{}
		compiler.Compile(plain, compiler.Options{Cache: cache})
		for b.Loop() {
			compiler.Compile(plain, compiler.Options{Cache: cache})
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			compiler.Compile(withCharts, compiler.Options{Cache: &cachetest.Memory{}})
		}
	})
	warm := &cachetest.Memory{}
	compiler.Compile(withCharts, compiler.Options{Cache: warm})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			compiler.Compile(withCharts, compiler.Options{Cache: warm})
		}
	})
}
