package argocd

import (
	"slices"
	"testing"

	"github.com/platc/platc/compiler/upstream"
)

// These tables pin Argo CD's semantics; conformance/argocd checks
// the same functions against Argo CD's own code on generated cases.

func TestNormalizeGitURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://GIT.example.com/p.git", "https://git.example.com/p"},
		{" https://git.example.com/p ", "https://git.example.com/p"},
		{"https://git.example.com/p/", "https://git.example.com/p/"}, // a "/" at the end stays
		{"https://git.example.com/p.git/", "https://git.example.com/p.git/"},
		{"git@git.example.com:org/p.git", "git@git.example.com/org/p"},
		{"ssh://git@git.example.com/org/p", "git@git.example.com/org/p"},
		{"oci://ghcr.io/berriai/litellm-helm", "oci://ghcr.io/berriai/litellm-helm"},
		{"https://git.example.com/a b", "https://git.example.com/a%20b"},
		{"http://[::1", ""}, // net/url refuses it
	} {
		if got := NormalizeGitURL(tt.in); got != tt.want {
			t.Errorf("NormalizeGitURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func project(spec ProjectSpec) *Project { return NewProject("p", spec) }

func TestIsSourcePermitted(t *testing.T) {
	for _, tt := range []struct {
		patterns []string
		repo     string
		want     bool
	}{
		{[]string{"*"}, "https://anything.example.com/x/y.git", true},
		{[]string{"https://git.example.com/p.git"}, "https://git.example.com/p.git", true},
		{[]string{"https://git.example.com/p"}, "https://GIT.example.com/p.git", true},
		{[]string{"git@git.example.com:org/p.git"}, "ssh://git@git.example.com/org/p", true},
		{[]string{"https://git.example.com/*"}, "https://git.example.com/p.git", true},
		{[]string{"https://git.example.com/*"}, "https://git.example.com/org/p.git", false}, // '/' separates
		{[]string{"https://git.example.com/**"}, "https://git.example.com/org/p.git", true},
		{[]string{"https://charts.example.com/*", "!https://charts.example.com/stable"}, "https://charts.example.com/stable", false},
		{[]string{"https://charts.example.com/*", "!https://charts.example.com/stable"}, "https://charts.example.com/beta", true},
		// The escape of issue 11: a "/" at the end is not normalized away.
		{[]string{"https://kyverno.github.io/kyverno"}, "https://kyverno.github.io/kyverno/", false},
		{[]string{"https://kyverno.github.io/kyverno/"}, "https://kyverno.github.io/kyverno/", true},
		// No brace alternation: net/url refuses braces in a host, so the
		// pattern normalizes to "" and permits nothing (but a source that
		// does not parse either), and escapes them in a path.
		{[]string{"https://{a,b}.example.com/p"}, "https://b.example.com/p", false},
		{[]string{"https://{a,b}.example.com/p"}, "https://[.example.com/p", true},
		{[]string{"https://git.example.com/{a,b}"}, "https://git.example.com/b", false},
		{[]string{"https://git.example.com/{a,b}"}, "https://git.example.com/{a,b}", true},
		{[]string{"https://git.example.com/[a"}, "https://git.example.com/[a", false}, // does not compile: matches nothing
		{nil, "https://git.example.com/p.git", false},
	} {
		if got := project(ProjectSpec{SourceRepos: tt.patterns}).IsSourcePermitted(tt.repo); got != tt.want {
			t.Errorf("IsSourcePermitted(%q, %q) = %v, want %v", tt.patterns, tt.repo, got, tt.want)
		}
	}
}

func TestIsDestinationPermitted(t *testing.T) {
	d := func(server, name, ns string) ProjectDestination {
		return ProjectDestination{Server: server, Name: name, Namespace: ns}
	}
	prod := Cluster{Server: "https://prod.example.com", Name: "prod"}
	for _, tt := range []struct {
		dests       []ProjectDestination
		cluster     Cluster
		ns          string
		want, known bool
	}{
		{[]ProjectDestination{d(InClusterServer, "", "web")}, InCluster, "web", true, true},
		{[]ProjectDestination{d(InClusterServer, "", "web")}, InCluster, "db", false, true},
		{[]ProjectDestination{d(InClusterServer, "", "team-*")}, InCluster, "team-blue", true, true},
		{[]ProjectDestination{d("*", "", "*")}, prod, "x", true, true},
		{[]ProjectDestination{d("", "prod", "web")}, prod, "web", true, true},
		// The false rejection of issue 11: a project destination by name
		// matches an Application given by server, through the cluster.
		{[]ProjectDestination{d("", "in-cluster", "web")}, InCluster, "web", true, true},
		{[]ProjectDestination{d(InClusterServer, "", "*"), d(InClusterServer, "", "!kube-system")}, InCluster, "kube-system", false, true},
		{[]ProjectDestination{d(InClusterServer, "", "!kube-system")}, InCluster, "web", true, true},
		// A name that denies refuses in its own namespaces only (3.6: the
		// precedence of isDestinationMatched's second case).
		{[]ProjectDestination{d("", "!in-cluster", "team-a"), d("*", "", "*")}, InCluster, "team-b", true, true},
		{[]ProjectDestination{d("", "!in-cluster", "team-a"), d("*", "", "*")}, InCluster, "team-a", false, true},
		{[]ProjectDestination{d(InClusterServer, "", "web")}, InCluster, "", false, true},
		{nil, InCluster, "web", false, true},
		// A cluster given by name whose server platc does not know.
		{[]ProjectDestination{d("https://prod.example.com", "", "web")}, Cluster{Name: "prod"}, "web", false, false},
		{[]ProjectDestination{d("*", "", "web")}, Cluster{Name: "prod"}, "web", true, true},
		{[]ProjectDestination{d("", "prod", "web")}, Cluster{Name: "prod"}, "web", true, true},
		{[]ProjectDestination{d("", "prod", "web")}, Cluster{Server: "https://prod.example.com"}, "web", false, false},
		// v3.6.2: a denied name or server that matches the cluster vetoes
		// it in the destination's namespaces, even where the
		// destination's other field matches (v3.6.1 permitted these).
		{[]ProjectDestination{d("*", "!prod", "*")}, prod, "web", false, true},
		{[]ProjectDestination{d("https://prod.example.com", "!prod", "*")}, prod, "web", false, true},
		{[]ProjectDestination{d("!https://prod.*", "prod", "web")}, prod, "web", false, true},
		{[]ProjectDestination{d("*", "", "*"), d("*", "!prod", "web")}, prod, "web", false, true},
		// ... in its namespaces only, and only where the denial matches.
		{[]ProjectDestination{d("*", "", "*"), d("*", "!prod", "web")}, prod, "db", true, true},
		{[]ProjectDestination{d("*", "!prod", "*")}, Cluster{Server: "https://stage.example.com", Name: "stage"}, "web", true, true},
		// A pattern after "!" that does not compile matches nothing:
		// nothing to veto.
		{[]ProjectDestination{d("*", "![", "*")}, prod, "web", true, true},
		// With the name unknown, the veto may or may not apply.
		{[]ProjectDestination{d("*", "!prod", "*")}, Cluster{Server: "https://prod.example.com"}, "web", false, false},
		// With the server unknown, a denied name that matches vetoes.
		{[]ProjectDestination{d("*", "!prod", "*")}, Cluster{Name: "prod"}, "web", false, true},
	} {
		got, known := project(ProjectSpec{Destinations: tt.dests}).IsDestinationPermitted(tt.cluster, tt.ns)
		if got != tt.want || known != tt.known {
			t.Errorf("IsDestinationPermitted(%v, %v, %q) = %v, %v, want %v, %v", tt.dests, tt.cluster, tt.ns, got, known, tt.want, tt.known)
		}
	}
}

func TestDestinationCluster(t *testing.T) {
	prod := Cluster{Server: "https://prod.example.com", Name: "prod"}
	clusters := []Cluster{InCluster, prod}
	for _, tt := range []struct {
		dest    Destination
		want    Cluster
		wantErr string
	}{
		{Destination{Server: InClusterServer + "/"}, InCluster, ""},
		{Destination{Name: "in-cluster"}, InCluster, ""},
		{Destination{Name: "prod"}, prod, ""},
		{Destination{Name: "other"}, Cluster{Name: "other"}, ""},
		{Destination{Server: "https://other"}, Cluster{Server: "https://other"}, ""},
		{Destination{Server: "https://x", Name: "x"}, Cluster{}, "application destination can't have both name and server defined: x https://x"},
		{Destination{}, Cluster{}, "Destination server missing from app spec"},
	} {
		got, err := DestinationCluster(tt.dest, clusters)
		if msg := errString(err); got != tt.want || msg != tt.wantErr {
			t.Errorf("DestinationCluster(%v) = %v, %q, want %v, %q", tt.dest, got, msg, tt.want, tt.wantErr)
		}
	}
}

// TestIsInCluster: the cluster Argo CD runs in, by server or by its name
// in-cluster, is the one it knows without a cluster Secret (an
// environment that names it so adds no second cluster of that name).
func TestIsInCluster(t *testing.T) {
	for _, tt := range []struct {
		dest Destination
		want bool
	}{
		{Destination{Server: InClusterServer}, true},
		{Destination{Server: InClusterServer + "/"}, true},
		{Destination{Name: "in-cluster"}, true},
		{Destination{Name: "prod"}, false},
		{Destination{Server: "https://prod.example.com"}, false},
		{Destination{Server: InClusterServer, Name: "in-cluster"}, false},
		{Destination{}, false},
	} {
		if got := IsInCluster(tt.dest); got != tt.want {
			t.Errorf("IsInCluster(%v) = %v, want %v", tt.dest, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestIsAppNamespacePermitted(t *testing.T) {
	for _, tt := range []struct {
		patterns []string
		ns       string
		want     bool
	}{
		{[]string{"observability"}, "observability", true},
		{[]string{"team-*"}, "team-blue", true},
		{[]string{"/^obs-[a-z]+$/"}, "obs-payments", true},
		{[]string{"/^obs-[a-z]+$/"}, "obs-2", false},
		{[]string{"/obs/"}, "my-obs-ns", true}, // unanchored
		// regexp2, not Go's regexp: lookahead works, POSIX classes do not.
		{[]string{"/^((?!kube-).)*$/"}, "team-a", true},
		{[]string{"/^((?!kube-).)*$/"}, "kube-system", false},
		{[]string{"/^[[:alpha:]]+$/"}, "team", false},
		// regexp2 v2 (Argo CD since v3.6.2): possessive quantifiers, \Q...\E
		// and \pL compile (with v1 they did not, and matched nothing).
		{[]string{"/^team-[a-z]++$/"}, "team-a", true},
		{[]string{"/^team-[a-z]++a$/"}, "team-a", false}, // possessive: gives nothing back
		{[]string{`/^\Qteam.a\E$/`}, "team.a", true},
		{[]string{`/^\Qteam.a\E$/`}, "team-a", false},
		{[]string{`/^\pL+-\pL$/`}, "team-a", true},
		// A match past v2's backtracking stack limit is an error, so no
		// match (v1 matched, after allocating about 1 GiB).
		{[]string{"/(){5000000}/"}, "team-a", false},
		{[]string{"/(?:){5000000}/"}, "team-a", true},
		// "/" and "//" are globs since 3.6 (before, "/" panicked and "//"
		// matched everything).
		{[]string{"/", "team"}, "team", true},
		{[]string{"team", "/"}, "team", true},
		{[]string{"//"}, "team", false},
		{[]string{"/"}, "/", true},
		{nil, "observability", false},
	} {
		if got := project(ProjectSpec{SourceNamespaces: tt.patterns}).IsAppNamespacePermitted(tt.ns, "argocd"); got != tt.want {
			t.Errorf("IsAppNamespacePermitted(%q, %q) = %v, want %v", tt.patterns, tt.ns, got, tt.want)
		}
	}
	if !DefaultProject().IsAppNamespacePermitted("argocd", "argocd") || DefaultProject().IsAppNamespacePermitted("observability", "argocd") {
		t.Error("the default project permits Applications in Argo CD's namespace only")
	}
}

func TestIsGroupKindPermitted(t *testing.T) {
	p := project(ProjectSpec{
		ClusterResourceWhitelist:   []ResourceRule{{Kind: "Namespace"}, {Group: "rbac.authorization.k8s.io", Kind: "Cluster*"}, {Group: "", Kind: "PersistentVolume", Name: "pv-*"}},
		ClusterResourceBlacklist:   []ResourceRule{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}},
		NamespaceResourceBlacklist: []ResourceRule{{Kind: "ResourceQuota"}},
	})
	for _, tt := range []struct {
		group, kind, name string
		namespaced        bool
		want              bool
	}{
		{"", "Namespace", "web", false, true},
		{"rbac.authorization.k8s.io", "ClusterRole", "x", false, true},
		{"rbac.authorization.k8s.io", "ClusterRoleBinding", "x", false, false},
		{"apiextensions.k8s.io", "CustomResourceDefinition", "x", false, false},
		{"", "PersistentVolume", "pv-1", false, true},
		{"", "PersistentVolume", "data", false, false},
		{"", "ResourceQuota", "q", true, false},
		{"apps", "Deployment", "d", true, true},
	} {
		if got := p.IsGroupKindPermitted(tt.group, tt.kind, tt.name, tt.namespaced); got != tt.want {
			t.Errorf("IsGroupKindPermitted(%q, %q, %q, %v) = %v, want %v", tt.group, tt.kind, tt.name, tt.namespaced, got, tt.want)
		}
	}
	white := project(ProjectSpec{NamespaceResourceWhitelist: []ResourceRule{{Group: "apps", Kind: "*"}}})
	if !white.IsGroupKindPermitted("apps", "Deployment", "", true) || white.IsGroupKindPermitted("", "ConfigMap", "", true) {
		t.Error("namespace whitelist not applied")
	}
	if project(ProjectSpec{NamespaceResourceWhitelist: []ResourceRule{}}).IsGroupKindPermitted("apps", "Deployment", "", true) {
		t.Error("an empty namespace whitelist permits nothing")
	}
}

func TestValidateProject(t *testing.T) {
	p := project(ProjectSpec{
		SourceRepos:      []string{"https://a", "!*", "https://a"},
		Destinations:     []ProjectDestination{{Server: "https://s", Namespace: "x"}, {Server: "https://s", Namespace: "x"}, {Name: "n", Namespace: "x"}, {Name: "!*", Namespace: "x"}, {Server: "https://s", Namespace: "!*"}},
		SourceNamespaces: []string{"a", "a"},
	})
	var got []string
	for _, pr := range p.ValidateProject() {
		got = append(got, pr.Field+"|"+pr.Message)
	}
	want := []string{
		"destinations|destination 'https://s/x' already added",
		"destinations|name has an invalid format, '!*'",
		"destinations|namespace has an invalid format, '!*'",
		"sourceNamespaces|source namespace 'a' already added",
		"sourceRepos|source repository has an invalid format, '!*'",
		"sourceRepos|source repository 'https://a' already added",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ValidateProject:\n got %q\nwant %q", got, want)
	}
}

func TestValidatePermissions(t *testing.T) {
	p := project(ProjectSpec{SourceRepos: []string{"https://git.example.com/*"}, Destinations: []ProjectDestination{{Name: "in-cluster", Namespace: "web"}}})
	app := App{
		Sources:     []Source{{RepoURL: "https://git.example.com/p", Path: "."}, {RepoURL: "https://charts.example.com", Chart: "c", TargetRevision: "1.0.0"}},
		Destination: Destination{Server: InClusterServer, Namespace: "web"}, MultipleSources: true,
	}
	var got []string
	for _, c := range ValidatePermissions(app, p, []Cluster{InCluster}) {
		got = append(got, c.Message)
	}
	want := []string{"application repo https://charts.example.com is not permitted in project 'p'"}
	if !slices.Equal(got, want) {
		t.Errorf("ValidatePermissions = %q, want %q", got, want)
	}
	app.Sources[1].TargetRevision = ""
	if c := ValidatePermissions(app, p, nil); len(c) != 1 || c[0].Kind != InvalidSource {
		t.Errorf("a chart without a revision: %v", c)
	}
}

func TestSourceProblems(t *testing.T) {
	a := App{Sources: []Source{{Ref: "values"}, {Ref: "values"}, {Ref: "a.b"}, {Types: []string{"kustomize", "helm"}}}}
	var got []string
	for _, c := range a.SourceProblems() {
		got = append(got, c.Message)
	}
	want := []string{
		"invalid sources: multiple sources had the same `ref` key",
		"sources.ref a.b cannot contain any special characters except '_' and '-'",
		"multiple application sources defined: kustomize,helm",
	}
	if !slices.Equal(got, want) {
		t.Errorf("SourceProblems = %q, want %q", got, want)
	}
}

func TestInstallValues(t *testing.T) {
	in := Install{ApplicationNamespaces: []string{"teams", "obs", "teams"}}
	if got := in.ApplicationNamespacesValue(); got != "obs,teams" {
		t.Errorf("application.namespaces = %q", got)
	}
	if (Install{}).Empty() != true || in.Empty() {
		t.Error("Empty")
	}
}

func TestProjectFromObject(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"name": "apps"},
		"spec": map[string]any{
			"sourceRepos":                []any{"https://a"},
			"destinations":               []any{map[string]any{"name": "in-cluster", "namespace": "web"}},
			"namespaceResourceWhitelist": []any{},
			"clusterResourceWhitelist":   []any{map[string]any{"group": "", "kind": "Namespace", "name": "web"}},
			"sourceNamespaces":           []any{"teams"},
		},
	}
	p := ProjectFromObject(obj)
	if p.Name != "apps" || !p.IsSourcePermitted("https://A") || !p.IsAppNamespacePermitted("teams", "argocd") {
		t.Errorf("ProjectFromObject read %+v", p.Spec())
	}
	if ok, known := p.IsDestinationPermitted(InCluster, "web"); !ok || !known {
		t.Error("a destination by name permits the cluster given by server")
	}
	if p.IsGroupKindPermitted("apps", "Deployment", "d", true) {
		t.Error("an empty namespaceResourceWhitelist read as none")
	}
	if !p.IsGroupKindPermitted("", "Namespace", "web", false) || p.IsGroupKindPermitted("", "Namespace", "db", false) {
		t.Error("a cluster resource's name not read")
	}
	if ProjectFromObject(map[string]any{"spec": map[string]any{}}).Spec().NamespaceResourceWhitelist != nil {
		t.Error("a missing namespaceResourceWhitelist read as an empty one")
	}
}

func TestPolicyActions(t *testing.T) {
	for action, want := range map[string]string{
		"sync":                           "",
		"rollback":                       "", // since 3.6
		"action/apps/Deployment/restart": "",
		"restart":                        "invalid policy rule 'p, proj:shop:ci, applications, restart, shop/*, allow': invalid action 'restart'",
	} {
		policy := "p, proj:shop:ci, applications, " + action + ", shop/*, allow"
		if got := PolicyProblem("shop", "ci", policy); got != want {
			t.Errorf("PolicyProblem(%q) = %q, want %q", policy, got, want)
		}
	}
}

// TestChangesAfter: a release lacks the changes of the later releases,
// patch releases included, up to the target; a minor release is its
// first release.
func TestChangesAfter(t *testing.T) {
	since := func(release string) []string {
		var out []string
		for _, c := range ChangesAfter(release) {
			out = append(out, c.Since+" "+c.Upstream)
		}
		return out
	}
	if got := since(upstream.ArgoCD); len(got) != 0 {
		t.Errorf("the target %s lacks %q", upstream.ArgoCD, got)
	}
	if got, want := since("v3.6.1"), []string{"v3.6.2 isDestinationMatched", "v3.6.2 util/regex"}; len(got) < 2 || !slices.Equal(got[:2], want) {
		t.Errorf("v3.6.1 lacks %q, want %q first", got, want)
	}
	if got, want := since("v3.6"), since("v3.6.0"); !slices.Equal(got, want) {
		t.Errorf("v3.6 lacks %q, v3.6.0 %q", got, want)
	}
	if got := since("v3.5.7"); len(got) != len(RuleChanges) {
		t.Errorf("v3.5.7 lacks %d changes, want all %d", len(got), len(RuleChanges))
	}
}
