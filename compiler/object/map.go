// Package object holds the value model of rendered Kubernetes objects: an
// ordered mapping, so that objects read apiVersion, kind, metadata, spec, and
// plain Go data for everything else; Helm's merge of values; the binary
// codec of cache entries (codec.go); and Parallel, which the stages use to
// work per environment or per file. It does no I/O and knows no kinds.
package object

import (
	"maps"
	"slices"
)

// Map is a YAML mapping whose keys keep the order they were set in, so that
// rendered objects read apiVersion, kind, metadata, spec, as people expect.
// Values are string, int, int64, float64, bool, nil, []any, []string, *Map,
// or map[string]any (Helm values, whose keys are written sorted).
type Map struct {
	entries []entry
}

type entry struct {
	key string
	val any
}

// NewMap returns an empty Map.
func NewMap() *Map { return &Map{} }

// NewMapCap returns an empty Map with room for n keys: where the keys an
// object's map gets are known, its entries are allocated once, at their
// size (most maps of a large render are Applications', and those made by
// growing hold a discarded array each, and up to half their room unused).
func NewMapCap(n int) *Map { return &Map{entries: make([]entry, 0, n)} }

// Set sets key to v, in place if the key is there, last otherwise, and
// returns m for chaining.
func (m *Map) Set(key string, v any) *Map {
	for i := range m.entries {
		if m.entries[i].key == key {
			m.entries[i].val = v
			return m
		}
	}
	if m.entries == nil {
		// Most maps of an object have a few keys: start with room for
		// four rather than growing one by one.
		m.entries = make([]entry, 0, 4)
	}
	m.entries = append(m.entries, entry{key, v})
	return m
}

// SetIf is Set where set holds, and returns m for chaining: an object's
// optional fields, in their order.
func (m *Map) SetIf(set bool, key string, v any) *Map {
	if set {
		m.Set(key, v)
	}
	return m
}

// Get returns the value of key, or nil.
func (m *Map) Get(key string) any {
	for i := range m.entries {
		if m.entries[i].key == key {
			return m.entries[i].val
		}
	}
	return nil
}

// Len returns the number of keys.
func (m *Map) Len() int { return len(m.entries) }

// Each calls fn for each key and value, in order.
func (m *Map) Each(fn func(key string, v any)) {
	for _, e := range m.entries {
		fn(e.key, e.val)
	}
}

// Plain returns v with every Map turned into a map[string]any (recursively),
// for code that reads objects as plain data: validators, CEL. Plain data in
// v (a map[string]any or []any with no Map below, such as Helm values) is
// shared, not copied: treat the result as read-only.
func Plain(v any) any {
	p, _ := plain(v)
	return p
}

// plain is Plain; it also reports whether the result differs from v, so
// that unchanged plain data is shared rather than copied.
func plain(v any) (any, bool) {
	switch v := v.(type) {
	case *Map:
		m := make(map[string]any, len(v.entries))
		for _, e := range v.entries {
			m[e.key], _ = plain(e.val)
		}
		return m, true
	case map[string]any:
		var out map[string]any
		for k, x := range v {
			if p, changed := plain(x); changed {
				if out == nil {
					out = maps.Clone(v)
				}
				out[k] = p
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, x := range v {
			if p, changed := plain(x); changed {
				if out == nil {
					out = slices.Clone(v)
				}
				out[i] = p
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []string:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
		return l, true
	}
	return v, false
}

// Merge returns base with over merged in, as Helm merges values: maps merge
// key by key, anything else in over replaces what base has. Neither input
// is modified.
func Merge(base, over map[string]any) map[string]any {
	if base == nil && over == nil {
		return nil
	}
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = Merge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// SetPath returns values with the value at path set to v, copying the maps
// on the way so that shared inputs stay as they were.
func SetPath(values map[string]any, path []string, v any) map[string]any {
	out := make(map[string]any, len(values)+1)
	maps.Copy(out, values)
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	inner, _ := out[path[0]].(map[string]any)
	out[path[0]] = SetPath(inner, path[1:], v)
	return out
}

// Lookup returns the value at the path keys below v, reading Maps and
// map[string]any alike, or nil where the path does not exist. It lets
// checks read rendered objects without converting them to plain data.
func Lookup(v any, keys ...string) any {
	for _, k := range keys {
		switch m := v.(type) {
		case *Map:
			v = m.Get(k)
		case map[string]any:
			v = m[k]
		default:
			return nil
		}
	}
	return v
}
