package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// BaseWorld is the cluster platc renders for: the CRDs platc embeds (the
// primitives, Argo CD's Application and AppProject) and kro's own
// ResourceGraphDefinition CRD, from kro's module, in place of platc's
// subset of it (which bounds what platc emits; the cluster runs kro's),
// and Kubernetes' own kinds, as its API server publishes them
// (builtin.go).
var BaseWorld = sync.OnceValues(func() (*World, error) {
	kroCRD, err := KroCRD()
	if err != nil {
		return nil, err
	}
	if _, err := UpstreamBuiltin(); err != nil {
		return nil, err
	}
	crds := []*extv1.CustomResourceDefinition{kroCRD}
	files := EmbeddedCRDs()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		parsed, err := ParseCRDs(files[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, crd := range parsed {
			if crd.Name != rgdCRDName {
				crds = append(crds, crd)
			}
		}
	}
	return NewWorld(crds), nil
})

// RepoVerdict is what kro and the API server make of everything platc
// rendered for one repository.
type RepoVerdict struct {
	RGDs      map[string]error          // by "file: name": nil if kro accepts it
	Objects   map[string]map[string]any // the RGDs, by "file: name", as platc reads them
	Instances map[string]error          // by "file: kind name": nil if the API server admits it
	CRDs      map[string]*extv1.CustomResourceDefinition
}

// CheckRendered runs upstream over a repository's rendered files (by path):
// kro builds every ResourceGraphDefinition, in a cluster that also holds
// the CRDs kro generates for the repository's other RGDs, and the API
// server admits every object of a generated kind against its CRD.
func CheckRendered(base *World, outputs map[string][]byte) (*RepoVerdict, error) {
	type doc struct {
		file       string
		obj, plain map[string]any
	}
	var rgds, others []doc
	for _, file := range slices.Sorted(maps.Keys(outputs)) {
		if !strings.HasSuffix(file, ".yaml") {
			continue
		}
		for _, d := range SplitYAML(outputs[file]) {
			obj, err := DecodeYAML(d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if obj["apiVersion"] == "kro.run/v1alpha1" && obj["kind"] == "ResourceGraphDefinition" {
				// platc reads its own YAML with plain numbers.
				var plain map[string]any
				if err := yaml.Unmarshal(d, &plain); err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
				rgds = append(rgds, doc{file, obj, plain})
			} else {
				others = append(others, doc{file, obj, nil})
			}
		}
	}
	v := &RepoVerdict{RGDs: map[string]error{}, Objects: map[string]map[string]any{}, Instances: map[string]error{}, CRDs: map[string]*extv1.CustomResourceDefinition{}}
	// Each RGD is built once alone, for its CRD, then again beside the
	// CRDs of the others.
	first := map[int]*extv1.CustomResourceDefinition{}
	for i, r := range rgds {
		if acc, err := base.BuildRGD(r.obj); err == nil {
			first[i] = acc.CRD
		}
	}
	for i, r := range rgds {
		var others []*extv1.CustomResourceDefinition
		for j, crd := range first {
			if j != i {
				others = append(others, crd)
			}
		}
		slices.SortFunc(others, func(a, b *extv1.CustomResourceDefinition) int { return compareStrings(a.Name, b.Name) })
		name := fmt.Sprintf("%s: %v", r.file, lookup(r.obj, "metadata", "name"))
		acc, err := base.With(others...).BuildRGD(r.obj)
		v.RGDs[name] = err
		v.Objects[name] = r.plain
		if err == nil {
			v.CRDs[acc.CRD.Name] = acc.CRD
		}
	}
	for _, o := range others {
		apiVersion, _ := o.obj["apiVersion"].(string)
		kind, _ := o.obj["kind"].(string)
		for _, crd := range v.CRDs {
			if apiVersion == crd.Spec.Group+"/"+crd.Spec.Versions[0].Name && kind == crd.Spec.Names.Kind {
				_, err := AdmitWith(crd, o.obj)
				v.Instances[fmt.Sprintf("%s: %s %v", o.file, kind, lookup(o.obj, "metadata", "name"))] = err
			}
		}
	}
	return v, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lookup reads a path of nested maps.
func lookup(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
