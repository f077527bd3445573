package deliver

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// VerdictKwok: Synced, and not Healthy only because of what kwok does
// not play. kwok fakes pods: they run no container, so an operator's
// controller never writes the status of the custom resources it would
// reconcile, and the API server cannot reach a Service whose pods they
// are (an aggregated APIService stays unavailable). App.Kwok says which
// resources and why; any other resource that is not Healthy keeps the
// Application waiting, and so failed.
const VerdictKwok = "kwok"

// kwokVerdicts judges each waiting Application that is Synced and
// Progressing or Degraded by its resources that are not Healthy: where
// each is one kwok cannot make Healthy (kwokReason), its verdict is
// VerdictKwok.
func (e *Env) kwokVerdicts(ctx context.Context, apps []*App) error {
	// The Applications that sync each CRD: its operator's.
	owners := map[string]string{}
	for _, a := range apps {
		for _, r := range a.resources {
			if r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition" {
				owners[r.name] = a.Namespace + "/" + a.Name
			}
		}
	}
	for _, a := range apps {
		if a.Verdict != VerdictWaiting || a.Sync != "Synced" || (a.Health != "Progressing" && a.Health != "Degraded") {
			continue
		}
		var why []string
		for _, r := range a.resources {
			if r.health == "" || r.health == "Healthy" {
				continue
			}
			obj, crd, err := e.liveObject(ctx, r)
			if err != nil {
				return err
			}
			reason := kwokReason(r, obj, owners[crd])
			if reason == "" {
				why = nil
				break
			}
			why = append(why, reason)
		}
		if len(why) > 0 {
			a.Verdict, a.Kwok = VerdictKwok, why
		}
	}
	return nil
}

// liveObject reads a resource an Application syncs, and names the CRD
// that serves its kind (plural.group) where one does.
func (e *Env) liveObject(ctx context.Context, r liveResource) (map[string]any, string, error) {
	mapping, err := e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: r.group, Kind: r.kind}, r.version)
	if err != nil {
		e.Cluster.Mapper.Reset()
		if mapping, err = e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: r.group, Kind: r.kind}, r.version); err != nil {
			return nil, "", nil // not served: no reason kwok gives
		}
	}
	crd := ""
	if r.group != "" {
		crd = mapping.Resource.Resource + "." + r.group
	}
	ri := e.Cluster.Dynamic.Resource(mapping.Resource)
	var u *unstructured.Unstructured
	if r.namespace != "" {
		u, err = ri.Namespace(r.namespace).Get(ctx, r.name, metav1.GetOptions{})
	} else {
		u, err = ri.Get(ctx, r.name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, crd, nil
	}
	if err != nil {
		return nil, "", err
	}
	return u.Object, crd, nil
}

// kwokReason says why a resource that Argo CD does not find Healthy
// cannot be Healthy on kwok, or "" where that is not the reason:
//   - an APIService whose Available condition is False because the API
//     server cannot reach its Service (FailedDiscoveryCheck,
//     MissingEndpoints): the Service's pods are kwok's, which serve
//     nothing;
//   - a custom resource whose status nobody has written, whose CRD an
//     Application of the platform syncs (owner): that operator's
//     controller, which would write it, runs here as kwok's pods.
func kwokReason(r liveResource, obj map[string]any, owner string) string {
	name := strings.TrimPrefix(r.namespace+"/"+r.name, "/")
	if obj == nil {
		return ""
	}
	if r.group == "apiregistration.k8s.io" && r.kind == "APIService" {
		conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Available" && m["status"] == "False" && (m["reason"] == "FailedDiscoveryCheck" || m["reason"] == "MissingEndpoints") {
				svc, _, _ := unstructured.NestedString(obj, "spec", "service", "name")
				ns, _, _ := unstructured.NestedString(obj, "spec", "service", "namespace")
				return fmt.Sprintf("APIService %s is not Available (%s): the API server cannot reach Service %s/%s, whose pods kwok fakes", name, m["reason"], ns, svc)
			}
		}
		return ""
	}
	if owner == "" {
		return ""
	}
	if status, ok := obj["status"].(map[string]any); ok && len(status) > 0 {
		return ""
	}
	return fmt.Sprintf("%s %s has no status: %s's controller, which writes it, runs here as kwok's fake pods", r.kind, name, owner)
}
