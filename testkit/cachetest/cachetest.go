// Package cachetest is Memory, the cache.Cache in memory of tests and
// benchmarks.
package cachetest

import (
	"maps"
	"slices"
	"sync"
)

// Memory is a cache.Cache, safe for the concurrent use a compilation
// makes of it; its zero value is empty and ready. It counts what it is
// asked, for tests that assert what a run read or wrote.
type Memory struct {
	mu         sync.Mutex
	m          map[string][]byte
	hits, puts int
}

// Get returns the entry of key.
func (c *Memory) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.m[key]
	if ok {
		c.hits++
	}
	return data, ok
}

// Put sets the entry of key.
func (c *Memory) Put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = data
	c.puts++
}

// Len is the number of entries.
func (c *Memory) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Keys returns the keys of the entries, sorted.
func (c *Memory) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.m))
}

// Hits is the number of Gets that found an entry, and Puts the number of
// Puts.
func (c *Memory) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

func (c *Memory) Puts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts
}

// Swap exchanges the entries of two keys (either may be absent), for
// tests of entries that are not what their key says.
func (c *Memory) Swap(a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	da, oka := c.m[a]
	db, okb := c.m[b]
	delete(c.m, a)
	delete(c.m, b)
	if okb {
		c.m[a] = db
	}
	if oka {
		c.m[b] = da
	}
}

// Edit replaces the entry of key by what edit makes of it, as a tampered
// cache would hold it.
func (c *Memory) Edit(key string, edit func([]byte) []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = edit(c.m[key])
}
