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
// value the form has no type for.
func encodeInstanceEntry(e instanceEntry) (data []byte, ok bool) {
	enc := object.NewEncoder([]byte(cache.KroInstance.Layout()))
	enc.Value(e.Spec)
	encodeProblems(enc, e.Problems)
	return enc.B, enc.OK
}

// decodeInstanceEntry reads what encodeInstanceEntry wrote.
func decodeInstanceEntry(data []byte) (instanceEntry, error) {
	d := object.NewEntryDecoder(cache.KroInstance.Layout(), data)
	var e instanceEntry
	switch v := d.Value().(type) {
	case map[string]any:
		e.Spec = v
	case nil:
	default:
		d.Fail()
	}
	e.Problems = decodeProblems(d)
	if err := d.Done(); err != nil {
		return instanceEntry{}, err
	}
	return e, nil
}

// The entry of CheckOverSchema (cache.KroOverSchema) is its problems.
func encodeOverSchema(probs []Problem) ([]byte, bool) {
	e := object.NewEncoder([]byte(cache.KroOverSchema.Layout()))
	encodeProblems(e, probs)
	return e.B, e.OK
}

func decodeOverSchema(data []byte) ([]Problem, error) {
	d := object.NewEntryDecoder(cache.KroOverSchema.Layout(), data)
	probs := decodeProblems(d)
	return probs, d.Done()
}

// encodeProblems writes probs, each one's id by its name (which stays when
// diag's table changes order).
func encodeProblems(e *object.Encoder, probs []Problem) {
	e.Count(len(probs), probs == nil)
	for _, p := range probs {
		e.Str(p.Resource)
		e.Str(p.Path)
		e.Str(p.Msg)
		e.Str(p.ID.String())
		e.Str(p.Str)
		e.Int(p.Offset)
	}
}

// decodeProblems reads what encodeProblems wrote; an id this platc does
// not know fails d.
func decodeProblems(d *object.Decoder) []Problem {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	probs := make([]Problem, n)
	for i := range probs {
		p := &probs[i]
		p.Resource, p.Path, p.Msg = d.Str(), d.Str(), d.Str()
		if p.ID.UnmarshalText([]byte(d.Str())) != nil {
			d.Fail()
		}
		p.Str, p.Offset = d.Str(), d.Int()
	}
	return probs
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
