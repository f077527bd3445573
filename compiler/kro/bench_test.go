package kro

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/platc/platc/schemas"
	"github.com/platc/platc/testkit/cachetest"
)

// BenchmarkWithResultsCached is what a run spends on a stack that creates
// instances of another stack when every RGD is in the cache: the Kinds
// with the other stack's CRD, and the cached check of the RGD; "fresh"
// from Kinds never used before, as a run's first such stack meets them.
func BenchmarkWithResultsCached(b *testing.B) {
	base, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) { benchWithResults(b, base, func() *Kinds { return base }) })
	files, err := schemas.CRDObjects()
	if err != nil {
		b.Fatal(err)
	}
	var objs []map[string]any
	for _, name := range slices.Sorted(maps.Keys(files)) {
		objs = append(objs, files[name]...)
	}
	b.Run("fresh", func(b *testing.B) {
		benchWithResults(b, base, func() *Kinds { return plainKinds(objs, base.digest) })
	})
}

func benchWithResults(b *testing.B, base *Kinds, fresh func() *Kinds) {
	cache := &cachetest.Memory{}
	other := validRGD()
	other.Cache = cache
	res, probs := Check(other)
	if res == nil {
		b.Fatal(probs)
	}
	user := validRGD()
	user.Kind = "UserStack"
	user.Cache = cache
	user.Resources = append(user.Resources, Resource{ID: "logs", Template: map[string]any{
		"apiVersion": "platform.example.org/v1alpha1", "kind": "LogStack",
		"metadata": map[string]any{"name": "logs"}, "spec": map[string]any{"team": "a"},
	}})
	warm := func() {
		kinds, err := fresh().WithResults(res)
		if err != nil {
			b.Fatal(err)
		}
		user.Kinds = kinds
		if r, probs := Check(user); r == nil {
			b.Fatal(probs)
		}
	}
	warm()
	b.ResetTimer()
	for range b.N {
		warm()
	}
}

// BenchmarkBuiltinSchemas is what resolving the built-in kinds' schemas
// costs: one kind (a ConfigMap, of the largest document), as a run that
// uses one pays, and every kind.
func BenchmarkBuiltinSchemas(b *testing.B) {
	configMap := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	b.Run("one", func(b *testing.B) {
		for range b.N {
			if _, err := newBuiltinSchemas()[configMap](); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("every", func(b *testing.B) {
		for range b.N {
			for gvk, resolve := range newBuiltinSchemas() {
				if _, err := resolve(); err != nil {
					b.Fatal(gvk, err)
				}
			}
		}
	})
}

// BenchmarkParsesRead is what a warm run spends reading the CEL parses of
// the last run back from the cache (Read), and what writing them costs
// (Write, once a run parsed something new): 300 expressions, of the
// sizes of a stack's.
func BenchmarkParsesRead(b *testing.B) {
	ps := NewParses()
	for i := range 300 {
		ps.Parse(fmt.Sprintf("schema.spec.team%d == 'a' ? schema.spec.endpoints.logs + '/%d' : has(schema.spec.x) && size(schema.spec.list) > %d", i, i, i))
	}
	data, _ := ps.Write()
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			NewParses().Read(data)
		}
	})
	b.Run("write", func(b *testing.B) {
		later := NewParses()
		later.Read(data)
		for b.Loop() {
			later.Write()
		}
	})
}
