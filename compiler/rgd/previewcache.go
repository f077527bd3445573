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
// does not decode. A cached preview is cache.RGDPreview's layout, then the resources'
// count and each one's id, kind, inclusion and object (nil when not
// created), in object's binary form.
func (c *Compiled) cachedPreviewOf(key string, inst *Instance) *Preview {
	data, ok := c.cache.Get(key)
	if !ok {
		return nil
	}
	d := object.NewEntryDecoder(cache.RGDPreview.Layout(), data)
	p := &Preview{Instance: inst}
	n, _ := d.Count()
	for range n {
		pr := PreviewResource{ID: d.Str(), Kind: d.Str(), Included: d.Str()}
		switch v := d.Value().(type) {
		case nil:
		case *object.Map:
			pr.Object = v
		default:
			d.Fail()
		}
		p.Resources = append(p.Resources, pr)
	}
	if d.Done() != nil {
		return nil
	}
	return p
}

// putPreview keeps p under key, unless a value of it does not encode.
func (c *Compiled) putPreview(key string, p *Preview) {
	e := object.NewEncoder([]byte(cache.RGDPreview.Layout()))
	e.Count(len(p.Resources), p.Resources == nil)
	for _, r := range p.Resources {
		e.Str(r.ID)
		e.Str(r.Kind)
		e.Str(r.Included)
		if r.Object != nil {
			e.Value(r.Object)
		} else {
			e.Value(nil)
		}
	}
	if e.OK {
		c.cache.Put(key, e.B)
	}
}
