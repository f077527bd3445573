package load

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/internal/cache"
	memcache "github.com/platc/platc/internal/cache"
	"github.com/platc/platc/testkit/cachetest"
	"github.com/platc/platc/testkit/synth"
)

// loaded is what a Load says: the spec read, with its declarations and
// literals, whether it fits, and the log.
type loaded struct {
	Data     *Value
	Decls    map[string]diag.Pos
	Literals map[string]Literal
	Fits     bool
	Log      string
}

func loadWith(fsys fs.FS, cache cache.Cache) loaded {
	log := &diag.Log{}
	s := BeginCached(fsys, "sources", cache, log)
	if s == nil {
		return loaded{Log: log.String()}
	}
	fits := s.Checked()
	return loaded{Data: s.Data, Decls: s.Decls, Literals: s.Literals, Fits: fits, Log: log.String()}
}

// TestCachedFitReadsAsUncached loads the sample, every golden case and
// generated platforms (plain and idiomatic) three times: without a
// cache, with an empty one, and with the one the second run filled. The
// three say the same (the spec read, positions, declarations and
// literals included, the verdict, every problem), and the third uses the
// cache exactly where the spec fits (and has no trap of CUE, whose
// warning comes from the syntax); its reading is kept exactly there,
// whether readPlain, the parser or CUE read it.
func TestCachedFitReadsAsUncached(t *testing.T) {
	repos := specRepos(t)
	repos["synth/10x100"] = synth.Platform(synth.Sizes["10x100"])
	repos["synth/idiomatic"] = synth.Idiomatic(synth.Sizes["10x100"])
	fitting, failing, kept := 0, 0, 0
	for name, fsys := range repos {
		t.Run(name, func(t *testing.T) {
			want := loadWith(fsys, nil)
			cache := &cachetest.Memory{}
			first := loadWith(fsys, cache)
			if diff := cmp.Diff(want, first); diff != "" {
				t.Fatalf("with an empty cache (+), the spec loads otherwise than without (-):\n%s", diff)
			}
			hits := cache.Hits()
			second := loadWith(fsys, cache)
			if diff := cmp.Diff(want, second); diff != "" {
				t.Fatalf("from the cache (+), the spec loads otherwise than without (-):\n%s", diff)
			}
			used := cache.Hits() > hits
			// A spec with a trap of CUE (a warning load finds in the
			// syntax, which a cached reading skips) is not kept.
			keeps := want.Fits && !strings.Contains(want.Log, "[self-comprehension]")
			if want.Fits {
				fitting++
			} else if want.Data != nil {
				failing++
			}
			if used != keeps {
				t.Errorf("the second load used the cache: %v; the spec fits the schema: %v, and has no trap: %v", used, want.Fits, keeps)
			}
			reading := slices.ContainsFunc(cache.Keys(), func(k string) bool { return strings.HasPrefix(k, memcache.SpecReading.Name+"-") })
			if reading {
				kept++
			}
			if reading != keeps {
				t.Errorf("the spec's reading is kept: %v; the spec fits: %v, and has no trap: %v", reading, want.Fits, keeps)
			}
		})
	}
	if fitting < 5 || failing < 5 || kept < 2 {
		t.Fatalf("%d specs fit the schema and %d do not, %d readings kept: the test compares too little", fitting, failing, kept)
	}
}

// TestCachedFitIsBoundToTheBytes checks that the reading of a spec that
// fits, which says that it fits, is not taken for another spec: a changed
// byte and a damaged entry are checked anew, and the misfit is reported;
// another file name, another folder and another file change the digest.
func TestCachedFitIsBoundToTheBytes(t *testing.T) {
	const good = `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
environments: dev: revision: "HEAD"
`
	bad := strings.Replace(good, "revision:", "revisoin:", 1)
	goodFS := fstest.MapFS{"sources/platform.cue": {Data: []byte(good)}}
	badFS := fstest.MapFS{"sources/platform.cue": {Data: []byte(bad)}}
	want := loadWith(badFS, nil)
	if want.Fits || !strings.Contains(want.Log, "revisoin") {
		t.Fatalf("the misspelled spec fits, or its problem is not said:\n%s", want.Log)
	}
	cache := &cachetest.Memory{}
	if !loadWith(goodFS, cache).Fits {
		t.Fatal("the spec does not fit")
	}
	for _, tc := range []struct {
		name  string
		entry func()
	}{
		{"a changed byte", func() {}},
		{"a damaged entry", func() { cache.Put(memcache.SpecReading.Key("sources"), []byte(memcache.SpecReading.Layout())) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.entry()
			if diff := cmp.Diff(want, loadWith(badFS, cache)); diff != "" {
				t.Errorf("with the cache (+), the misfit loads otherwise than without (-):\n%s", diff)
			}
		})
	}
	// What the digest covers, each changed alone.
	base := readingDigest("sources", []string{"sources/a.cue"}, [][]byte{[]byte(good)})
	for name, d := range map[string]string{
		"another file name":                     readingDigest("sources", []string{"sources/b.cue"}, [][]byte{[]byte(good)}),
		"another folder":                        readingDigest("spec", []string{"sources/a.cue"}, [][]byte{[]byte(good)}),
		"the bytes moved between name and data": readingDigest("sources", []string{"sources/a.cuep"}, [][]byte{[]byte(strings.TrimPrefix(good, "p"))}),
		"another file":                          readingDigest("sources", []string{"sources/a.cue", "sources/b.cue"}, [][]byte{[]byte(good), nil}),
	} {
		if d == base {
			t.Errorf("%s: same digest", name)
		}
	}
}

