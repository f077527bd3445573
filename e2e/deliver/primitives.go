package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/e2e/cluster"
	"github.com/platc/platc/schemas"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// providedGroups are the API groups of platc's embedded CRDs that a
// cluster gets from Argo CD's and kro's installations; every other
// embedded CRD is a kind another operator of the cluster provides (the
// orchestrator's primitives that stacks consume).
var providedGroups = []string{"argoproj.io", "kro.run"}

// A primitive is a kind that the cluster's orchestrator provides.
type primitive struct {
	gvr    schema.GroupVersionResource
	kind   string
	status map[string]any // the status schema's properties
	// subresource is whether status is a subresource of the kind's.
	subresource bool
}

// installPrimitives applies the CRDs of the kinds platc knows that
// another operator provides, and returns them.
func installPrimitives(ctx context.Context, c *cluster.Cluster) ([]primitive, error) {
	docs, err := schemas.CRDObjects()
	if err != nil {
		return nil, err
	}
	var prims []primitive
	for _, file := range slices.Sorted(maps.Keys(docs)) {
		for _, doc := range docs[file] {
			crd := &unstructured.Unstructured{Object: cloneJSON(doc)}
			group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
			if crd.GetKind() != "CustomResourceDefinition" || slices.Contains(providedGroups, group) {
				continue
			}
			if err := c.Apply(ctx, "", crd); err != nil {
				return nil, err
			}
			plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
			kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
			versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
			for _, v := range versions {
				v, _ := v.(map[string]any)
				if served, _ := v["served"].(bool); !served {
					continue
				}
				name, _ := v["name"].(string)
				props, _, _ := unstructured.NestedMap(v, "schema", "openAPIV3Schema", "properties", "status", "properties")
				_, sub, _ := unstructured.NestedMap(v, "subresources", "status")
				prims = append(prims, primitive{
					gvr:  schema.GroupVersionResource{Group: group, Version: name, Resource: plural},
					kind: kind, status: props, subresource: sub,
				})
			}
		}
	}
	return prims, nil
}

// orchestrator stands in for the operator that provisions primitives:
// it gives each object of a primitive kind a status once, every field
// of the kind's status schema filled (fillStatus), as the real
// orchestrator would once the bucket or database exists. It reports
// what it provisioned.
type orchestrator struct {
	c     *cluster.Cluster
	prims []primitive
	mu    sync.Mutex
	done  map[string]bool // namespace/name of kind, provisioned
	err   error           // the last failure to provision
}

func (o *orchestrator) run(ctx context.Context) {
	for {
		o.serviceAccounts(ctx)
		for _, p := range o.prims {
			list, err := o.c.Dynamic.Resource(p.gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, item := range list.Items {
				key := p.kind + " " + item.GetNamespace() + "/" + item.GetName()
				o.mu.Lock()
				done := o.done[key]
				o.mu.Unlock()
				if done {
					continue
				}
				status := fillStatus(item.GetName(), p.status)
				patch, _ := json.Marshal(map[string]any{"status": status})
				var sub []string
				if p.subresource {
					sub = []string{"status"}
				}
				_, err := o.c.Dynamic.Resource(p.gvr).Namespace(item.GetNamespace()).Patch(ctx, item.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, sub...)
				o.mu.Lock()
				switch {
				case err == nil:
					o.done[key] = true
				case !apierrors.IsNotFound(err):
					o.err = fmt.Errorf("%s: %w", key, err)
				}
				o.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// provisioned lists what the orchestrator gave a status, sorted.
func (o *orchestrator) provisioned() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Sorted(maps.Keys(o.done))
}

// fillStatus makes a status for the object named name from its status
// schema's properties: a string is <name>-<field> (an endpoint field an
// https URL), an integer 1, a number 1, a boolean true, an object filled
// the same way; lists and fields named conditions stay empty, as a
// status that reports nothing wrong.
func fillStatus(name string, props map[string]any) map[string]any {
	out := map[string]any{}
	for field, s := range props {
		s, _ := s.(map[string]any)
		switch s["type"] {
		case "string":
			v := name + "-" + strings.ToLower(field)
			if strings.Contains(strings.ToLower(field), "endpoint") || strings.Contains(strings.ToLower(field), "url") {
				v = fmt.Sprintf("https://%s.%s.invalid", name, strings.ToLower(field))
			}
			out[field] = v
		case "integer", "number":
			out[field] = 1
		case "boolean":
			out[field] = true
		case "object":
			sub, _ := s["properties"].(map[string]any)
			if len(sub) > 0 {
				out[field] = fillStatus(name, sub)
			}
		}
	}
	return out
}

func cloneJSON(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	json.Unmarshal(data, &out)
	return out
}

var (
	projectGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
	saGVR      = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	nsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	crbGVR     = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
)

// serviceAccounts stands in for the cluster's operators where a project
// names the service accounts Argo CD impersonates to sync
// (destinationServiceAccounts): for each Application of such a project,
// the service account its destination's entry names (in the destination
// namespace, or the one written as namespace:name) exists, bound to
// cluster-admin. platc renders the projects, not the accounts: the
// cluster's operators create them, with the rights they choose.
func (o *orchestrator) serviceAccounts(ctx context.Context) {
	projects, err := o.c.Dynamic.Resource(projectGVR).Namespace(o.c.ArgoCDNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	byProject := map[string][]argocd.DestinationServiceAccount{}
	for _, p := range projects.Items {
		items, _, _ := unstructured.NestedSlice(p.Object, "spec", "destinationServiceAccounts")
		for _, it := range items {
			m, _ := it.(map[string]any)
			str := func(k string) string { s, _ := m[k].(string); return s }
			byProject[p.GetName()] = append(byProject[p.GetName()], argocd.DestinationServiceAccount{Server: str("server"), Namespace: str("namespace"), DefaultServiceAccount: str("defaultServiceAccount")})
		}
	}
	if len(byProject) == 0 {
		return
	}
	apps, err := o.c.Dynamic.Resource(appGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, a := range apps.Items {
		project, _, _ := unstructured.NestedString(a.Object, "spec", "project")
		server, _, _ := unstructured.NestedString(a.Object, "spec", "destination", "server")
		ns, _, _ := unstructured.NestedString(a.Object, "spec", "destination", "namespace")
		// Which account Argo CD impersonates is its rule, as platc ports it.
		user, err := argocd.ServiceAccountToImpersonate(byProject[project], a.GetNamespace(), server, ns)
		if rest, ok := strings.CutPrefix(user, "system:serviceaccount:"); err == nil && ok {
			saNS, name, _ := strings.Cut(rest, ":")
			o.ensureAccount(ctx, saNS, name)
		}
	}
}

// ensureAccount makes the service account ns/name, and its namespace, and
// binds it to cluster-admin, once.
func (o *orchestrator) ensureAccount(ctx context.Context, ns, name string) {
	key := "ServiceAccount " + ns + "/" + name
	o.mu.Lock()
	done := o.done[key]
	o.mu.Unlock()
	if done || ns == "" {
		return
	}
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name, "namespace": ns}}},
		{Object: map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
			"metadata": map[string]any{"name": "e2e-" + ns + "-" + name},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": ns}},
		}},
	}
	if err := o.c.Apply(ctx, "", objs...); err != nil {
		o.mu.Lock()
		o.err = fmt.Errorf("%s: %w", key, err)
		o.mu.Unlock()
		return
	}
	o.mu.Lock()
	o.done[key] = true
	o.mu.Unlock()
}
