package rgd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/platc/platc/compiler/object"
)

// A preview is a pure function of the stack's RGD (kro.Result.CacheKey: a
// digest of the RGD, the CRDs and kro's version) and of the instance as
// CEL's schema sees it, so the cache keeps it under a digest of both: a
// run whose stacks and instances have not changed evaluates no expression
// (each stack's CEL programs cost more to make than the rest of its
// previews).

// cachedPreview is what the cache keeps of a preview.
type cachedPreview struct {
	Resources []cachedResource
}

type cachedResource struct {
	ID, Kind, Included string
	Object             json.RawMessage // tagged (encodeValue), null when not created
}

// previewKey is the cache key of the preview of st for an instance whose
// schema variable is schemaVar, "" when there is no cache or the instance
// does not encode.
func (c *Compiled) previewKey(st *Stack, schemaVar map[string]any) string {
	if c.cache == nil || st.Result == nil || st.Result.CacheKey() == "" {
		return ""
	}
	data, err := encodeValue(schemaVar)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", st.Result.CacheKey())
	h.Write(data)
	return "rgd-preview-" + hex.EncodeToString(h.Sum(nil))
}

// cachedPreviewOf reads the preview of key, nil when there is none or it
// does not decode.
func (c *Compiled) cachedPreviewOf(key string, inst *Instance) *Preview {
	data, ok := c.cache.Get(key)
	if !ok {
		return nil
	}
	var e cachedPreview
	if json.Unmarshal(data, &e) != nil {
		return nil
	}
	p := &Preview{Instance: inst}
	for _, r := range e.Resources {
		pr := PreviewResource{ID: r.ID, Kind: r.Kind, Included: r.Included}
		if string(r.Object) != "null" && len(r.Object) > 0 {
			v, err := decodeValue(r.Object)
			m, ok := v.(*object.Map)
			if err != nil || !ok {
				return nil
			}
			pr.Object = m
		}
		p.Resources = append(p.Resources, pr)
	}
	return p
}

// putPreview keeps p under key, unless a value of it does not encode.
func (c *Compiled) putPreview(key string, p *Preview) {
	var e cachedPreview
	for _, r := range p.Resources {
		cr := cachedResource{ID: r.ID, Kind: r.Kind, Included: r.Included, Object: json.RawMessage("null")}
		if r.Object != nil {
			data, err := encodeValue(r.Object)
			if err != nil {
				return
			}
			cr.Object = data
		}
		e.Resources = append(e.Resources, cr)
	}
	if data, err := json.Marshal(e); err == nil {
		c.cache.Put(key, data)
	}
}

// encodeValue writes a value of an object (object.Map's value types) as
// JSON that decodeValue reads back as it was: each map, list and number
// tagged with its Go type, a Map's keys in their order.
func encodeValue(v any) ([]byte, error) {
	t, err := tagged(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(t)
}

func tagged(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case int:
		return map[string]any{"int": strconv.Itoa(v)}, nil
	case int64:
		return map[string]any{"i64": strconv.FormatInt(v, 10)}, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v has no JSON", v)
		}
		return map[string]any{"f": strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case []string:
		return map[string]any{"s": v}, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			t, err := tagged(x)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return map[string]any{"l": out}, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			t, err := tagged(v[k])
			if err != nil {
				return nil, err
			}
			out[k] = t
		}
		return map[string]any{"o": out}, nil
	case *object.Map:
		out := make([]any, 0, 2*v.Len())
		var err error
		v.Each(func(k string, x any) {
			if err != nil {
				return
			}
			var t any
			t, err = tagged(x)
			out = append(out, k, t)
		})
		if err != nil {
			return nil, err
		}
		return map[string]any{"m": out}, nil
	}
	return nil, fmt.Errorf("a value of type %T", v)
}

// decodeValue reads what encodeValue wrote.
func decodeValue(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return untagged(v)
}

func untagged(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // nil, bool, string
	}
	if len(m) != 1 {
		return nil, fmt.Errorf("an untagged map")
	}
	for tag, x := range m {
		switch tag {
		case "int":
			s, _ := x.(string)
			return strconv.Atoi(s)
		case "i64":
			s, _ := x.(string)
			return strconv.ParseInt(s, 10, 64)
		case "f":
			s, _ := x.(string)
			return strconv.ParseFloat(s, 64)
		case "s":
			l, _ := x.([]any)
			out := make([]string, len(l))
			for i, e := range l {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("a []string holds %T", e)
				}
				out[i] = s
			}
			return out, nil
		case "l":
			l, _ := x.([]any)
			out := make([]any, len(l))
			for i, e := range l {
				u, err := untagged(e)
				if err != nil {
					return nil, err
				}
				out[i] = u
			}
			return out, nil
		case "o":
			o, _ := x.(map[string]any)
			out := make(map[string]any, len(o))
			for k, e := range o {
				u, err := untagged(e)
				if err != nil {
					return nil, err
				}
				out[k] = u
			}
			return out, nil
		case "m":
			l, _ := x.([]any)
			if len(l)%2 != 0 {
				return nil, fmt.Errorf("a map of %d keys and values", len(l))
			}
			out := object.NewMap()
			for i := 0; i < len(l); i += 2 {
				k, ok := l[i].(string)
				if !ok {
					return nil, fmt.Errorf("a map key of type %T", l[i])
				}
				u, err := untagged(l[i+1])
				if err != nil {
					return nil, err
				}
				out.Set(k, u)
			}
			return out, nil
		}
		return nil, fmt.Errorf("unknown tag %q", tag)
	}
	return nil, nil
}
