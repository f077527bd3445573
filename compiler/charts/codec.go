package charts

import "github.com/platc/platc/compiler/object"

// An outcome is kept in the cache in object's binary form of plain
// values, which a warm run, reading every distinct render's outcome,
// decodes much faster than JSON. Each object is written as its head (Head)
// and its body, the object's own binary form, which a read keeps
// undecoded until Manifests asks for it: the checks of most objects read
// their heads alone. The form holds exactly what Render makes (plain data
// as sigs.k8s.io/yaml decodes it, and int64; nil slices and maps told
// from empty ones), so that an outcome read from the cache is the outcome
// rendered (TestOutcomeCodec).

// appendOutcome appends the binary form of o to b; ok is false if o holds
// a value the form has no tag for (then it is not cached).
func appendOutcome(b []byte, o *Outcome) (_ []byte, ok bool) {
	objects, err := o.Manifests()
	if err != nil {
		return b, false
	}
	e := object.NewEncoder(b)
	body := object.NewEncoder(nil)
	e.Count(len(o.heads), o.heads == nil)
	for i, h := range o.heads {
		e.Str(h.Source)
		e.Bool(h.Hook)
		e.Bool(h.CRD)
		e.Str(h.APIVersion)
		e.Str(h.Kind)
		e.Str(h.Name)
		e.Str(h.Namespace)
		e.Str(h.GenerateName)
		e.Int(h.Size)
		body.B = body.B[:0]
		body.Value(objects[i].Object)
		e.OK = e.OK && body.OK
		e.Bytes(body.B)
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

// readOutcome reads what appendOutcome wrote, all of data; the outcome's
// bodies are slices of data, decoded when Manifests is first called.
func readOutcome(data []byte) (*Outcome, error) {
	d := object.NewDecoder(data)
	o := &Outcome{}
	if n, isNil := d.Count(); !isNil {
		o.heads = make([]Head, n)
		o.bodies = make([][]byte, n)
		for i := range o.heads {
			o.heads[i] = Head{Source: d.Str(), Hook: d.Bool(), CRD: d.Bool(),
				APIVersion: d.Str(), Kind: d.Str(), Name: d.Str(), Namespace: d.Str(), GenerateName: d.Str(), Size: d.Int()}
			o.bodies[i] = d.Bytes()
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
