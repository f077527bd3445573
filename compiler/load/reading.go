package load

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
	"github.com/platc/platc/schemas"
)

// The reading of a spec is kept in the cache once the spec fits the
// schema, under the digest of the spec: an entry found for the spec says
// that it fits, and the schema check is not run again. The next run of
// the same spec (a render again, the pre-commit hook's check of what a
// render wrote) reads the spec's data, declarations and ${...} literals
// from the entry, which is cheaper than reading the files' bytes
// (readPlain), let alone parsing or evaluating them. The cache keeps one
// reading per spec folder, the last: that is the one the next run meets,
// and a reading of a large spec is too large to keep one for each edit.

// readingDigest is the digest of everything the reading and the schema
// check of the files names (with their bytes sources) of the spec folder
// dir read: the layout of an entry, the schema, the CUE module that
// evaluates it, the folder, and each file's name and bytes. The reading
// and the check's verdict are functions of these alone.
func readingDigest(dir string, names []string, sources [][]byte) string {
	h := sha256.New()
	field := func(s []byte) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write(s)
	}
	field([]byte(cache.SpecReading.Layout()))
	field([]byte(cueVersion()))
	field(schemas.PlatformCUE)
	field([]byte(dir))
	for i, name := range names {
		field([]byte(name))
		field(sources[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// storeReading keeps the reading of the spec of digest in the folder
// dir: its data, declarations and literals, as Begin read them from the
// spec as written.
func storeReading(c cache.Cache, dir, digest string, data *Value, decls map[string]diag.Pos, lits map[string]Literal) {
	w := &readingWriter{files: map[string]int{}}
	// The body first, which names the files its positions are in; the
	// entry then has the files before it.
	body := object.NewEncoder(nil)
	w.e = body
	w.value(data)
	body.Count(len(decls), decls == nil)
	for _, k := range slices.Sorted(maps.Keys(decls)) {
		body.Str(k)
		w.pos(decls[k])
	}
	body.Count(len(lits), lits == nil)
	for _, k := range slices.Sorted(maps.Keys(lits)) {
		body.Str(k)
		w.pos(lits[k].Pos)
		body.Str(lits[k].Raw)
	}
	layout := cache.SpecReading.Layout()
	e := object.NewEncoder(make([]byte, 0, len(layout)+len(digest)+len(body.B)+64))
	e.B = append(e.B, layout...)
	e.Str(digest)
	e.Strs(w.names)
	e.Uint(w.nodes)
	e.B = append(e.B, body.B...)
	c.Put(cache.SpecReading.Key(dir), e.B)
}

// cachedReading returns the reading of the spec of digest in the
// folder dir that storeReading kept, if the cache has it whole.
func cachedReading(c cache.Cache, dir, digest string) (data *Value, decls map[string]diag.Pos, lits map[string]Literal, ok bool) {
	entry, found := c.Get(cache.SpecReading.Key(dir))
	if !found {
		return nil, nil, nil, false
	}
	d := object.NewEntryDecoder(cache.SpecReading.Layout(), entry)
	if d.Str() != digest {
		// The reading of another spec, or of this folder before an edit.
		return nil, nil, nil, false
	}
	r := &readingReader{d: d, files: d.Strs()}
	r.nodes = make([]Value, d.Uint())
	data = r.value()
	if n, isNil := d.Count(); !isNil {
		decls = make(map[string]diag.Pos, n)
		for range n {
			k := d.Str()
			decls[k] = r.pos()
		}
	}
	if n, isNil := d.Count(); !isNil {
		lits = make(map[string]Literal, n)
		for range n {
			k := d.Str()
			p := r.pos()
			lits[k] = Literal{Pos: p, Raw: d.Str()}
		}
	}
	if d.Done() != nil || r.bad {
		return nil, nil, nil, false
	}
	return data, decls, lits, true
}

// The flags of a Value in an entry: which of its fields are not zero.
const (
	hasFields byte = 1 << iota
	hasElems
	hasStr
	hasInt
	hasFloat
	isTrue
	isOK
	hasPos
)

type readingWriter struct {
	e     *object.Encoder
	files map[string]int // the index of each file in names, plus one
	names []string
	nodes int
}

func (w *readingWriter) value(v *Value) {
	w.nodes++
	var flags byte
	set := func(b byte, on bool) {
		if on {
			flags |= b
		}
	}
	set(hasFields, v.Fields != nil)
	set(hasElems, v.Elems != nil)
	set(hasStr, v.Str != "")
	set(hasInt, v.Int != 0)
	set(hasFloat, v.Float != 0)
	set(isTrue, v.Bool)
	set(isOK, v.OK)
	set(hasPos, v.Pos != diag.Pos{})
	w.e.Byte(byte(v.Kind))
	w.e.Byte(flags)
	if flags&hasPos != 0 {
		w.pos(v.Pos)
	}
	if flags&hasFields != 0 {
		w.e.Uint(len(v.Fields))
		for _, f := range v.Fields {
			w.e.Str(f.Name)
			w.value(f.Value)
		}
	}
	if flags&hasElems != 0 {
		w.e.Uint(len(v.Elems))
		for _, x := range v.Elems {
			w.value(x)
		}
	}
	if flags&hasStr != 0 {
		w.e.Str(v.Str)
	}
	if flags&hasInt != 0 {
		w.e.Int64(v.Int)
	}
	if flags&hasFloat != 0 {
		w.e.Float64(v.Float)
	}
}

func (w *readingWriter) pos(p diag.Pos) {
	i, ok := w.files[p.File]
	if !ok {
		w.names = append(w.names, p.File)
		i = len(w.names)
		w.files[p.File] = i
	}
	w.e.Int(i - 1)
	w.e.Int(p.Line)
	w.e.Int(p.Col)
}

type readingReader struct {
	d     *object.Decoder
	files []string
	nodes []Value // each Value read is one of these
	bad   bool    // the entry is not one storeReading wrote
}

func (r *readingReader) value() *Value {
	if len(r.nodes) == 0 {
		r.bad = true
		return &Value{}
	}
	v := &r.nodes[0]
	r.nodes = r.nodes[1:]
	kind, flags := r.d.Byte(), r.d.Byte()
	if kind > byte(List) {
		r.bad = true
	}
	v.Kind = Kind(kind)
	v.OK, v.Bool = flags&isOK != 0, flags&isTrue != 0
	if flags&hasPos != 0 {
		v.Pos = r.pos()
	}
	if flags&hasFields != 0 {
		v.Fields = make([]Field, r.d.Uint())
		for i := range v.Fields {
			if r.bad || r.d.Err != nil {
				return v
			}
			v.Fields[i] = Field{Name: r.d.Str(), Value: r.value()}
		}
	}
	if flags&hasElems != 0 {
		v.Elems = make([]*Value, r.d.Uint())
		for i := range v.Elems {
			if r.bad || r.d.Err != nil {
				return v
			}
			v.Elems[i] = r.value()
		}
	}
	if flags&hasStr != 0 {
		v.Str = r.d.Str()
	}
	if flags&hasInt != 0 {
		v.Int = r.d.Int64()
	}
	if flags&hasFloat != 0 {
		v.Float = r.d.Float64()
	}
	return v
}

func (r *readingReader) pos() diag.Pos {
	i, line, col := r.d.Int(), r.d.Int(), r.d.Int()
	if i < 0 || i >= len(r.files) {
		r.bad = true
		return diag.Pos{}
	}
	return diag.Pos{File: r.files[i], Line: line, Col: col}
}

// cueVersion is the version of the CUE module linked into this binary,
// which evaluates the check; "unknown" where the build does not say (then
// the cache's own binding to the binary that wrote an entry, as the CLI's
// has, is what keeps entries apart).
var cueVersion = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "cuelang.org/go" {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Path + "@" + d.Version + " " + d.Sum
			}
		}
	}
	return "unknown"
})
