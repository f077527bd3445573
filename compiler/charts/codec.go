package charts

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// An outcome is kept in the cache in a binary form of its own rather than
// as JSON: a warm run reads every distinct render's outcome (1,355 at
// 10,000 Applications), and encoding/json's decoding of their objects
// into map[string]any was a quarter of what rendering charts added to
// platc vet. The form holds exactly what Render makes: plain data as
// sigs.k8s.io/yaml decodes it (map[string]any, []any, string, float64,
// bool, nil) and int64, nil slices and maps told from empty ones, so
// that an outcome read from the cache is the outcome rendered
// (TestOutcomeCodec).
//
// Lengths are unsigned varints; a slice or map is written as its length
// plus one, and zero stands for nil.

// Tags of the plain values.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagFloat
	tagInt
	tagString
	tagList
	tagMap
)

var errCorrupt = errors.New("corrupt outcome")

type encoder struct {
	b  []byte
	ok bool // false once a value has no encoding
}

func (e *encoder) uint(n int)   { e.b = binary.AppendUvarint(e.b, uint64(n)) }
func (e *encoder) str(s string) { e.uint(len(s)); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) count(n int, isNil bool) {
	if isNil {
		e.uint(0)
		return
	}
	e.uint(n + 1)
}

func (e *encoder) strs(s []string) {
	e.count(len(s), s == nil)
	for _, x := range s {
		e.str(x)
	}
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, tagNil)
	case bool:
		if v {
			e.b = append(e.b, tagTrue)
		} else {
			e.b = append(e.b, tagFalse)
		}
	case float64:
		e.b = append(e.b, tagFloat)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	case int64:
		e.b = append(e.b, tagInt)
		e.b = binary.AppendVarint(e.b, v)
	case string:
		e.b = append(e.b, tagString)
		e.str(v)
	case []any:
		e.b = append(e.b, tagList)
		e.count(len(v), v == nil)
		for _, x := range v {
			e.value(x)
		}
	case map[string]any:
		e.b = append(e.b, tagMap)
		e.count(len(v), v == nil)
		// In key order, so that an outcome always has the same bytes.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			e.str(k)
			e.value(v[k])
		}
	default:
		e.ok = false
	}
}

// appendOutcome appends the binary form of o to b; ok is false if o holds
// a value the form has no tag for (then it is not cached).
func appendOutcome(b []byte, o *Outcome) (_ []byte, ok bool) {
	e := &encoder{b: b, ok: true}
	e.count(len(o.Objects), o.Objects == nil)
	for _, m := range o.Objects {
		e.str(m.Source)
		e.bool(m.Hook)
		e.bool(m.CRD)
		e.value(m.Object)
	}
	e.str(o.Error)
	e.count(len(o.Schema), o.Schema == nil)
	for _, p := range o.Schema {
		e.strs(p.Chart)
		e.strs(p.Path)
		e.str(p.Message)
	}
	e.str(o.SchemaNote)
	e.count(len(o.Unknown), o.Unknown == nil)
	for _, u := range o.Unknown {
		e.strs(u.Path)
		e.str(u.Suggest)
	}
	return e.b, e.ok
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) uint() int {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k)+1 {
		// No length exceeds the bytes left, and no count their number
		// plus one (each element takes one at least): a corrupt entry
		// allocates no more than its size.
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return int(n)
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	n := d.uint()
	if n > len(d.b) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail()
	return false
}

// count reads a length written by encoder.count: n, and whether it is nil.
func (d *decoder) count() (n int, isNil bool) {
	c := d.uint()
	if c == 0 {
		return 0, true
	}
	return c - 1, false
}

func (d *decoder) strs() []string {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = d.str()
	}
	return s
}

func (d *decoder) value() any {
	switch d.byte() {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagFloat:
		if len(d.b) < 8 {
			d.fail()
			return nil
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.b = d.b[8:]
		return v
	case tagInt:
		v, k := binary.Varint(d.b)
		if k <= 0 {
			d.fail()
			return nil
		}
		d.b = d.b[k:]
		return v
	case tagString:
		return d.str()
	case tagList:
		n, isNil := d.count()
		if isNil {
			return []any(nil)
		}
		l := make([]any, n)
		for i := range l {
			l[i] = d.value()
		}
		return l
	case tagMap:
		n, isNil := d.count()
		if isNil {
			return map[string]any(nil)
		}
		m := make(map[string]any, n)
		for range n {
			k := d.str()
			m[k] = d.value()
		}
		return m
	}
	d.fail()
	return nil
}

// readOutcome reads what appendOutcome wrote, all of data.
func readOutcome(data []byte) (*Outcome, error) {
	d := &decoder{b: data}
	o := &Outcome{}
	if n, isNil := d.count(); !isNil {
		o.Objects = make([]Manifest, n)
		for i := range o.Objects {
			m := &o.Objects[i]
			m.Source, m.Hook, m.CRD = d.str(), d.bool(), d.bool()
			if v, ok := d.value().(map[string]any); ok {
				m.Object = v
			} else {
				d.fail()
			}
		}
	}
	o.Error = d.str()
	if n, isNil := d.count(); !isNil {
		o.Schema = make([]SchemaProblem, n)
		for i := range o.Schema {
			o.Schema[i] = SchemaProblem{Chart: d.strs(), Path: d.strs(), Message: d.str()}
		}
	}
	o.SchemaNote = d.str()
	if n, isNil := d.count(); !isNil {
		o.Unknown = make([]UnknownKey, n)
		for i := range o.Unknown {
			o.Unknown[i] = UnknownKey{Path: d.strs(), Suggest: d.str()}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return o, nil
}
