package argocd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/platc/platc/compiler/object"
)

// ProjectSpec is what Argo CD's rules read of an AppProject's spec.
type ProjectSpec struct {
	SourceRepos      []string
	Destinations     []ProjectDestination
	SourceNamespaces []string
	// ClusterResourceWhitelist and ClusterResourceBlacklist name
	// cluster-scoped kinds (and, since Argo CD 3.1, resources by name).
	ClusterResourceWhitelist, ClusterResourceBlacklist []ResourceRule
	// NamespaceResourceWhitelist is nil where the project sets none (every
	// namespaced kind is permitted), and empty where it sets an empty list
	// (none is).
	NamespaceResourceWhitelist []ResourceRule
	NamespaceResourceBlacklist []ResourceRule
	// PermitOnlyProjectScopedClusters limits the destinations to the
	// project's own clusters, which only the cluster knows.
	PermitOnlyProjectScopedClusters bool
	// Roles, SyncWindows and DestinationServiceAccounts are what
	// ValidateProject checks beyond the lists above (fields.go of the
	// spec); SignatureKeys are GnuPG key IDs.
	Roles                      []Role
	SyncWindows                []SyncWindow
	DestinationServiceAccounts []DestinationServiceAccount
	SignatureKeys              []string
}

// ProjectDestination is a destination an AppProject permits: patterns for
// the cluster's server or name, and for the namespace.
type ProjectDestination struct {
	Server, Name, Namespace string
}

// ResourceRule is an entry of a resource list of an AppProject: shell
// patterns (filepath.Match) for the API group and the kind, and, in the
// cluster resource lists, for the name ("" for any).
type ResourceRule struct {
	Group, Kind, Name string
}

// Project is an AppProject as Argo CD's rules see it, its patterns compiled
// once: a project checks many Applications. Its spec must not change after
// NewProject.
type Project struct {
	Name string
	spec ProjectSpec

	sources    []sourcePattern
	dests      []destinationPattern
	namespaces namespaceList
}

type sourcePattern struct {
	normalized string // as IsSourcePermitted writes it: "!" kept before a denial
	glob       projectGlob
}

type destinationPattern struct {
	ProjectDestination
	server, name, namespace projectGlob
}

// NewProject compiles the patterns of an AppProject's spec.
func NewProject(name string, spec ProjectSpec) *Project {
	p := &Project{Name: name, spec: spec, namespaces: compileNamespaceList(spec.SourceNamespaces)}
	for _, repoURL := range spec.SourceRepos {
		// AppProject.IsSourcePermitted, Argo CD: each pattern is
		// normalized as a URL, a denial after its "!".
		var normalized string
		if isDenyPattern(repoURL) {
			normalized = "!" + NormalizeGitURL(strings.TrimPrefix(repoURL, "!"))
		} else {
			normalized = NormalizeGitURL(repoURL)
		}
		p.sources = append(p.sources, sourcePattern{normalized: normalized, glob: compileProjectGlob(normalized, true, '/')})
	}
	for _, d := range spec.Destinations {
		p.dests = append(p.dests, destinationPattern{
			ProjectDestination: d,
			server:             compileProjectGlob(d.Server, true),
			name:               compileProjectGlob(d.Name, true),
			namespace:          compileProjectGlob(d.Namespace, true),
		})
	}
	return p
}

// Spec returns the project's spec.
func (p *Project) Spec() ProjectSpec { return p.spec }

// DefaultProject is the project "default" as Argo CD creates it when
// it is missing (initializeDefaultProject, server/server.go): every source
// repository, every destination, every cluster-scoped kind, and no source
// namespaces, so that it holds no Application outside Argo CD's namespace.
func DefaultProject() *Project {
	return NewProject(DefaultProjectName, ProjectSpec{
		SourceRepos:              []string{"*"},
		Destinations:             []ProjectDestination{{Server: "*", Namespace: "*"}},
		ClusterResourceWhitelist: []ResourceRule{{Group: "*", Kind: "*"}},
	})
}

// ProjectFromObject reads an AppProject object (an *object.Map as
// rendered, or plain data).
func ProjectFromObject(obj any) *Project {
	spec := object.Lookup(obj, "spec")
	ps := ProjectSpec{
		SourceRepos:                     stringList(object.Lookup(spec, "sourceRepos")),
		SourceNamespaces:                stringList(object.Lookup(spec, "sourceNamespaces")),
		ClusterResourceWhitelist:        resourceRules(object.Lookup(spec, "clusterResourceWhitelist")),
		ClusterResourceBlacklist:        resourceRules(object.Lookup(spec, "clusterResourceBlacklist")),
		NamespaceResourceWhitelist:      resourceRules(object.Lookup(spec, "namespaceResourceWhitelist")),
		NamespaceResourceBlacklist:      resourceRules(object.Lookup(spec, "namespaceResourceBlacklist")),
		PermitOnlyProjectScopedClusters: object.Lookup(spec, "permitOnlyProjectScopedClusters") == true,
	}
	for _, d := range list(object.Lookup(spec, "destinations")) {
		ps.Destinations = append(ps.Destinations, ProjectDestination{Server: str(d, "server"), Name: str(d, "name"), Namespace: str(d, "namespace")})
	}
	readProjectFields(&ps, spec)
	return NewProject(str(obj, "metadata", "name"), ps)
}

