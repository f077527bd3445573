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
// sync policy, the sync options (RespectIgnoreDifferences=true added
// where respect and they lack it), and the metadata of the namespace it
// creates. The default sync policy gives what SyncPolicy gives.
func SyncPolicyFor(s model.Sync, options []string, respect bool, ns *model.NamespaceMetadata) *object.Map {
	if respect && !slices.Contains(options, RespectIgnoreDifferences) {
		options = append(options, RespectIgnoreDifferences)
	}
	p := object.NewMap()
	if s.Automated {
		a := object.NewMapCap(3).Set("prune", s.Prune).Set("selfHeal", s.SelfHeal)
		p.Set("automated", a.SetIf(s.AllowEmpty, "allowEmpty", true))
	}
	p.SetIf(len(options) > 0, "syncOptions", options)
	if r := s.Retry; r != nil {
		retry := object.NewMap().Set("limit", r.Limit)
		if b := r.Backoff; b != nil {
			backoff := object.NewMap().SetIf(b.Duration != "", "duration", b.Duration)
			if b.Factor != nil {
				backoff.Set("factor", *b.Factor)
			}
			retry.Set("backoff", backoff.SetIf(b.MaxDuration != "", "maxDuration", b.MaxDuration))
		}
		p.Set("retry", retry.SetIf(r.Refresh, "refresh", true))
	}
	if ns != nil && (len(ns.Labels) > 0 || len(ns.Annotations) > 0) {
		p.Set("managedNamespaceMetadata", object.NewMap().
			SetIf(len(ns.Labels) > 0, "labels", StringMap(ns.Labels)).
			SetIf(len(ns.Annotations) > 0, "annotations", StringMap(ns.Annotations)))
	}
	return p
}

// IgnoreDifferencesList is an Application's spec.ignoreDifferences.
func IgnoreDifferencesList(ids []*model.IgnoreDifference) []any {
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, object.NewMap().
			SetIf(id.Group != "", "group", id.Group).
			Set("kind", id.Kind).
			SetIf(id.Name != "", "name", id.Name).
			SetIf(id.Namespace != "", "namespace", id.Namespace).
			SetIf(len(id.JSONPointers) > 0, "jsonPointers", id.JSONPointers).
			SetIf(len(id.JQPathExpressions) > 0, "jqPathExpressions", id.JQPathExpressions).
			SetIf(len(id.ManagedFieldsManagers) > 0, "managedFieldsManagers", id.ManagedFieldsManagers))
	}
	return out
}

// SetSync sets an Application spec's syncPolicy, then its
// ignoreDifferences and revisionHistoryLimit where it has them.
func SetSync(spec, policy *object.Map, ids []*model.IgnoreDifference, revisionHistoryLimit *int64) {
	spec.Set("syncPolicy", policy)
	if len(ids) > 0 {
		spec.Set("ignoreDifferences", IgnoreDifferencesList(ids))
	}
	if revisionHistoryLimit != nil {
		spec.Set("revisionHistoryLimit", *revisionHistoryLimit)
	}
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
