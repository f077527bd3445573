// Package object holds the value model of rendered Kubernetes objects: an
// ordered mapping, so that objects read apiVersion, kind, metadata, spec, and
// plain Go data for everything else. It does no I/O and knows no kinds.
package object

// Map is a YAML mapping whose keys keep the order they were set in, so that
// rendered objects read apiVersion, kind, metadata, spec, as people expect.
// Values are string, int, int64, float64, bool, nil, []any, []string, *Map,
// or map[string]any (Helm values, whose keys are written sorted).
type Map struct {
	keys []string
	vals []any
}

// NewMap returns an empty Map.
func NewMap() *Map { return &Map{} }

// Set sets key to v, in place if the key is there, last otherwise, and
// returns m for chaining.
func (m *Map) Set(key string, v any) *Map {
	for i, k := range m.keys {
		if k == key {
			m.vals[i] = v
			return m
		}
	}
	m.keys = append(m.keys, key)
	m.vals = append(m.vals, v)
	return m
}

// Get returns the value of key, or nil.
func (m *Map) Get(key string) any {
	for i, k := range m.keys {
		if k == key {
			return m.vals[i]
		}
	}
	return nil
}

// Len returns the number of keys.
func (m *Map) Len() int { return len(m.keys) }

// Each calls fn for each key and value, in order.
func (m *Map) Each(fn func(key string, v any)) {
	for i, k := range m.keys {
		fn(k, m.vals[i])
	}
}

// Plain returns v with every Map turned into a map[string]any (recursively),
// for code that reads objects as plain data: validators, CEL.
func Plain(v any) any {
	switch v := v.(type) {
	case *Map:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			m[k] = Plain(v.vals[i])
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = Plain(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = Plain(x)
		}
		return l
	case []string:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
		return l
	}
	return v
}

// Merge returns base with over merged in, as Helm merges values: maps merge
// key by key, anything else in over replaces what base has. Neither input
// is modified.
func Merge(base, over map[string]any) map[string]any {
	if base == nil && over == nil {
		return nil
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
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
	for k, x := range values {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	inner, _ := out[path[0]].(map[string]any)
	out[path[0]] = SetPath(inner, path[1:], v)
	return out
}
