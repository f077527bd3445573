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

// embedded returns the validator of the CRDs platc carries, made once. Each
// kind's schema is compiled when an object of the kind is first validated
// (the sample meets three kinds of five), and not checked against the
// meta-schema: a test compiles them all, checking them
// (TestEmbeddedSchemas).
var embedded = sync.OnceValues(func() (*validate.Validator, error) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	return validate.FromTrusted(crds)
})

// Prepare reads the CRDs platc carries, which every Verify of their kinds
// needs. Compile calls it on another goroutine while the spec loads;
// Verify waits for it if it has not finished.
func Prepare() { embedded() }

// verdictsKey is the cache key of the schema check's verdicts on the
// embedded CRDs: it names the CRDs by their digest and the API server's
// validation code by the Kubernetes modules platc links.
func verdictsKey() string {
	return cache.SchemaVerdicts.Key(upstream.KubernetesModules(), schemas.CRDsDigest())
}

// schemasCheck validates every rendered object against the schema of its
// kind, strictly (an unknown field is an error): the embedded CRDs, or the
// ones the caller gives (a cluster's own). Stack instances are not
// validated here: package rgd has validated each one's spec with the CRD
// kro generates from its ResourceGraphDefinition, as the API server does
// (rules and list types included), at the spec's positions; that CRD wins
// over a cluster's of the same kind. Objects of one shape are validated
// once (validate.Memo), and, with a cache, once in all the runs that meet
// the shape.
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
	// The verdicts of the last run are kept, those on the embedded CRDs
	// (a cluster's may change between runs): a run whose objects have
	// the shapes of the last run's compiles no schema.
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