// IsSourcePermitted is AppProject.IsSourcePermitted of Argo CD: the
// repository, normalized (NormalizeGitURL), matches a pattern (globs, "/"
// a separator) and no denial ("!pattern") excludes it.
func (p *Project) IsSourcePermitted(repoURL string) bool {
	return p.isNormalizedSourcePermitted(NormalizeGitURL(repoURL))
}

// isNormalizedSourcePermitted is IsSourcePermitted of a normalized URL.
func (p *Project) isNormalizedSourcePermitted(src string) bool {
	anySourceMatched := false
	for _, s := range p.sources {
		matched := s.glob.match(src)
		if matched {
			anySourceMatched = true
		} else if isDenyPattern(s.normalized) {
			return false
		}
	}
	return anySourceMatched
}

// IsDestinationPermitted is AppProject.IsDestinationPermitted of Argo CD
// for the cluster an Application's destination names (see
// DestinationCluster) and its namespace. A project destination matches the
// cluster by server or by name, whichever way the Application gives it.
//
// known is false where the answer depends on what only the cluster knows:
// a field of the cluster that is not known offline (Cluster), or the
// project's own clusters (permitOnlyProjectScopedClusters). Where known,
// permitted is Argo CD's answer.
func (p *Project) IsDestinationPermitted(c Cluster, namespace string) (permitted, known bool) {
	permitted, known = p.isDestinationMatched(c, namespace)
	if known && permitted && p.spec.PermitOnlyProjectScopedClusters {
		return false, false
	}
	return permitted, known
}

// isDestinationMatched is AppProject.isDestinationMatched of Argo CD
// (pkg/apis/application/v1alpha1/app_project_types.go, v3.6.2).
// Where a field of the cluster is unknown, each destination's match
// of it may go either way: the answer is known when every way gives the
// same one.
//
// Since v3.6.2, a deny pattern of a destination's name or server that
// matches the cluster (its pattern after "!" matches the cluster's name
// or server) refuses it wherever the destination's namespace matches,
// even where the destination's other field matches the cluster: before,
// {server: "*", name: "!prod"} permitted prod, its server matching.
// Argo CD tests the veto only for a cluster field that is not empty, as
// a registered cluster's are; platc's unknown field stands for one.
func (p *Project) isDestinationMatched(c Cluster, namespace string) (permitted, known bool) {
	// Per destination, the outcomes its unknown match can give: a match,
	// a refusal (Argo CD returns false at once), or neither.
	everyNonRefusing, someMatching, someRefusing, everyNeutral := true, false, false, true
	for _, d := range p.dests {
		nsMatched := d.namespace.match(namespace)
		canMatch, canRefuse, canNeither := false, false, false
		for _, nameMatched := range fieldMatches(d.name, d.Name, c.Name) {
			for _, serverMatched := range fieldMatches(d.server, d.Server, c.Server) {
				// The deny pattern's own glob matches the field exactly
				// where the denial (d.name, d.server) does not. Argo CD's
				// case after the match, a denial that does not match
				// in a matching namespace, is this veto where the
				// cluster's fields are not empty.
				veto := nsMatched && (isDenyPattern(d.Name) && !nameMatched || isDenyPattern(d.Server) && !serverMatched)
				switch {
				case veto:
					canRefuse = true
				case (serverMatched || nameMatched) && nsMatched:
					canMatch = true
				case !nsMatched && isDenyPattern(d.Namespace) && serverMatched:
					canRefuse = true
				default:
					canNeither = true
				}
			}
		}
		if !canMatch && !canNeither {
			everyNonRefusing = false
		}
		someMatching = someMatching || canMatch
		someRefusing = someRefusing || canRefuse
		everyNeutral = everyNeutral && canNeither
	}
	canTrue := everyNonRefusing && someMatching
	canFalse := someRefusing || everyNeutral
	if canTrue && canFalse {
		return false, false
	}
	return canTrue, true
}

// Denial is how a destination of a project refuses a cluster and a
// namespace, whatever its other destinations permit: isDestinationMatched
// of Argo CD returns false at it.
type Denial int

