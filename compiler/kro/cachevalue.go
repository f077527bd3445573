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

// encodeInstanceEntry writes e in object's binary form, in which a value
// keeps its Go type: the defaulted spec holds int64s and float64s (as the
// API server decodes JSON, and as the CRD's defaults are), and CEL reads 1
// and 1.0 as values of different types. ok is false when the spec holds a
// value the form has no type for. A problem's id is written by its name,
// which stays when diag's table changes order.
func encodeInstanceEntry(e instanceEntry) (data []byte, ok bool) {
	return object.Entry(cache.KroInstance.Layout(), e)
}

func decodeInstanceEntry(data []byte) (e instanceEntry, err error) {
	err = object.ReadEntry(cache.KroInstance.Layout(), data, &e)
	return e, err
}

// The entry of CheckOverSchema (cache.KroOverSchema) is its problems.
func encodeOverSchema(probs []Problem) ([]byte, bool) {
	return object.Entry(cache.KroOverSchema.Layout(), probs)
}

func decodeOverSchema(data []byte) (probs []Problem, err error) {
	err = object.ReadEntry(cache.KroOverSchema.Layout(), data, &probs)
	return probs, err
}

// readThrough returns the value cache keeps under key, or, when it has
// none or it does not decode, the value compute makes, which it keeps
// when it encodes.
func readThrough[T any](cache cache.Cache, key string, decode func([]byte) (T, error), encode func(T) ([]byte, bool), compute func() T) T {
	if data, ok := cache.Get(key); ok {
		if v, err := decode(data); err == nil {
			return v
		}
	}
	v := compute()
	if data, ok := encode(v); ok {
		cache.Put(key, data)
	}
	return v
}
