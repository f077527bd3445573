// Package cache declares Cache, the store of bytes by key that stages
// keep work in (compiler.Options.Cache), and Kinds, the table of every
// kind of entry. The CLI's store is compiler/cli's dirCache, the tests'
// testkit/cachetest's Memory; nothing here is process-wide.
package cache

// Cache is a store of bytes by key, shared between compilations. Entries
// are pure functions of what their key names. A store may lose entries,
// but Get returns exactly what Put stored, or nothing: the store checks
// integrity (the CLI's binds each entry to its key, platc and digest), and
// a stage only checks that an entry decodes, rebuilding it if not.
type Cache interface {
	// Get returns the entry of key, if the store has it.
	Get(key string) ([]byte, bool)
	// Put stores data under key. The caller does not change data after.
	Put(key string, data []byte)
}
