package argocd

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/object"
)

// Cluster is a cluster Argo CD knows: its API server URL and its name.
// Offline a field may be unknown (""): the server of a cluster that an
// Application names, or the name of one it gives by server, where the
// cluster is not one platc knows.
type Cluster struct {
	Server, Name string
}

// InCluster is the cluster Argo CD runs in, as Argo CD knows it
// without a cluster secret (util/db getLocalCluster).
var InCluster = Cluster{Server: InClusterServer, Name: InClusterName}

// InClusterName is the name Argo CD gives the cluster it runs in.
const InClusterName = "in-cluster"

// Destination is where an Application deploys: a cluster by server or by
// name, and a namespace.
type Destination struct {
	Server, Name, Namespace string
}

// IsInCluster reports whether a destination names the cluster Argo CD
// runs in, by its server (a "/" at the end ignored) or by its name
// in-cluster: the one cluster Argo CD knows without a cluster Secret.
func IsInCluster(d Destination) bool {
	switch {
	case d.Name != "" && d.Server != "":
		return false // not one cluster: Argo CD refuses it
	case d.Name != "":
		return d.Name == InClusterName
	}
	return strings.TrimRight(d.Server, "/") == InClusterServer
}

// errDestinationMissing is util/argo's ErrDestinationMissing (Argo CD).
const errDestinationMissing = "Destination server missing from app spec"

// DestinationCluster is util/argo.GetDestinationCluster of Argo CD
// over the clusters platc knows: the cluster an Application's destination
// names, by server (a "/" at the end ignored) or by name. A cluster that
// none of them is comes back with the field the destination gives and the
// other unknown; whether Argo CD has it registered only the cluster knows.
func DestinationCluster(dest Destination, clusters []Cluster) (Cluster, error) {
	switch {
	case dest.Name != "" && dest.Server != "":
		return Cluster{}, fmt.Errorf("application destination can't have both name and server defined: %s %s", dest.Name, dest.Server)
	case dest.Server != "":
		server := strings.TrimRight(dest.Server, "/")
		for _, c := range clusters {
			if c.Server == server {
				return c, nil
			}
		}
		return Cluster{Server: server}, nil
	case dest.Name != "":
		var servers []string
		var found Cluster
		for _, c := range clusters {
			if c.Name == dest.Name {
				servers = append(servers, c.Server)
				found = c
			}
		}
		switch len(servers) {
		case 0:
			return Cluster{Name: dest.Name}, nil
		case 1:
			return found, nil
		}
		return Cluster{}, fmt.Errorf("there are %d clusters with the same name: [%s]", len(servers), strings.Join(servers, " "))
	}
	return Cluster{}, errors.New(errDestinationMissing)
}

// App is what Argo CD's rules read of an Application.
type App struct {
	Name, Namespace string
	Project         string // "" is "default"
	// Sources are spec.sources where it is set (MultipleSources), else
	// spec.source alone.
	Sources         []Source
	MultipleSources bool
	Destination     Destination
	SyncOptions     []string
}

// Source is one source of an Application.
type Source struct {
	RepoURL, Path, Chart, Ref, TargetRevision string
	// Types are the source types it sets (helm, kustomize, directory,
	// plugin), in that order.
	Types []string
}

// AppFromObject reads an Application object (an *object.Map as
// rendered, or plain data from kro's preview).
func AppFromObject(obj any) App {
	// Each map is looked up once: verify reads every Application so.
	meta, spec := object.Lookup(obj, "metadata"), object.Lookup(obj, "spec")
	dest := object.Lookup(spec, "destination")
	a := App{
		Name:      str(meta, "name"),
		Namespace: str(meta, "namespace"),
		Project:   str(spec, "project"),
		Destination: Destination{
			Server:    str(dest, "server"),
			Name:      str(dest, "name"),
			Namespace: str(dest, "namespace"),
		},
		SyncOptions: stringList(object.Lookup(spec, "syncPolicy", "syncOptions")),
	}
	// ApplicationSpec.HasMultipleSources: spec.sources wins where it has
	// any source.
	if l := list(object.Lookup(spec, "sources")); len(l) > 0 {
		a.MultipleSources = true
		for _, s := range l {
			a.Sources = append(a.Sources, sourceFromObject(s))
		}
	} else if s := object.Lookup(spec, "source"); s != nil {
		a.Sources = []Source{sourceFromObject(s)}
	} else {
		a.Sources = []Source{{}}
	}
	return a
}

