package object

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
)

// A binary form of plain values: the one encoding of the entries platc
// keeps in its cache between runs. JSON is slow to read back into
// map[string]any, and loses what the values are (an int from an int64 or
// a float64, a nil slice or map from an empty one, a Map's key order). The form holds exactly the value types of a Map: nil,
// bool, float64, int64, int, string, []string, []any, map[string]any and
// *Map; a value read back is the value written.
//
// An entry starts with the name of its layout (NewEntryDecoder); one of
// another layout, cut short or with bytes after its end is corrupt
// (ErrCorrupt), which its reader takes for a miss. That the bytes are the
// ones put is the store's to check, once (internal/cache), not a
// decoder's.
//
// Lengths are unsigned varints; a slice or map is written as its length
// plus one, and zero stands for nil.

// Tags of the values.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagFloat
	tagInt64
	tagString
	tagList
	tagMap
	tagInt
	tagStrings
	tagObject
)

// ErrCorrupt is the error of a Decoder that met bytes no Encoder wrote.
var ErrCorrupt = errors.New("corrupt encoding")

// An Encoder appends values to B. OK is false once a value of a type the
// form has none for was given (then B is not to be kept).
type Encoder struct {
	B  []byte
	OK bool
}

// NewEncoder appends to b.
func NewEncoder(b []byte) *Encoder { return &Encoder{B: b, OK: true} }

// Uint writes a length or a count (Decoder.Uint refuses one larger than
// the bytes that follow it); Int writes any other number.
func (e *Encoder) Uint(n int)    { e.B = binary.AppendUvarint(e.B, uint64(n)) }
func (e *Encoder) Int(n int)     { e.B = binary.AppendVarint(e.B, int64(n)) }
func (e *Encoder) Int64(n int64) { e.B = binary.AppendVarint(e.B, n) }
func (e *Encoder) Str(s string)  { e.Uint(len(s)); e.B = append(e.B, s...) }

// Byte writes b as it is.
func (e *Encoder) Byte(b byte) { e.B = append(e.B, b) }

// Float64 writes f's bits, as Value writes a float64.
func (e *Encoder) Float64(f float64) {
	e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(f))
}

// Bytes writes b as Str writes a string.
func (e *Encoder) Bytes(b []byte) { e.Uint(len(b)); e.B = append(e.B, b...) }

func (e *Encoder) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Count writes the length n of a slice or map, or that it is nil.
func (e *Encoder) Count(n int, isNil bool) {
	if isNil {
		e.Uint(0)
		return
	}
	e.Uint(n + 1)
}

func (e *Encoder) Strs(s []string) {
	e.Count(len(s), s == nil)
	for _, x := range s {
		e.Str(x)
	}
}

// Value writes v, with its type.
func (e *Encoder) Value(v any) {
	switch v := v.(type) {
	case nil:
		e.B = append(e.B, tagNil)
	case bool:
		if v {
			e.B = append(e.B, tagTrue)
		} else {
			e.B = append(e.B, tagFalse)
		}
	case float64:
		e.B = append(e.B, tagFloat)
		e.Float64(v)
	case int64:
		e.B = append(e.B, tagInt64)
		e.Int64(v)
	case int:
		e.B = append(e.B, tagInt)
		e.Int(v)
	case string:
		e.B = append(e.B, tagString)
		e.Str(v)
	case []string:
		e.B = append(e.B, tagStrings)
		e.Strs(v)
	case []any:
		e.B = append(e.B, tagList)
		e.Count(len(v), v == nil)
		for _, x := range v {
			e.Value(x)
		}
	case map[string]any:
		e.B = append(e.B, tagMap)
		e.Count(len(v), v == nil)
		// In key order, so that a value always has the same bytes.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			e.Str(k)
			e.Value(v[k])
		}
	case *Map:
		if v == nil {
			e.OK = false
			return
		}
		e.B = append(e.B, tagObject)
		e.Uint(v.Len())
		v.Each(func(k string, x any) {
			e.Str(k)
			e.Value(x)
		})
	default:
		e.OK = false
	}
}