const (
	// NotDenied: no destination refuses the cluster by a denial, for
	// certain.
	NotDenied Denial = iota
	// DeniedCluster: the destination's name or server denies the cluster
	// ("!prod") and its namespace matches: the veto Argo CD has since v3.6.2,
	// which holds even where the destination's other field matches.
	DeniedCluster
	// DeniedNamespace: the destination's namespace denies the namespace
	// ("!kube-system") and its server matches the cluster.
	DeniedNamespace
)

// DenyingDestination is the first destination of the project that
// refuses the cluster in namespace by a denial (Argo CD returns false at
// it), with how it does; -1 and NotDenied where none does for certain.
// It says why IsDestinationPermitted refuses: adding a destination does
// not help where one denies.
func (p *Project) DenyingDestination(c Cluster, namespace string) (int, Denial) {
	for i, d := range p.dests {
		nsMatched := d.namespace.match(namespace)
		how := NotDenied
		every := true
		for _, nameMatched := range fieldMatches(d.name, d.Name, c.Name) {
			for _, serverMatched := range fieldMatches(d.server, d.Server, c.Server) {
				switch {
				case nsMatched && (isDenyPattern(d.Name) && !nameMatched || isDenyPattern(d.Server) && !serverMatched):
					how = DeniedCluster
				case (serverMatched || nameMatched) && nsMatched:
					every = false
				case !nsMatched && isDenyPattern(d.Namespace) && serverMatched:
					how = DeniedNamespace
				default:
					every = false
				}
			}
		}
		if every && how != NotDenied {
			return i, how
		}
	}
	return -1, NotDenied
}

// fieldMatches is what matching a destination pattern against a field of
// a cluster can give: the match itself where the field is known, and
// where it is not (a registered cluster has both, so the real one is not
// empty), false for an empty pattern, true for "*", either for others.
func fieldMatches(g projectGlob, pat, value string) []bool {
	if value != "" {
		if g.match(value) {
			return aMatch
		}
		return noMatch
	}
	switch pat {
	case "":
		return noMatch
	case "*":
		return aMatch
	}
	return eitherMatch
}

// The answers fieldMatches gives, read-only: it allocates nothing.
var (
	noMatch     = []bool{false}
	aMatch      = []bool{true}
	eitherMatch = []bool{false, true}
)

// IsGroupKindPermitted is AppProject.IsGroupKindNamePermitted of Argo CD:
// a namespaced kind is permitted unless a namespace whitelist is
// set and misses it or the blacklist has it; a cluster-scoped kind (with
// its name) must be on the cluster whitelist and not on the blacklist.
func (p *Project) IsGroupKindPermitted(group, kind, name string, namespaced bool) bool {
	if namespaced {
		white, black := p.spec.NamespaceResourceWhitelist, p.spec.NamespaceResourceBlacklist
		whiteListed := white == nil || len(white) != 0 && isResourceInList(group, kind, white)
		blackListed := len(black) != 0 && isResourceInList(group, kind, black)
		return whiteListed && !blackListed
	}
	white, black := p.spec.ClusterResourceWhitelist, p.spec.ClusterResourceBlacklist
	whiteListed := len(white) != 0 && isNamedResourceInList(group, kind, name, white)
	blackListed := len(black) != 0 && isNamedResourceInList(group, kind, name, black)
	return whiteListed && !blackListed
}

// NamespacedRefusal says why IsGroupKindPermitted refuses the namespaced
// kind: a namespace whitelist that misses it, a blacklist that has it, or
// both.
func (p *Project) NamespacedRefusal(group, kind string) (notWhitelisted, blacklisted bool) {
	white, black := p.spec.NamespaceResourceWhitelist, p.spec.NamespaceResourceBlacklist
	notWhitelisted = !(white == nil || len(white) != 0 && isResourceInList(group, kind, white))
	blacklisted = len(black) != 0 && isResourceInList(group, kind, black)
	return notWhitelisted, blacklisted
}

// isResourceInList is pkg/apis/application/v1alpha1/types.go's (Argo
// CD): shell patterns on kind and group, names not read.
func isResourceInList(group, kind string, list []ResourceRule) bool {
	for _, item := range list {
		ok, err := filepath.Match(item.Kind, kind)
		if ok && err == nil {
			ok, err = filepath.Match(item.Group, group)
			if ok && err == nil {
				return true
			}
		}
	}
	return false
}

// isNamedResourceInList is pkg/apis/application/v1alpha1/types.go's (Argo
// CD): shell patterns on kind, group and name, an empty name any.
func isNamedResourceInList(group, kind, name string, list []ResourceRule) bool {
	for _, item := range list {
		ok, err := filepath.Match(item.Kind, kind)
		if !ok || err != nil {
			continue
		}
		ok, err = filepath.Match(item.Group, group)
		if !ok || err != nil {
			continue
		}
		if item.Name == "" {
			return true
		}
		ok, err = filepath.Match(item.Name, name)
		if !ok || err != nil {
			continue
		}
		return true
	}
	return false
}