func sourceFromObject(s any) Source {
	src := Source{
		RepoURL: str(s, "repoURL"), Path: str(s, "path"), Chart: str(s, "chart"),
		Ref: str(s, "ref"), TargetRevision: str(s, "targetRevision"),
	}
	for i, t := range sourceTypes {
		// NormalizeApplicationSpec (util/argo) drops a block whose every
		// field is zero, of each source (of the first only before 3.6).
		if v := object.Lookup(s, t); v == nil || zeroValue(v) {
			continue
		}
		if src.Types == nil {
			// One type, the usual case, shares the table's.
			src.Types = sourceTypes[i : i+1 : i+1]
		} else {
			src.Types = append(src.Types, t)
		}
	}
	return src
}

// zeroValue reports whether a value of an object is its type's zero once
// decoded into Argo CD's Go types: "", false, 0, null, or a list or map of
// nothing but zero values (a struct whose fields are all zero; IsZero of
// ApplicationSourceHelm, Kustomize, Directory and Plugin).
func zeroValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int:
		return v == 0
	case int64:
		return v == 0
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, f := range v {
			if !zeroValue(f) {
				return false
			}
		}
		return true
	case *object.Map:
		zero := true
		v.Each(func(_ string, f any) { zero = zero && zeroValue(f) })
		return zero
	}
	return false
}

// sourceTypes are the source types in ApplicationSource.ExplicitType's
// order; read-only.
var sourceTypes = []string{"kustomize", "helm", "directory", "plugin"}

// ProjectName is the project the Application uses (ApplicationSpec.GetProject).
func (a App) ProjectName() string {
	if a.Project == "" {
		return DefaultProjectName
	}
	return a.Project
}

// HasSyncOption reports whether the Application sets a sync option.
func (a App) HasSyncOption(option string) bool {
	return slices.Contains(a.SyncOptions, option)
}

// ConditionKind says what a condition of ValidatePermissions is about.
type ConditionKind int

const (
	// InvalidSource: a source lacks what its kind needs.
	InvalidSource ConditionKind = iota
	// SourceNotPermitted: the project does not permit a source's repository.
	SourceNotPermitted
	// InvalidDestination: the destination names no cluster, or two.
	InvalidDestination
	// DestinationNotPermitted: the project does not permit the destination.
	DestinationNotPermitted
)

// Condition is a problem util/argo.ValidatePermissions reports, with
// Argo CD's message.
type Condition struct {
	Kind    ConditionKind
	Source  int // the source's index, for the source conditions
	Message string
}

// ValidatePermissions is util/argo.ValidatePermissions of Argo CD,
// offline: every source is well-formed and permitted by the project, the
// destination names a cluster, and the project permits it there
// (DestinationCluster over clusters, then IsDestinationPermitted). Where
// the answer depends on what only the cluster knows (a cluster platc does
// not know, the project's own clusters), it reports nothing of the
// destination. Argo CD stops at the first malformed source, as this does.
func ValidatePermissions(a App, p *Project, clusters []Cluster) []Condition {
	return (&Permissions{Clusters: clusters}).Validate(a, p)
}

// Permissions is ValidatePermissions for many Applications, over the same
// clusters: it normalizes each repository URL once. It is not safe for
// concurrent use.
type Permissions struct {
	Clusters []Cluster
	urls     map[string]string // NormalizeGitURL, memoized
}

