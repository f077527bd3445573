package cache

// Cache is a store of bytes by key, shared between compilations: the one
// declaration of what compiler.Options.Cache is and what every stage that
// keeps work there (load, kro, manifests, charts) takes. Entries are pure
// functions of what their key names; a stage checks an entry it reads and
// builds it again when the entry does not decode, so a store may lose or
// mangle entries but must never answer a key with another key's bytes.
type Cache interface {
	// Get returns the entry of key, if the store has it.
	Get(key string) ([]byte, bool)
	// Put stores data under key. The caller does not change data after.
	Put(key string, data []byte)
}
