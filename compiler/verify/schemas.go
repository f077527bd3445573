package verify

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
)

var (
	embeddedOnce sync.Once
	embeddedVal  *validate.Validator
	embeddedErr  error
)

// Prepare compiles the validator of the CRDs platc carries, which every
// Verify of their kinds needs. Compile calls it on another goroutine while
// the spec loads; Verify waits for it if it has not finished.
func Prepare() { embedded() }

// embedded returns the validator of the CRDs platc carries, compiled once.
func embedded() (*validate.Validator, error) {
	embeddedOnce.Do(func() { embeddedVal, embeddedErr = validate.FromCRDs(schemas.CRDs()) })
	return embeddedVal, embeddedErr
}

// schemasCheck validates every rendered object against the schema of its
// kind, strictly (an unknown field is an error): the embedded CRDs, or the
// ones the caller gives (a cluster's own), and for stack instances the CRD
// kro generates from their ResourceGraphDefinition. Objects of one shape
// are validated once (validate.Memo).
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
	instances := map[string][]byte{}
	if v.in.Stacks != nil {
		for _, st := range v.in.Spec.Stacks {
			if crd := v.in.Stacks.Stacks[st.Name].CRD(); crd != nil {
				data, err := yaml.Marshal(crd)
				if err != nil {
					continue
				}
				instances["the CRD kro generates for stack "+st.Name] = data
			}
		}
	}
	var instVal *validate.Validator
	if len(instances) > 0 {
		if instVal, err = validate.FromCRDs(instances); err != nil {
			v.log.Errorf(diag.Pos{}, "", "the CRDs of stack instances: %v", err)
			return
		}
	}
	instKinds := map[string]bool{}
	if instVal != nil {
		for _, k := range instVal.Kinds() {
			instKinds[k] = true
		}
	}
	memo := val.Memo()
	var instMemo *validate.Memo
	if instVal != nil {
		instMemo = instVal.Memo()
	}
	object.Parallel(len(v.in.Files), func(i int) {
		f := v.in.Files[i]
		if f.Values {
			return
		}
		file := path.Join(v.in.Spec.Platform.OutDir, f.Path)
		for _, obj := range f.Objects {
			apiVersion, kind := obj.Get("apiVersion"), obj.Get("kind")
			use := memo
			if instKinds[fmt.Sprintf("%s/%s", apiVersion, kind)] {
				use = instMemo
			}
			problems, err := use.Validate(obj)
			desc := fmt.Sprintf("%s %s", kind, objectName(obj))
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

// objectName is the metadata.name of obj, or "".
func objectName(obj *object.Map) string {
	meta, _ := obj.Get("metadata").(*object.Map)
	if meta == nil {
		return ""
	}
	name, _ := meta.Get("name").(string)
	return name
}
