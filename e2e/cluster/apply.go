package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// FieldManager is the field manager of what the harness applies itself
// (Argo CD's and kro's installation, the root Applications).
const FieldManager = "platc-e2e"

// Decode reads the objects of a YAML stream of one or more documents.
func Decode(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// Resource is the client of obj's kind, in its namespace (or namespace,
// where obj names none and its kind is namespaced).
func (c *Cluster) Resource(obj *unstructured.Unstructured, namespace string) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// A CRD applied just before: discover again.
		c.Mapper.Reset()
		mapping, err = c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return c.Dynamic.Resource(mapping.Resource), nil
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = namespace
	}
	return c.Dynamic.Resource(mapping.Resource).Namespace(ns), nil
}

// Apply applies objects by server-side apply, as the harness's field
// manager, in order; a CRD is waited for until it is established, so that
// what follows may use its kind.
func (c *Cluster) Apply(ctx context.Context, namespace string, objs ...*unstructured.Unstructured) error {
	for _, obj := range objs {
		ri, err := c.Resource(obj, namespace)
		if err != nil {
			return err
		}
		data, err := json.Marshal(obj.Object)
		if err != nil {
			return err
		}
		force := true
		if _, err := ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force}); err != nil {
			return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		if obj.GetKind() == "CustomResourceDefinition" {
			if err := c.WaitEstablished(ctx, obj.GetName(), time.Minute); err != nil {
				return err
			}
		}
	}
	return nil
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// WaitEstablished waits until the CRD named name is established.
func (c *Cluster) WaitEstablished(ctx context.Context, name string, timeout time.Duration) error {
	err := c.poll(ctx, "CRD "+name+" to be established", timeout, func() (bool, string, error) {
		crd, err := c.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, "not found", nil
		}
		if err != nil {
			return false, "", err
		}
		return Established(crd), "not established", nil
	})
	c.Mapper.Reset()
	return err
}

// Established reports whether a CRD's Established condition is True.
func Established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