// readsPlain says whether readPlain reads the spec in fsys's sources.
func readsPlain(fsys fs.FS) bool {
	names, err := fs.Glob(fsys, "sources/*.cue")
	if err != nil {
		panic(err)
	}
	slices.Sort(names)
	var sources [][]byte
	for _, name := range names {
		data, err := fs.ReadFile(fsys, path.Clean(name))
		if err != nil {
			panic(err)
		}
		sources = append(sources, data)
	}
	_, _, _, plain := readPlain(names, sources)
	return plain
}

// evaluatedSpec is a spec CUE evaluates (readPlain leaves a reference and
// a pattern to it), with declarations, list elements and a ${...}
// literal.
const evaluatedSpec = `package platform
_repo: "https://git.example.com/shop.git"
platform: {name: "shop", repoURL: _repo}
environments: [string]: revision: "HEAD"
environments: {dev: {}, prod: {}}
modules: web: {path: "web", namespace: "web", values: {a: [1, 2.5, true, null], b: "${x}"}}
`

// TestCachedReadingIsBoundToItsSpec checks that a reading kept for one
// spec that CUE evaluates is not taken for another, nor taken when cut
// short or of another layout: each loads as it does without a cache.
func TestCachedReadingIsBoundToItsSpec(t *testing.T) {
	spec := evaluatedSpec
	other := strings.Replace(spec, "prod", "stage", 1)
	specFS := fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}}
	otherFS := fstest.MapFS{"sources/platform.cue": {Data: []byte(other)}}
	if readsPlain(specFS) {
		t.Fatal("readPlain reads the spec: the test shows nothing")
	}
	want := loadWith(specFS, nil)
	key := memcache.SpecReading.Key("sources")
	fill := func(c *cachetest.Memory, fsys fs.FS) {
		if !loadWith(fsys, c).Fits {
			t.Fatal("the spec does not fit")
		}
		if _, ok := c.Get(key); !ok {
			t.Fatal("the spec's reading is not kept")
		}
	}
	for _, tc := range []struct {
		name  string
		entry func(c *cachetest.Memory)
	}{
		{"another spec's reading, kept since", func(c *cachetest.Memory) { fill(c, otherFS) }},
		{"cut short", func(c *cachetest.Memory) { c.Edit(key, func(b []byte) []byte { return b[:len(b)*2/3] }) }},
		{"of another layout", func(c *cachetest.Memory) {
			c.Edit(key, func(b []byte) []byte {
				return append([]byte("platc spec-reading 0\n"), b[len(memcache.SpecReading.Layout()):]...)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cachetest.Memory{}
			fill(c, specFS)
			tc.entry(c)
			if diff := cmp.Diff(want, loadWith(specFS, c)); diff != "" {
				t.Errorf("with the cache (+), the spec loads otherwise than without (-):\n%s", diff)
			}
		})
	}
}

// FuzzCachedReading reads entries changed at random as cachedReading
// would: none makes it panic, and a reading it takes reads the same once
// stored again. The seed is the reading of evaluatedSpec, which stores
// again byte for byte.
func FuzzCachedReading(f *testing.F) {
	spec := evaluatedSpec
	fsys := fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}}
	c := &cachetest.Memory{}
	if !loadWith(fsys, c).Fits {
		f.Fatal("the spec does not fit")
	}
	key := memcache.SpecReading.Key("sources")
	entry, ok := c.Get(key)
	if !ok {
		f.Fatal("the spec's reading is not kept")
	}
	digest := readingDigest("sources", []string{"sources/platform.cue"}, [][]byte{[]byte(spec)})
	data, decls, lits, ok := cachedReading(c, "sources", digest)
	if !ok {
		f.Fatal("the spec's reading is not read")
	}
	again := &cachetest.Memory{}
	storeReading(again, "sources", digest, data, decls, lits)
	if got, _ := again.Get(key); !bytes.Equal(got, entry) {
		f.Fatalf("the spec's reading stores otherwise once read:\n%q\n%q", entry, got)
	}
	f.Add(entry)
	f.Fuzz(func(t *testing.T, entry []byte) {
		c := &cachetest.Memory{}
		c.Put(key, entry)
		data, decls, lits, ok := cachedReading(c, "sources", digest)
		if !ok {
			return
		}
		storeReading(c, "sources", digest, data, decls, lits)
		data2, decls2, lits2, ok := cachedReading(c, "sources", digest)
		if !ok {
			t.Fatal("a reading taken, stored again, is not read")
		}
		if diff := cmp.Diff(loaded{Data: data, Decls: decls, Literals: lits}, loaded{Data: data2, Decls: decls2, Literals: lits2}, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("a reading taken, stored again, reads otherwise:\n%s", diff)
		}
	})
}
