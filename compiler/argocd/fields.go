package argocd

import (
	"maps"
	"slices"

	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// The pieces of an Application that the spec's Argo CD fields make
// (model/fields.go), shared by render and, where a stack module has them,
// rgd. Each returns nothing where the field is unused, so that an
// Application without them is what it was before.

// SyncPolicyFor is the syncPolicy of an Application with the resolved
// sync policy, the sync options, and the metadata of the namespace it
// creates. The default sync policy gives what SyncPolicy gives.
func SyncPolicyFor(s model.Sync, options []string, ns *model.NamespaceMetadata) *object.Map {
	p := object.NewMap()
	if s.Automated {
		a := object.NewMapCap(3).Set("prune", s.Prune).Set("selfHeal", s.SelfHeal)
		if s.AllowEmpty {
			a.Set("allowEmpty", true)
		}
		p.Set("automated", a)
	}
	if len(options) > 0 {
		p.Set("syncOptions", options)
	}
	if r := s.Retry; r != nil {
		retry := object.NewMap().Set("limit", r.Limit)
		if b := r.Backoff; b != nil {
			backoff := object.NewMap()
			if b.Duration != "" {
				backoff.Set("duration", b.Duration)
			}
			if b.Factor != nil {
				backoff.Set("factor", *b.Factor)
			}
			if b.MaxDuration != "" {
				backoff.Set("maxDuration", b.MaxDuration)
			}
			retry.Set("backoff", backoff)
		}
		if r.Refresh {
			retry.Set("refresh", true)
		}
		p.Set("retry", retry)
	}
	if ns != nil && (len(ns.Labels) > 0 || len(ns.Annotations) > 0) {
		meta := object.NewMap()
		if len(ns.Labels) > 0 {
			meta.Set("labels", StringMap(ns.Labels))
		}
		if len(ns.Annotations) > 0 {
			meta.Set("annotations", StringMap(ns.Annotations))
		}
		p.Set("managedNamespaceMetadata", meta)
	}
	return p
}

// IgnoreDifferencesList is an Application's spec.ignoreDifferences.
func IgnoreDifferencesList(ids []*model.IgnoreDifference) []any {
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		m := object.NewMap()
		if id.Group != "" {
			m.Set("group", id.Group)
		}
		m.Set("kind", id.Kind)
		if id.Name != "" {
			m.Set("name", id.Name)
		}
		if id.Namespace != "" {
			m.Set("namespace", id.Namespace)
		}
		if len(id.JSONPointers) > 0 {
			m.Set("jsonPointers", id.JSONPointers)
		}
		if len(id.JQPathExpressions) > 0 {
			m.Set("jqPathExpressions", id.JQPathExpressions)
		}
		if len(id.ManagedFieldsManagers) > 0 {
			m.Set("managedFieldsManagers", id.ManagedFieldsManagers)
		}
		out = append(out, m)
	}
	return out
}

// RespectsIgnoreDifferences reports whether an Application with these
// ignoreDifferences renders RespectIgnoreDifferences=true: by default
// where it has some.
func RespectsIgnoreDifferences(ids []*model.IgnoreDifference, respect *bool) bool {
	if respect != nil {
		return *respect && len(ids) > 0
	}
	return len(ids) > 0
}

// StringMap is labels or annotations as an object, keys sorted.
func StringMap(m map[string]string) *object.Map {
	out := object.NewMap()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out.Set(k, m[k])
	}
	return out
}
