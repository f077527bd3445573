package kro

import (
	"testing"

	memcache "github.com/platc/platc/internal/cache"
)

// BenchmarkWithResultsCached is what a run spends on a stack that creates
// instances of another stack when every RGD is in the cache: the Kinds
// with the other stack's CRD, and the cached check of the RGD.
func BenchmarkWithResultsCached(b *testing.B) {
	base, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	cache := &memcache.Memory{}
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
		kinds, err := base.WithResults(res)
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