// A Decoder reads what an Encoder wrote, in the same order. Err is the
// first problem met; from then on every read gives a zero value.
type Decoder struct {
	b   []byte
	Err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// NewEntryDecoder reads what follows format in data, a cache entry that
// starts with the name of its layout (NewEncoder([]byte(format))); it has
// failed already when data does not start so, an entry of another layout
// or of another platc.
func NewEntryDecoder(format string, data []byte) *Decoder {
	b, ok := bytes.CutPrefix(data, []byte(format))
	d := &Decoder{b: b}
	if !ok {
		d.Fail()
	}
	return d
}

// Fail records that the bytes are not what was expected.
func (d *Decoder) Fail() {
	if d.Err == nil {
		d.Err = ErrCorrupt
	}
	d.b = nil
}

// Done fails unless every byte was read; it returns Err.
func (d *Decoder) Done() error {
	if d.Err == nil && len(d.b) != 0 {
		d.Fail()
	}
	return d.Err
}

func (d *Decoder) Uint() int {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k)+1 {
		// No length exceeds the bytes left, and no count their number
		// plus one (each element takes one at least): corrupt bytes
		// allocate no more than their size.
		d.Fail()
		return 0
	}
	d.b = d.b[k:]
	return int(n)
}

// Byte reads what Encoder.Byte wrote.
func (d *Decoder) Byte() byte {
	if len(d.b) == 0 {
		d.Fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *Decoder) Str() string {
	n := d.Uint()
	if n > len(d.b) {
		d.Fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// Bytes reads what Encoder.Bytes (or Str) wrote: a slice of the bytes
// being decoded, not a copy.
func (d *Decoder) Bytes() []byte {
	n := d.Uint()
	if n > len(d.b) {
		d.Fail()
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *Decoder) Bool() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail()
	return false
}

// Count reads a length written by Encoder.Count: n, and whether it is nil.
func (d *Decoder) Count() (n int, isNil bool) {
	c := d.Uint()
	if c == 0 {
		return 0, true
	}
	return c - 1, false
}

func (d *Decoder) Strs() []string {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = d.Str()
	}
	return s
}

// Int reads what Encoder.Int wrote.
func (d *Decoder) Int() int {
	v := d.varint()
	if v != int64(int(v)) {
		d.Fail()
		return 0
	}
	return int(v)
}

// Int64 reads what Encoder.Int64 wrote.
func (d *Decoder) Int64() int64 { return d.varint() }

// Float64 reads what Encoder.Float64 wrote.
func (d *Decoder) Float64() float64 {
	if len(d.b) < 8 {
		d.Fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *Decoder) varint() int64 {
	v, k := binary.Varint(d.b)
	if k <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[k:]
	return v
}

// Value reads a value Encoder.Value wrote.
func (d *Decoder) Value() any {
	switch d.Byte() {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagFloat:
		v := d.Float64()
		if d.Err != nil {
			return nil
		}
		return v
	case tagInt64:
		return d.varint()
	case tagInt:
		return int(d.varint())
	case tagString:
		return d.Str()
	case tagStrings:
		return d.Strs()
	case tagList:
		n, isNil := d.Count()
		if isNil {
			return []any(nil)
		}
		l := make([]any, n)
		for i := range l {
			l[i] = d.Value()
		}
		return l
	case tagMap:
		n, isNil := d.Count()
		if isNil {
			return map[string]any(nil)
		}
		m := make(map[string]any, n)
		for range n {
			k := d.Str()
			m[k] = d.Value()
		}
		return m
	case tagObject:
		n := d.Uint()
		m := NewMap()
		for range n {
			k := d.Str()
			m.Set(k, d.Value())
		}
		return m
	}
	d.Fail()
	return nil
}

// Entry is a cache entry of v: layout, then v by Typed; ok is false where
// v holds a value of a type the form has none for.
func Entry(layout string, v any) ([]byte, bool) {
	e := NewEncoder([]byte(layout))
	e.Typed(v)
	return e.B, e.OK
}

// ReadEntry reads what Entry wrote, all of data, into ptr.
func ReadEntry(layout string, data []byte, ptr any) error {
	d := NewEntryDecoder(layout, data)
	d.Typed(ptr)
	return d.Done()
}

// valueTypes are the Go types Value writes with a tag, which Typed
// writes with Value.
var valueTypes = map[reflect.Type]bool{
	reflect.TypeFor[any]():            true,
	reflect.TypeFor[map[string]any](): true,
	reflect.TypeFor[[]any]():          true,
	reflect.TypeFor[*Map]():           true,
}

var textType = reflect.TypeFor[encoding.TextMarshaler]()

// Typed writes v by its Go type, without tags: a struct as its exported
// fields in order, a slice or a map with string keys as its count (nil
// told from empty) and its elements (a map's in key order), a type with a
// MarshalText as its text, and the value types of a Map with Value. A
// kind of cache entry's Go type is its layout: Decoder.Typed reads it
// back into the same type. OK turns false at a type it has no form for.
func (e *Encoder) Typed(v any) { e.typed(reflect.ValueOf(v)) }

func (e *Encoder) typed(v reflect.Value) {
	t := v.Type()
	switch {
	case valueTypes[t]:
		if v.IsNil() {
			e.Value(nil)
		} else {
			e.Value(v.Interface())
		}
		return
	case t.Implements(textType):
		text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		e.OK = e.OK && err == nil
		e.Bytes(text)
		return
	}
	switch t.Kind() {
	case reflect.String:
		e.Str(v.String())
	case reflect.Bool:
		e.Bool(v.Bool())
	case reflect.Int, reflect.Int64:
		e.Int64(v.Int())
	case reflect.Float64:
		e.Float64(v.Float())
	case reflect.Pointer:
		e.Bool(!v.IsNil())
		if !v.IsNil() {
			e.typed(v.Elem())
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				e.typed(v.Field(i))
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			e.Bytes(v.Bytes())
			return
		}
		e.Count(v.Len(), v.IsNil())
		for i := range v.Len() {
			e.typed(v.Index(i))
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			e.OK = false
			return
		}
		e.Count(v.Len(), v.IsNil())
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			e.Str(k.String())
			e.typed(v.MapIndex(k))
		}
	default:
		e.OK = false
	}
}

// Typed reads what Encoder.Typed wrote of a value of ptr's element type
// into it; a text its UnmarshalText refuses, or a value of another type,
// fails d.
func (d *Decoder) Typed(ptr any) { d.typed(reflect.ValueOf(ptr).Elem()) }

func (d *Decoder) typed(v reflect.Value) {
	t := v.Type()
	switch {
	case valueTypes[t]:
		if x := d.Value(); x != nil {
			if xv := reflect.ValueOf(x); xv.Type().AssignableTo(t) {
				v.Set(xv)
			} else {
				d.Fail()
			}
		}
		return
	case reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(d.Bytes()); err != nil {
			d.Fail()
		}
		return
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(d.Str())
	case reflect.Bool:
		v.SetBool(d.Bool())
	case reflect.Int:
		v.SetInt(int64(d.Int()))
	case reflect.Int64:
		v.SetInt(d.Int64())
	case reflect.Float64:
		v.SetFloat(d.Float64())
	case reflect.Pointer:
		if d.Bool() {
			v.Set(reflect.New(t.Elem()))
			d.typed(v.Elem())
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				d.typed(v.Field(i))
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes(d.Bytes())
			return
		}
		n, isNil := d.Count()
		if isNil {
			return
		}
		v.Set(reflect.MakeSlice(t, n, n))
		for i := 0; i < n && d.Err == nil; i++ {
			d.typed(v.Index(i))
		}
	case reflect.Map:
		n, isNil := d.Count()
		if isNil {
			return
		}
		v.Set(reflect.MakeMapWithSize(t, n))
		for i := 0; i < n && d.Err == nil; i++ {
			k := reflect.ValueOf(d.Str()).Convert(t.Key())
			x := reflect.New(t.Elem()).Elem()
			d.typed(x)
			v.SetMapIndex(k, x)
		}
	default:
		d.Fail()
	}
}
