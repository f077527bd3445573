package kro

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/platc/platc/schemas"
)

// Kubernetes' own kinds (Namespace, NetworkPolicy, ConfigMap, Secret),
// served by every Kinds beside its CRDs. kro's resolver
// (k8s.io/apiserver's ClientDiscoveryResolver) reads their schemas from
// OpenAPI v3 discovery; offline it reads the documents platc embeds
// (schemas/builtin, cut to the listed kinds). An unlisted kind has no
// schema: kro could not type its template, and platc says so.

// builtinSchemas are the built-in kinds' schemas, shared by every Kinds and
// each resolved on first use: resolving decodes a whole discovery document.
var builtinSchemas = sync.OnceValue(newBuiltinSchemas)

func newBuiltinSchemas() map[schema.GroupVersionKind]func() (*spec.Schema, error) {
	r := &resolver.ClientDiscoveryResolver{Discovery: builtinDiscovery{docs: schemas.Builtin()}}
	out := map[schema.GroupVersionKind]func() (*spec.Schema, error){}
	for _, k := range schemas.BuiltinKinds {
		gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
		out[gvk] = sync.OnceValues(func() (*spec.Schema, error) {
			s, err := r.ResolveSchema(gvk)
			if err != nil {
				return nil, fmt.Errorf("the schema of %s: %w", gvk, err)
			}
			return s, nil
		})
	}
	return out
}

// builtinDigest digests the built-in kinds' documents, for every RGD's
// cache key (the Kinds' digest covers the CRDs alone).
var builtinDigest = sync.OnceValue(func() string {
	h := sha256.New()
	docs := schemas.Builtin()
	for _, p := range slices.Sorted(maps.Keys(docs)) {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(docs[p]))
		h.Write(docs[p])
	}
	return hex.EncodeToString(h.Sum(nil))
})

// addBuiltinMappings adds the built-in kinds to a REST mapper, where no
// CRD serves the same kind.
func addBuiltinMappings(m *meta.DefaultRESTMapper, crdKinds map[schema.GroupVersionKind]*kind) {
	for _, k := range schemas.BuiltinKinds {
		gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
		if crdKinds[gvk] != nil {
			continue
		}
		scope := meta.RESTScopeRoot
		if k.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		gv := gvk.GroupVersion()
		m.AddSpecific(gvk, gv.WithResource(k.Plural), gv.WithResource(strings.ToLower(k.Kind)), scope)
	}
}

// builtinDiscovery serves the schema resolver the OpenAPI v3 documents, by
// path ("api/v1").
type builtinDiscovery struct {
	discovery.DiscoveryInterface // nil: only OpenAPIV3 is called
	docs                         map[string][]byte
}

// OpenAPIV3 is the discovery itself: its Paths are its documents.
func (d builtinDiscovery) OpenAPIV3() openapi.Client { return d }

func (d builtinDiscovery) Paths() (map[string]openapi.GroupVersion, error) {
	out := make(map[string]openapi.GroupVersion, len(d.docs))
	for k, v := range d.docs {
		out[k] = builtinDoc{path: k, data: v}
	}
	return out, nil
}

type builtinDoc struct {
	path string
	data []byte
}

func (d builtinDoc) Schema(contentType string) ([]byte, error) {
	if contentType != "application/json" {
		return nil, fmt.Errorf("content type %s is not served", contentType)
	}
	return d.data, nil
}

func (d builtinDoc) ServerRelativeURL() string { return "/openapi/v3/" + d.path }
