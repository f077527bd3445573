package rgd

import (
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// A preview is a pure function of the stack's RGD (kro.Result.CacheKey: a
// digest of the RGD, the CRDs and kro's version) and of the instance as
// CEL's schema sees it, so the cache keeps it under a digest of both: a
// run whose stacks and instances have not changed evaluates no expression
// (each stack's CEL programs cost more to make than the rest of its
// previews).

// encodedVars is an instance's schema variable in object's binary form,
// nil where a value of it does not encode.
func encodedVars(schemaVar map[string]any) []byte {
	e := object.NewEncoder(nil)
	e.Value(schemaVar)
	if !e.OK {
		return nil
	}
	return e.B
}

// previewKey is the cache key of the preview of st for an instance whose
// schema variable encodes to vars, "" when there is no cache or the
// instance does not encode.
func (c *Compiled) previewKey(st *Stack, vars []byte) string {
	if c.cache == nil || st.Result == nil || st.Result.CacheKey() == "" || vars == nil {
		return ""
	}
	return cache.RGDPreview.Key(st.Result.CacheKey(), string(vars))
}

// cachedPreviewOf reads the preview of key, nil when there is none or it
// does not decode. A cached preview is its resources, in object's binary
// form after cache.RGDPreview's layout.
func (c *Compiled) cachedPreviewOf(key string, inst *Instance) *Preview {
	p := &Preview{Instance: inst}
	data, ok := c.cache.Get(key)
	if !ok || object.ReadEntry(cache.RGDPreview.Layout(), data, &p.Resources) != nil {
		return nil
	}
	return p
}

// putPreview keeps p under key, unless a value of it does not encode.
func (c *Compiled) putPreview(key string, p *Preview) {
	if data, ok := object.Entry(cache.RGDPreview.Layout(), p.Resources); ok {
		c.cache.Put(key, data)
	}
}