// Validate is ValidatePermissions of one Application.
func (ps *Permissions) Validate(a App, p *Project) []Condition {
	var out []Condition
	for i, src := range a.Sources {
		if c, bad := validateSourcePermissions(src, a.MultipleSources); bad {
			c.Source = i
			return append(out, c)
		}
		if !p.isNormalizedSourcePermitted(ps.normalize(src.RepoURL)) {
			out = append(out, Condition{Kind: SourceNotPermitted, Source: i, Message: fmt.Sprintf("application repo %s is not permitted in project '%s'", src.RepoURL, p.Name)})
		}
	}
	c, err := DestinationCluster(a.Destination, ps.Clusters)
	if err != nil {
		return append(out, Condition{Kind: InvalidDestination, Message: err.Error()})
	}
	if permitted, known := p.IsDestinationPermitted(c, a.Destination.Namespace); known && !permitted {
		server := c.Server
		if a.Destination.Name != "" {
			server = c.Name
		}
		out = append(out, Condition{Kind: DestinationNotPermitted, Message: fmt.Sprintf("application destination server '%s' and namespace '%s' do not match any of the allowed destinations in project '%s'", server, a.Destination.Namespace, p.Name)})
	}
	return out
}

func (ps *Permissions) normalize(repo string) string {
	n, ok := ps.urls[repo]
	if !ok {
		if ps.urls == nil {
			ps.urls = map[string]string{}
		}
		n = NormalizeGitURL(repo)
		ps.urls[repo] = n
	}
	return n
}

// validateSourcePermissions is util/argo's (Argo CD). Its message
// for one of many sources prints the source as Go prints Argo CD's
// struct; this one names the source by its repository.
func validateSourcePermissions(src Source, multiple bool) (Condition, bool) {
	if multiple {
		if src.RepoURL == "" || (src.Path == "" && src.Chart == "" && src.Ref == "") {
			return Condition{Kind: InvalidSource, Message: fmt.Sprintf("spec.source.repoURL and either source.path, source.chart, or source.ref are required for source %s", src.RepoURL)}, true
		}
	} else if src.RepoURL == "" || (src.Path == "" && src.Chart == "") {
		return Condition{Kind: InvalidSource, Message: "spec.source.repoURL and either spec.source.path or spec.source.chart are required"}, true
	}
	if src.Chart != "" && src.TargetRevision == "" {
		return Condition{Kind: InvalidSource, Message: "spec.source.targetRevision is required if the manifest source is a helm chart"}, true
	}
	return Condition{}, false
}

// validRefKey is GetRefSources' rule for a ref (util/argo, Argo CD).
// Like every pattern of the package, it is compiled on first use: compiled
// at package initialization, every process start would pay for it, also a
// run that validates nothing.
var validRefKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) })

// SourceProblems are what Argo CD refuses of the sources before it
// generates manifests, offline: a ref with other characters than letters,
// digits, '_' and '-', or named twice (util/argo.GetRefSources), and a
// source of more than one type (ApplicationSource.ExplicitType). Argo CD's
// messages, with the index of the source.
func (a App) SourceProblems() []Condition {
	var out []Condition
	refs := map[string]bool{}
	for i, s := range a.Sources {
		if s.Ref != "" {
			switch {
			case !validRefKey().MatchString(s.Ref):
				out = append(out, Condition{Kind: InvalidSource, Source: i, Message: fmt.Sprintf("sources.ref %s cannot contain any special characters except '_' and '-'", s.Ref)})
			case refs[s.Ref]:
				out = append(out, Condition{Kind: InvalidSource, Source: i, Message: "invalid sources: multiple sources had the same `ref` key"})
			}
			refs[s.Ref] = true
		}
		if len(s.Types) > 1 {
			out = append(out, Condition{Kind: InvalidSource, Source: i, Message: "multiple application sources defined: " + strings.Join(s.Types, ",")})
		}
	}
	return out
}

// IsDNSSubdomain says whether s is a Kubernetes DNS-1123 subdomain
// (apimachinery's IsDNS1123Subdomain: at most 253 characters matching
// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*), the
// rule of an Application's name and of a label key's prefix: labels of
// lower-case letters, digits and '-', each starting and ending with a
// letter or digit, joined by dots. TestDNSSubdomainIsThePattern holds it
// to the pattern.
func IsDNSSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	start := 0 // of the current label
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if i == start || s[start] == '-' || s[i-1] == '-' {
				return false // an empty label, or one with '-' at an end
			}
			start = i + 1
			continue
		}
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// IsValidAppName is util/argo.IsValidAppName of Argo CD: a DNS-1123
// subdomain of at most 253 characters, as a Pod's name.
func IsValidAppName(name string) bool {
	return IsDNSSubdomain(name)
}