// IsAppNamespacePermitted is AppProject.IsAppNamespacePermitted of Argo CD:
// an Application in the controller's namespace (or with none) may
// use any project; one elsewhere only a project whose sourceNamespaces
// match its namespace (globs, or /regexp/ in regexp2's syntax).
func (p *Project) IsAppNamespacePermitted(appNamespace, controllerNamespace string) bool {
	if appNamespace == "" || appNamespace == controllerNamespace {
		return true
	}
	return p.namespaces.match(appNamespace)
}

// NamespaceEnabled is util/security.IsNamespaceEnabled of Argo CD:
// the controller and the API server handle Applications in their own
// namespace and in those application.namespaces enables (globs, or
// /regexp/), and ignore all others.
func NamespaceEnabled(namespace, controllerNamespace string, enabled []string) bool {
	return NewNamespaces(enabled).Enabled(namespace, controllerNamespace)
}

// Namespaces is an application.namespaces list, compiled once for
// NamespaceEnabled on many Applications.
type Namespaces struct{ list namespaceList }

// NewNamespaces compiles an application.namespaces list.
func NewNamespaces(enabled []string) Namespaces {
	return Namespaces{list: compileNamespaceList(enabled)}
}

// Enabled is NamespaceEnabled with the compiled list.
func (n Namespaces) Enabled(namespace, controllerNamespace string) bool {
	return namespace == controllerNamespace || n.list.match(namespace)
}

// ProjectProblem is what ValidateProject refuses: the field, the index of
// the entry in it, and Argo CD's message.
type ProjectProblem struct {
	Field string // sourceRepos, destinations, sourceNamespaces, roles, syncWindows or destinationServiceAccounts
	Index int
	// Sub is the field of the entry at fault, such as "policies[1]"
	// of a role; "" for the entry as a whole.
	Sub     string
	Message string
}

// ValidateProject is AppProject.ValidateProject of Argo CD, which
// the API server runs on every project it creates or updates:
// destinations, source namespaces and source repositories ("!*" entries
// and duplicates), then roles, sync windows and destination service
// accounts (validateProjectFields). Argo CD stops at the first problem;
// this returns them all, the first one Argo CD's.
func (p *Project) ValidateProject() []ProjectProblem {
	var out []ProjectProblem
	add := func(field string, i int, format string, args ...any) {
		out = append(out, ProjectProblem{Field: field, Index: i, Message: fmt.Sprintf(format, args...)})
	}
	destKeys := map[string]bool{}
	for i, dest := range p.spec.Destinations {
		switch {
		case dest.Name == "!*":
			add("destinations", i, "name has an invalid format, '!*'")
			continue
		case dest.Server == "!*":
			add("destinations", i, "server has an invalid format, '!*'")
			continue
		case dest.Namespace == "!*":
			add("destinations", i, "namespace has an invalid format, '!*'")
			continue
		}
		key := fmt.Sprintf("%s/%s", dest.Server, dest.Namespace)
		if dest.Server == "" && dest.Name != "" {
			// A destination cluster given by name instead of server.
			key = fmt.Sprintf("%s/%s", dest.Name, dest.Namespace)
		}
		if destKeys[key] {
			add("destinations", i, "destination '%s' already added", key)
			continue
		}
		destKeys[key] = true
	}
	srcNamespaces := map[string]bool{}
	for i, ns := range p.spec.SourceNamespaces {
		if srcNamespaces[ns] {
			add("sourceNamespaces", i, "source namespace '%s' already added", ns)
			continue
		}
		srcNamespaces[ns] = true
	}
	srcRepos := map[string]bool{}
	for i, src := range p.spec.SourceRepos {
		if src == "!*" {
			add("sourceRepos", i, "source repository has an invalid format, '!*'")
			continue
		}
		if srcRepos[src] {
			add("sourceRepos", i, "source repository '%s' already added", src)
			continue
		}
		srcRepos[src] = true
	}
	return append(out, p.validateProjectFields()...)
}

func str(v any, keys ...string) string {
	s, _ := object.Lookup(v, keys...).(string)
	return s
}

func list(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case []*object.Map:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	}
	return nil
}

func stringList(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// resourceRules reads a resource list; nil where there is none, empty
// where the list is.
func resourceRules(v any) []ResourceRule {
	l := list(v)
	if l == nil {
		if _, ok := v.([]any); !ok {
			return nil
		}
	}
	out := make([]ResourceRule, 0, len(l))
	for _, x := range l {
		out = append(out, ResourceRule{Group: str(x, "group"), Kind: str(x, "kind"), Name: str(x, "name")})
	}
	return out
}
