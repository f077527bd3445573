package charts

import "github.com/platc/platc/compiler/object"

// An outcome is kept in the cache in object's binary form of plain
// values rather than as JSON: a warm run reads every distinct render's
// outcome (1,355 at 10,000 Applications), and encoding/json's decoding of
// their objects into map[string]any was a quarter of what rendering charts
// added to platc vet. The form holds exactly what Render makes (plain data
// as sigs.k8s.io/yaml decodes it, and int64; nil slices and maps told from
// empty ones), so that an outcome read from the cache is the outcome
// rendered (TestOutcomeCodec).

// appendOutcome appends the binary form of o to b; ok is false if o holds
// a value the form has no tag for (then it is not cached).
func appendOutcome(b []byte, o *Outcome) (_ []byte, ok bool) {
	e := object.NewEncoder(b)
	e.Count(len(o.Objects), o.Objects == nil)
	for _, m := range o.Objects {
		e.Str(m.Source)
		e.Bool(m.Hook)
		e.Bool(m.CRD)
		e.Value(m.Object)
	}
	e.Str(o.Error)
	e.Count(len(o.Schema), o.Schema == nil)
	for _, p := range o.Schema {
		e.Strs(p.Chart)
		e.Strs(p.Path)
		e.Str(p.Message)
	}
	e.Str(o.SchemaNote)
	e.Count(len(o.Unknown), o.Unknown == nil)
	for _, u := range o.Unknown {
		e.Strs(u.Path)
		e.Str(u.Suggest)
	}
	return e.B, e.OK
}

// readOutcome reads what appendOutcome wrote, all of data.
func readOutcome(data []byte) (*Outcome, error) {
	d := object.NewDecoder(data)
	o := &Outcome{}
	if n, isNil := d.Count(); !isNil {
		o.Objects = make([]Manifest, n)
		for i := range o.Objects {
			m := &o.Objects[i]
			m.Source, m.Hook, m.CRD = d.Str(), d.Bool(), d.Bool()
			if v, ok := d.Value().(map[string]any); ok {
				m.Object = v
			} else {
				d.Fail()
			}
		}
	}
	o.Error = d.Str()
	if n, isNil := d.Count(); !isNil {
		o.Schema = make([]SchemaProblem, n)
		for i := range o.Schema {
			o.Schema[i] = SchemaProblem{Chart: d.Strs(), Path: d.Strs(), Message: d.Str()}
		}
	}
	o.SchemaNote = d.Str()
	if n, isNil := d.Count(); !isNil {
		o.Unknown = make([]UnknownKey, n)
		for i := range o.Unknown {
			o.Unknown[i] = UnknownKey{Path: d.Strs(), Suggest: d.Str()}
		}
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return o, nil
}
