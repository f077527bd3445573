package conformance

import (
	"context"
	"fmt"
	"slices"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/db"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/platc/platc/compiler/argocd"
)

// clusterDB is the part of Argo CD's database that ValidatePermissions
// reads: the clusters, by server and by name. Every other method of
// db.ArgoDB panics (the embedded nil interface): ValidatePermissions must
// not call them.
type clusterDB struct {
	db.ArgoDB
	clusters []argocd.Cluster
}

func (d clusterDB) GetCluster(_ context.Context, server string) (*v1alpha1.Cluster, error) {
	for _, c := range d.clusters {
		if c.Server == server {
			return &v1alpha1.Cluster{Server: c.Server, Name: c.Name}, nil
		}
	}
	return nil, fmt.Errorf("cluster %q not found", server)
}

func (d clusterDB) GetClusterServersByName(_ context.Context, name string) ([]string, error) {
	var out []string
	for _, c := range d.clusters {
		if c.Name == name {
			out = append(out, c.Server)
		}
	}
	return out, nil
}

func (d clusterDB) GetProjectClusters(context.Context, string) ([]*v1alpha1.Cluster, error) {
	return nil, nil
}

// upstreamProject is the AppProject Argo CD reads from platc's spec.
func upstreamProject(name string, s argocd.ProjectSpec) *v1alpha1.AppProject {
	p := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd"}}
	p.Spec.SourceRepos = slices.Clone(s.SourceRepos)
	p.Spec.SourceNamespaces = slices.Clone(s.SourceNamespaces)
	p.Spec.PermitOnlyProjectScopedClusters = s.PermitOnlyProjectScopedClusters
	for _, d := range s.Destinations {
		p.Spec.Destinations = append(p.Spec.Destinations, v1alpha1.ApplicationDestination{Server: d.Server, Name: d.Name, Namespace: d.Namespace})
	}
	p.Spec.ClusterResourceWhitelist = restrictionItems(s.ClusterResourceWhitelist)
	p.Spec.ClusterResourceBlacklist = restrictionItems(s.ClusterResourceBlacklist)
	p.Spec.NamespaceResourceWhitelist = groupKinds(s.NamespaceResourceWhitelist)
	p.Spec.NamespaceResourceBlacklist = groupKinds(s.NamespaceResourceBlacklist)
	for _, r := range s.Roles {
		p.Spec.Roles = append(p.Spec.Roles, v1alpha1.ProjectRole{Name: r.Name, Policies: slices.Clone(r.Policies), Groups: slices.Clone(r.Groups)})
	}
	for _, w := range s.SyncWindows {
		p.Spec.SyncWindows = append(p.Spec.SyncWindows, &v1alpha1.InlineSyncWindow{
			Kind: w.Kind, Schedule: w.Schedule, Duration: w.Duration, TimeZone: w.TimeZone, Description: w.Description,
			Applications: slices.Clone(w.Applications), Namespaces: slices.Clone(w.Namespaces), Clusters: slices.Clone(w.Clusters),
			ManualSync: w.ManualSync, UseAndOperator: w.UseAndOperator,
		})
	}
	for _, d := range s.DestinationServiceAccounts {
		p.Spec.DestinationServiceAccounts = append(p.Spec.DestinationServiceAccounts, v1alpha1.ApplicationDestinationServiceAccount{Server: d.Server, Namespace: d.Namespace, DefaultServiceAccount: d.DefaultServiceAccount})
	}
	return p
}

func restrictionItems(rules []argocd.ResourceRule) []v1alpha1.ClusterResourceRestrictionItem {
	if rules == nil {
		return nil
	}
	out := []v1alpha1.ClusterResourceRestrictionItem{}
	for _, r := range rules {
		out = append(out, v1alpha1.ClusterResourceRestrictionItem{Group: r.Group, Kind: r.Kind, Name: r.Name})
	}
	return out
}

func groupKinds(rules []argocd.ResourceRule) []metav1.GroupKind {
	if rules == nil {
		return nil
	}
	out := []metav1.GroupKind{}
	for _, r := range rules {
		out = append(out, metav1.GroupKind{Group: r.Group, Kind: r.Kind})
	}
	return out
}

// upstreamApp is the Application Argo CD reads from platc's view of one.
func upstreamApp(a argocd.App) *v1alpha1.Application {
	app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: a.Name, Namespace: a.Namespace}}
	app.Spec.Project = a.Project
	app.Spec.Destination = v1alpha1.ApplicationDestination{Server: a.Destination.Server, Name: a.Destination.Name, Namespace: a.Destination.Namespace}
	for _, s := range a.Sources {
		src := v1alpha1.ApplicationSource{RepoURL: s.RepoURL, Path: s.Path, Chart: s.Chart, Ref: s.Ref, TargetRevision: s.TargetRevision}
		if a.MultipleSources {
			app.Spec.Sources = append(app.Spec.Sources, src)
		} else {
			app.Spec.Source = &src
		}
	}
	return app
}

// upstreamNamespacePermitted is AppProject.IsAppNamespacePermitted, where
// a panic (Argo CD slices "/" as ll[1:0]) counts as a refusal.
func upstreamNamespacePermitted(p *v1alpha1.AppProject, ns string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return p.IsAppNamespacePermitted(&v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: ns}}, "argocd")
}

func upstreamGroupKindPermitted(p *v1alpha1.AppProject, group, kind, name string, namespaced bool) bool {
	return p.IsGroupKindNamePermitted(schema.GroupKind{Group: group, Kind: kind}, name, namespaced)
}
