package render

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
