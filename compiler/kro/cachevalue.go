package kro

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/platc/platc/compiler/diag"
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
// it whenever instanceEntry or Problem changes.
const instanceFormat = "platc kro instance 3\n"

// encodeInstanceEntry writes e in object's binary form, in which a value
// keeps its Go type: the defaulted spec holds int64s and float64s (as the
// API server decodes JSON, and as the CRD's defaults are), and CEL reads 1
// and 1.0 as values of different types. ok is false when the spec holds a
// value the form has no type for.
func encodeInstanceEntry(e instanceEntry) (data []byte, ok bool) {
	enc := object.NewEncoder([]byte(instanceFormat))
	enc.Value(e.Spec)
	enc.Count(len(e.Problems), e.Problems == nil)
	for _, p := range e.Problems {
		enc.Str(p.Resource)
		enc.Str(p.Path)
		enc.Str(p.Msg)
		enc.Str(p.ID.String())
		enc.Str(p.Str)
		enc.Uint(p.Offset)
	}
	return enc.B, enc.OK
}

// decodeInstanceEntry reads what encodeInstanceEntry wrote.
func decodeInstanceEntry(data []byte) (instanceEntry, error) {
	body, ok := bytes.CutPrefix(data, []byte(instanceFormat))
	if !ok {
		return instanceEntry{}, errors.New("not an instance entry")
	}
	d := object.NewDecoder(body)
	var e instanceEntry
	switch v := d.Value().(type) {
	case map[string]any:
		e.Spec = v
	case nil:
	default:
		d.Fail()
	}
	if n, isNil := d.Count(); !isNil {
		e.Problems = make([]Problem, n)
		for i := range e.Problems {
			e.Problems[i] = Problem{Resource: d.Str(), Path: d.Str(), Msg: d.Str(), ID: diag.Lookup(d.Str()), Str: d.Str(), Offset: d.Uint()}
		}
	}
	if err := d.Done(); err != nil {
		return instanceEntry{}, err
	}
	return e, nil
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

func decodeJSON[T any](data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

func encodeJSON[T any](v T) ([]byte, bool) {
	data, err := json.Marshal(v)
	return data, err == nil
}
