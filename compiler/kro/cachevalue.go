package kro

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// instanceEntry is what the cache keeps of an instance spec Instance has
// validated: the spec with its defaults, and the problems.
type instanceEntry struct {
	Spec     map[string]any
	Problems []Problem
}

// instanceFormat names the layout of an instanceEntry in the cache: change
// it whenever instanceEntry or Problem changes (4: offsets of any size).
const instanceFormat = "platc kro instance 4\n"

// encodeInstanceEntry writes e in object's binary form, in which a value
// keeps its Go type: the defaulted spec holds int64s and float64s (as the
// API server decodes JSON, and as the CRD's defaults are), and CEL reads 1
// and 1.0 as values of different types. ok is false when the spec holds a
// value the form has no type for.
func encodeInstanceEntry(e instanceEntry) (data []byte, ok bool) {
	enc := object.NewEncoder([]byte(instanceFormat))
	enc.Value(e.Spec)
	encodeProblems(enc, e.Problems)
	return enc.B, enc.OK
}

// decodeInstanceEntry reads what encodeInstanceEntry wrote.
func decodeInstanceEntry(data []byte) (instanceEntry, error) {
	d := object.NewEntryDecoder(instanceFormat, data)
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

// overSchemaFormat names the layout of CheckOverSchema's entry, its
// problems: change it whenever Problem changes.
const overSchemaFormat = "platc kro over-schema 2\n"

func encodeOverSchema(probs []Problem) ([]byte, bool) {
	e := object.NewEncoder([]byte(overSchemaFormat))
	encodeProblems(e, probs)
	return e.B, e.OK
}

func decodeOverSchema(data []byte) ([]Problem, error) {
	d := object.NewEntryDecoder(overSchemaFormat, data)
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

// subKey is the key of what is derived from the Result and input alone
// (an instance's spec, a template): prefix and a digest of the RGD's key
// and input.
func (r *Result) subKey(prefix string, input []byte) string {
	h := sha256.New()
	h.Write([]byte(r.key))
	h.Write([]byte{0})
	h.Write(input)
	return prefix + hex.EncodeToString(h.Sum(nil))
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
