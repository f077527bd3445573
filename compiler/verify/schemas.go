package verify

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/upstream"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/internal/cache"
	"github.com/platc/platc/schemas"
)

// embedded returns the validator of the embedded CRDs, made once. Each
// schema compiles on first use, unchecked against the meta-schema
// (TestEmbeddedSchemas checks them all).
var embedded = sync.OnceValues(func() (*validate.Validator, error) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	return validate.FromTrusted(crds)
})

// Prepare reads the embedded CRDs. Compile calls it concurrently while the
// spec loads; Verify waits for it.
func Prepare() { embedded() }

// verdictsKey is the cache key of the schema verdicts on the embedded
// CRDs: their digest and the linked Kubernetes modules.
func verdictsKey() string {
	return cache.SchemaVerdicts.Key(upstream.KubernetesModules(), schemas.CRDsDigest())
}

// schemasCheck validates every rendered object strictly (unknown fields
// are errors) against the embedded CRDs or the caller's. Stack instances
// are skipped: package rgd validated them with kro's generated CRD, at
// spec positions, and that CRD wins over a cluster's. Each object shape is
// validated once (validate.Memo), across runs with a cache.
func (v *verifier) schemasCheck() {
	val := v.validator()
	if v.crdsErr != nil {
		v.log.Reportf(diag.IO, diag.Pos{}, "", "reading the CRDs: %v", v.crdsErr)
		return
	}
	instances := map[string]bool{} // apiVersion + " " + kind
	if v.in.Stacks != nil {
		for _, st := range v.in.Spec.Stacks {
			crd := v.in.Stacks.Stacks[st.Name].CRD()
			versions, _ := object.Lookup(crd, "spec", "versions").([]any)
			for _, ver := range versions {
				instances[str(crd, "spec", "group")+"/"+str(ver, "name")+" "+str(crd, "spec", "names", "kind")] = true
			}
		}
	}
	memo := val.Memo()
	// Only verdicts on the embedded CRDs are kept between runs: a
	// cluster's may change.
	if cache := v.in.Cache; cache != nil && v.in.CRDs == nil {
		if data, ok := cache.Get(verdictsKey()); ok {
			memo.Read(data)
		}
		defer func() {
			if data, changed := memo.Write(); changed {
				cache.Put(verdictsKey(), data)
			}
		}()
	}
	object.Parallel(len(v.in.Files), func(i int) {
		f := v.in.Files[i]
		if f.Values {
			return
		}
		file := path.Join(v.in.Spec.Platform.OutDir, f.Path)
		for _, obj := range f.Objects {
			if instances[fmt.Sprint(obj.Get("apiVersion"))+" "+fmt.Sprint(obj.Get("kind"))] {
				continue
			}
			problems, err := memo.Validate(obj)
			if err == nil && len(problems) == 0 {
				continue
			}
			kind := obj.Get("kind")
			desc := fmt.Sprintf("%s %s", kind, str(obj, "metadata", "name"))
			if err != nil {
				v.log.Reportf(diag.ObjectSchema, diag.Pos{File: file}, "", "%s: %v", desc, err)
				continue
			}
			for _, p := range problems {
				v.log.Reportf(diag.ObjectSchema, diag.Pos{File: file}, "", "%s: %s: %s: the %s schema refuses it", desc, p.Pointer, p.Message, strings.ToLower(fmt.Sprint(kind)))
			}
		}
	})
}
