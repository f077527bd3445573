// Package cache declares Cache, the store of bytes by key that
// compiler.Options.Cache is and every stage that keeps work takes, and
// Kinds, the table of every kind of entry platc keeps (its key, its
// layout and version, its codec). The CLI's store between runs is
// compiler/cli's dirCache, and testkit/cachetest's Memory the store of
// tests; nothing here is process-wide.
package cache

// Cache is a store of bytes by key, shared between compilations: the one
// declaration of what compiler.Options.Cache is and what every stage that
// keeps work there (load, kro, manifests, charts) takes. Entries are pure
// functions of what their key names. A store may lose entries, but Get
// answers a key with the bytes Put stored under it or with nothing: the
// store checks its own integrity, once (the folder store of the CLI binds
// each entry to its key, its platc and a digest of its bytes), and a stage
// only checks that an entry decodes, in its own format, and builds it
// again when it does not.
type Cache interface {
	// Get returns the entry of key, if the store has it.
	Get(key string) ([]byte, bool)
	// Put stores data under key. The caller does not change data after.
	Put(key string, data []byte)
}
