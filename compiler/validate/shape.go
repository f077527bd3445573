package validate

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// This file memoizes validation. Many objects differ only in strings the
// schema does not constrain (names, Helm values below a
// preserve-unknown-fields node), so Memo validates one object per shape
// and reuses its problems for the others.
//
// An object's shape is all the schema can look at: map keys and list
// lengths along the described paths, the Go type of every value there,
// every number and bool, and a string's text only where strings are
// constrained. Below a keyword this file does not model (enum, const,
// uniqueItems, allOf, anyOf, oneOf, not, or unknown ones), the shape is
// the whole value; below a node that constrains only the type, it is the
// type.
//
// Two objects of one shape get the same problems: the library reads
// nothing outside the shape, and its messages quote only what the shape
// holds. The tests check this on mutated objects.

// shape is what a schema node looks at in a value. A nil *shape looks at
// the type only.
type shape struct {
	props      map[string]*shape // the schemas of declared properties
	additional *shape            // additionalProperties, when a schema
	items      *shape
	strings    bool // a string's text matters here
	whole      bool // the whole value below matters
}

// shapeOf returns what the converted JSON Schema s looks at.
func shapeOf(s map[string]any) *shape {
	var sh shape
	constrained := false
	for k, v := range s {
		switch k {
		case "type":
			// The key always holds the Go type.
		case "properties":
			constrained = true
			props, _ := v.(map[string]any)
			sh.props = make(map[string]*shape, len(props))
			for name, ps := range props {
				psm, _ := ps.(map[string]any)
				sh.props[name] = shapeOf(psm)
			}
		case "additionalProperties":
			constrained = true
			if m, ok := v.(map[string]any); ok {
				sh.additional = shapeOf(m)
			}
		case "items":
			constrained = true
			if m, ok := v.(map[string]any); ok {
				sh.items = shapeOf(m)
			}
		case "required", "minProperties", "maxProperties", "minItems", "maxItems":
			constrained = true // keys and lengths are in the key
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			constrained = true // numbers are always in the key
		case "pattern", "minLength", "maxLength":
			constrained = true
			sh.strings = true
		default:
			constrained = true
			sh.whole = true
		}
	}
	if !constrained {
		return nil
	}
	return &sh
}

// key appends the shape of v, as seen by sh, to b: all of v where sh
// looks at the whole value.
func (sh *shape) key(b []byte, v any) []byte {
	switch v := v.(type) {
	case *object.Map:
		b = append(b, '{')
		if sh != nil {
			v.Each(func(k string, x any) {
				b = appendString(b, k)
				b = sh.child(k).key(b, x)
			})
		}
		return append(b, '}')
	case map[string]any:
		b = append(b, '{')
		if sh != nil {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				b = appendString(b, k)
				b = sh.child(k).key(b, v[k])
			}
		}
		return append(b, '}')
	case []any:
		return listKey(sh, b, v)
	case []string:
		return listKey(sh, b, v)
	case string:
		if sh != nil && (sh.strings || sh.whole) {
			return appendString(append(b, 's'), v)
		}
		return append(b, 's')
	}
	return scalar(b, v)
}

// listKey appends the shape of the list v, as seen by sh, to b: its
// length, unless sh looks at the whole value, and its items.
func listKey[T any](sh *shape, b []byte, v []T) []byte {
	b = append(b, '[')
	if sh != nil {
		items := sh
		if !sh.whole {
			b = strconv.AppendInt(b, int64(len(v)), 10)
			items = sh.items
		}
		for _, x := range v {
			b = items.key(b, x)
		}
	}
	return append(b, ']')
}

// child is the shape of the property k.
func (sh *shape) child(k string) *shape {
	if sh.whole {
		return sh
	}
	if c, ok := sh.props[k]; ok {
		return c
	}
	return sh.additional
}

// scalar appends a number, a bool or null with its value; any other type
// gets a unique marker, so it is validated on its own.
func scalar(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		return strconv.AppendBool(append(b, 'b'), v)
	case int:
		return strconv.AppendInt(append(b, 'i'), int64(v), 10)
	case int64:
		return strconv.AppendInt(append(b, 'i'), v, 10)
	case float64:
		return strconv.AppendFloat(append(b, 'f'), v, 'g', -1, 64)
	}
	return append(b, '?')
}

