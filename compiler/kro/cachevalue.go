package kro

import (
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// instanceEntry is what the cache keeps of an instance spec Instance has
// validated (cache.KroInstance): the spec with its defaults, and the problems.
type instanceEntry struct {
	Spec     map[string]any
	Problems []Problem
}

// readThrough returns the value c keeps under key, an entry of kind, or,
// when it has none or it does not decode, the value compute makes, which
// it keeps when it encodes. An entry is in object's binary form, in which
// a value keeps its Go type: a defaulted spec holds int64s and float64s
// (as the API server decodes JSON, and as the CRD's defaults are), and CEL
// reads 1 and 1.0 as values of different types; a spec holding a value
// the form has no type for is not kept. A problem's id is written by its
// name, which stays when diag's table changes order.
func readThrough[T any](c cache.Cache, kind *cache.Kind, key string, compute func() T) T {
	if data, ok := c.Get(key); ok {
		var v T
		if object.ReadEntry(kind.Layout(), data, &v) == nil {
			return v
		}
	}
	v := compute()
	if data, ok := object.Entry(kind.Layout(), v); ok {
		c.Put(key, data)
	}
	return v
}
