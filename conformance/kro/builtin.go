package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"

	"github.com/platc/platc/schemas"
)

// Kubernetes' own kinds, as a cluster's discovery serves them: the OpenAPI
// v3 documents the API server publishes (api/openapi-spec/v3 of the
// k8s.io/kubernetes module, which Kubernetes' CI keeps equal to what
// kube-apiserver serves at /openapi/v3), whole. kro resolves a built-in
// kind's schema from them with k8s.io/apiserver's ClientDiscoveryResolver,
// the code kro runs in a cluster; platc serves the same kinds from its cut
// copies (schemas/builtin), which TestBuiltinSchemas writes and checks.

// KubernetesModuleDir is the folder of the k8s.io/kubernetes module at
// the version platc's built-in schemas come from, which the go command
// downloads (or finds in its module cache).
func KubernetesModuleDir() (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+schemas.KubernetesVersion).Output()
	if err != nil {
		return "", fmt.Errorf("downloading k8s.io/kubernetes@%s: %w", schemas.KubernetesVersion, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Dir == "" {
		return "", fmt.Errorf("downloading k8s.io/kubernetes@%s: %s", schemas.KubernetesVersion, m.Error)
	}
	return m.Dir, nil
}

// UpstreamBuiltin are Kubernetes' published OpenAPI v3 documents, by
// discovery path ("api/v1", "apis/networking.k8s.io/v1").
var UpstreamBuiltin = sync.OnceValues(func() (map[string][]byte, error) {
	dir, err := KubernetesModuleDir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "api", "openapi-spec", "v3", "*_openapi.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("k8s.io/kubernetes holds no api/openapi-spec/v3 documents")
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out[strings.ReplaceAll(strings.TrimSuffix(filepath.Base(f), "_openapi.json"), "__", "/")] = data
	}
	return out, nil
})

// document is the part of an OpenAPI v3 document the cut reads.
type document struct {
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

// CutBuiltin is each document of docs that serves one of kinds, cut to
// the components the kinds reach through $ref (every other component,
// and the paths, left out), the components otherwise as published: what
// schemas/builtin holds, by file name.
func CutBuiltin(docs map[string][]byte, kinds []schemas.BuiltinKind) (map[string][]byte, error) {
	byPath := map[string][]schemas.BuiltinKind{}
	for _, k := range kinds {
		byPath[k.DiscoveryPath()] = append(byPath[k.DiscoveryPath()], k)
	}
	out := map[string][]byte{}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		data, ok := docs[p]
		if !ok {
			return nil, fmt.Errorf("Kubernetes %s publishes no document %s", schemas.KubernetesVersion, p)
		}
		var doc document
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		keep := map[string]json.RawMessage{}
		var visit func(name string) error
		visit = func(name string) error {
			if _, ok := keep[name]; ok {
				return nil
			}
			raw, ok := doc.Components.Schemas[name]
			if !ok {
				return fmt.Errorf("%s: no component %s", p, name)
			}
			keep[name] = raw
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			for _, ref := range refs(v) {
				if err := visit(strings.TrimPrefix(ref, "#/components/schemas/")); err != nil {
					return err
				}
			}
			return nil
		}
		for _, k := range byPath[p] {
			name, err := componentOf(doc, k)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if err := visit(name); err != nil {
				return nil, err
			}
		}
		cut := map[string]any{
			"openapi":    "3.0.0",
			"info":       map[string]any{"title": "Kubernetes", "version": schemas.KubernetesVersion},
			"components": map[string]any{"schemas": keep},
		}
		b, err := json.MarshalIndent(cut, "", "  ")
		if err != nil {
			return nil, err
		}
		out[schemas.BuiltinFile(p)] = append(b, '\n')
	}
	return out, nil
}

// componentOf is the component whose x-kubernetes-group-version-kind
// names the kind.
func componentOf(doc document, k schemas.BuiltinKind) (string, error) {
	want := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		var c struct {
			GVKs []schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
		}
		if err := json.Unmarshal(doc.Components.Schemas[name], &c); err != nil {
			return "", err
		}
		if slices.Contains(c.GVKs, want) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no component is kind %s", want)
}

// refs are the $ref values anywhere in v.
func refs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if s, ok := v[k].(string); ok && k == "$ref" {
				out = append(out, s)
				continue
			}
			out = append(out, refs(v[k])...)
		}
	case []any:
		for _, x := range v {
			out = append(out, refs(x)...)
		}
	}
	return out
}

// Mapping is a kind's resource and scope, as discovery (and a REST mapper)
// has it.
type Mapping struct {
	Plural     string
	Namespaced bool
}

// BuiltinMappings are the resource and scope of every kind the documents
// serve, read from their paths: the list operation of a namespaced kind
// is under namespaces/{namespace}/, a cluster-scoped kind's is not.
func BuiltinMappings(docs map[string][]byte) (map[schema.GroupVersionKind]Mapping, error) {
	out := map[schema.GroupVersionKind]Mapping{}
	for _, p := range slices.Sorted(maps.Keys(docs)) {
		var doc document
		if err := json.Unmarshal(docs[p], &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
			raw, ok := doc.Paths[path]["get"]
			if !ok || strings.Contains(path, "{name}") || strings.Contains(path, "/watch/") {
				continue
			}
			var op struct {
				Action string                  `json:"x-kubernetes-action"`
				GVK    schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, err
			}
			if op.Action != "list" {
				continue
			}
			m := out[op.GVK]
			m.Plural = path[strings.LastIndex(path, "/")+1:]
			m.Namespaced = m.Namespaced || strings.Contains(path, "/namespaces/{namespace}/")
			out[op.GVK] = m
		}
	}
	return out, nil
}

// builtinDiscovery is a cluster's discovery as far as kro's schema
// resolver asks it: the OpenAPI v3 documents, by path, served by
// client-go's own fake (openapitest).
type builtinDiscovery struct {
	discovery.DiscoveryInterface // only OpenAPIV3 is called
	client                       *openapitest.FakeClient
}

func newBuiltinDiscovery(docs map[string][]byte) builtinDiscovery {
	c := openapitest.NewFakeClient()
	for path, data := range docs {
		c.PathsMap[path] = openapitest.FakeGroupVersion{GVSpec: data}
	}
	return builtinDiscovery{client: c}
}

func (d builtinDiscovery) OpenAPIV3() openapi.Client { return d.client }