// appendString appends s, length first, so that no two sequences of
// strings give the same bytes.
func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// Memo validates objects like its Validator, each shape once. It is safe
// for concurrent use. Returned problems are shared between objects of one
// shape: do not modify them.
type Memo struct {
	v         *Validator
	mu        sync.Mutex
	seen      map[string]memoResult
	read      map[string]memoResult // what Read read, and no object has met yet
	validated int                   // verdicts of the library
	bufs      sync.Pool
}

type memoResult struct {
	problems []Problem
	err      error
}

// Memo returns a new, empty Memo of v.
func (v *Validator) Memo() *Memo {
	return &Memo{v: v, seen: map[string]memoResult{}, bufs: sync.Pool{New: func() any { return new([]byte) }}}
}

// Validate is Validator.Validate for obj, an *object.Map or a
// map[string]any.
func (m *Memo) Validate(obj any) ([]Problem, error) {
	apiVersion, _ := object.Lookup(obj, "apiVersion").(string)
	kind, _ := object.Lookup(obj, "kind").(string)
	k, ok := m.v.kinds[gvk{apiVersion, kind}]
	if !ok {
		return m.v.Validate(object.Plain(obj).(map[string]any))
	}
	buf := m.bufs.Get().(*[]byte)
	defer m.bufs.Put(buf)
	b := appendString((*buf)[:0], apiVersion)
	b = appendString(b, kind)
	b = k.shape.key(b, obj)
	*buf = b
	m.mu.Lock()
	r, ok := m.seen[string(b)]
	if !ok {
		if r, ok = m.read[string(b)]; ok {
			m.seen[string(b)] = r
			delete(m.read, string(b))
		}
	}
	m.mu.Unlock()
	if ok {
		return r.problems, r.err
	}
	r.problems, r.err = m.v.Validate(object.Plain(obj).(map[string]any))
	m.mu.Lock()
	m.seen[string(b)] = r
	m.validated++
	m.mu.Unlock()
	return r.problems, r.err
}

// Write encodes m's verdicts for Read in a later run, so a run meeting
// only known shapes compiles no schema. changed says whether they differ
// from what m read. A verdict holds only for its Validator: Read it into a
// Memo of the same CRDs, converted by the same platc.
func (m *Memo) Write() (data []byte, changed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := object.NewEncoder([]byte(cache.SchemaVerdicts.Layout()))
	e.Count(len(m.seen), false)
	for _, key := range slices.Sorted(maps.Keys(m.seen)) {
		r := m.seen[key]
		e.Str(key)
		e.Count(len(r.problems), r.problems == nil)
		for _, p := range r.problems {
			e.Str(p.Pointer)
			e.Str(p.Message)
			e.Bool(p.Unknown)
		}
		msg := ""
		if r.err != nil {
			msg = r.err.Error()
		}
		e.Str(msg)
	}
	return e.B, m.validated > 0 || len(m.read) > 0
}

// Write writes, after cache.SchemaVerdicts' layout, in object's binary
// form, the count of verdicts and each one's key, problems (count, then
// pointer, message and unknown of each) and error message ("" for none).

// Read gives m the verdicts data holds (Write's encoding), before m
// validates anything. It returns false, and gives none, if data is not
// such an encoding.
func (m *Memo) Read(data []byte) bool {
	d := object.NewEntryDecoder(cache.SchemaVerdicts.Layout(), data)
	n, _ := d.Count()
	read := make(map[string]memoResult, n)
	for range n {
		key := d.Str()
		var r memoResult
		if np, isNil := d.Count(); !isNil {
			r.problems = make([]Problem, 0, np)
			for range np {
				r.problems = append(r.problems, Problem{Pointer: d.Str(), Message: d.Str(), Unknown: d.Bool()})
			}
		}
		if msg := d.Str(); msg != "" {
			r.err = errors.New(msg)
		}
		read[key] = r
	}
	if d.Done() != nil {
		return false
	}
	m.mu.Lock()
	m.read = read
	m.mu.Unlock()
	return true
}
