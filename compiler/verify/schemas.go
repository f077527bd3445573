package verify

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
)

// embedded returns the validator of the CRDs platc carries, compiled once.
var embedded = sync.OnceValues(func() (*validate.Validator, error) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	return validate.FromObjects(crds)
})

// Prepare compiles the validator of the CRDs platc carries, which every
// Verify of their kinds needs. Compile calls it on another goroutine while
// the spec loads; Verify waits for it if it has not finished.
func Prepare() { embedded() }

// schemasCheck validates every rendered object against the schema of its
// kind, strictly (an unknown field is an error): the embedded CRDs, or the
// ones the caller gives (a cluster's own), and for stack instances the CRD
// kro generates from their ResourceGraphDefinition, which wins over a
// cluster's CRD of the same kind. Objects of one shape are validated once
// (validate.Memo).
func (v *verifier) schemasCheck() {
	var val *validate.Validator
	var err error
	if v.in.CRDs != nil {
		val, err = validate.FromCRDs(v.in.CRDs)
	} else {
		val, err = embedded()
	}
	if err != nil {
		v.log.Errorf(diag.Pos{}, "", "reading the CRDs: %v", err)
		return
	}
	instances := map[string][]map[string]any{}
	if v.in.Stacks != nil {
		for _, st := range v.in.Spec.Stacks {
			if crd := v.in.Stacks.Stacks[st.Name].CRD(); crd != nil {
				instances["the CRD kro generates for stack "+st.Name] = []map[string]any{crd}
			}
		}
	}
	if len(instances) > 0 {
		instVal, err := validate.FromObjects(instances)
		if err != nil {
			v.log.Errorf(diag.Pos{}, "", "the CRDs of stack instances: %v", err)
			return
		}
		val = val.With(instVal)
	}
	memo := val.Memo()
	object.Parallel(len(v.in.Files), func(i int) {
		f := v.in.Files[i]
		if f.Values {
			return
		}
		file := path.Join(v.in.Spec.Platform.OutDir, f.Path)
		for _, obj := range f.Objects {
			problems, err := memo.Validate(obj)
			if err == nil && len(problems) == 0 {
				continue
			}
			kind := obj.Get("kind")
			desc := fmt.Sprintf("%s %s", kind, str(obj, "metadata", "name"))
			if err != nil {
				v.log.Errorf(diag.Pos{File: file}, "", "%s: %v", desc, err)
				continue
			}
			for _, p := range problems {
				v.log.Errorf(diag.Pos{File: file}, "", "%s: %s: %s: the %s schema refuses it", desc, p.Pointer, p.Message, strings.ToLower(fmt.Sprint(kind)))
			}
		}
	})
}
