package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/git"
	"github.com/argoproj/argo-cd/v3/util/security"
	log "github.com/sirupsen/logrus"
	"google.golang.org/grpc/status"

	"github.com/platc/platc/compiler/argocd"
)

// counted is how many cases each family ran, for the summary.
var counted sync.Map

func TestMain(m *testing.M) {
	// Argo CD logs a warning for every pattern that does not compile.
	log.SetLevel(log.ErrorLevel)
	code := m.Run()
	var lines []string
	counted.Range(func(k, v any) bool {
		lines = append(lines, fmt.Sprintf("  %-28s %7d cases", k, v))
		return true
	})
	sort.Strings(lines)
	if len(lines) > 0 {
		fmt.Println("conformance with Argo CD (0 disagreements in every family that passed):")
		fmt.Println(strings.Join(lines, "\n"))
	}
	os.Exit(code)
}

func TestNormalizeGitURL(t *testing.T) {
	type c struct{ URL string }
	property(t, "NormalizeGitURL", func(r *rand.Rand) c { return c{genURL(r)} }, func(c c) string {
		if got, want := argocd.NormalizeGitURL(c.URL), git.NormalizeGitURL(c.URL); got != want {
			return fmt.Sprintf("platc %q, Argo CD %q", got, want)
		}
		return ""
	})
}

func TestIsSourcePermitted(t *testing.T) {
	type c struct {
		Patterns []string
		Repo     string
	}
	gen := func(r *rand.Rand) c {
		cs := c{Patterns: some(r, 4, func() string { return genRepoPattern(r) }), Repo: genURL(r)}
		if len(cs.Patterns) > 0 && r.IntN(3) == 0 {
			// Often the repository is one of the patterns, written
			// another way.
			p := strings.TrimPrefix(pick(r, cs.Patterns...), "!")
			cs.Repo = pick(r, p, strings.ToUpper(p), p+".git", p+"/", strings.TrimSuffix(p, "/"))
		}
		return cs
	}
	property(t, "IsSourcePermitted", gen, func(c c) string {
		got := argocd.NewProject("p", argocd.ProjectSpec{SourceRepos: c.Patterns}).IsSourcePermitted(c.Repo)
		want := upstreamProject("p", argocd.ProjectSpec{SourceRepos: c.Patterns}).IsSourcePermitted(v1alpha1.ApplicationSource{RepoURL: c.Repo})
		if got != want {
			return fmt.Sprintf("platc %v, Argo CD %v", got, want)
		}
		return ""
	})
}

type dest struct{ Server, Name, Namespace string }

func genDests(r *rand.Rand) []dest {
	return some(r, 4, func() dest {
		d := dest{Namespace: genDestPattern(r, namespaces...)}
		switch r.IntN(3) {
		case 0:
			d.Server = genDestPattern(r, servers...)
		case 1:
			d.Name = genDestPattern(r, names...)
		default:
			d.Server, d.Name = genDestPattern(r, servers...), genDestPattern(r, names...)
		}
		return d
	})
}

func projectDests(ds []dest) []argocd.ProjectDestination {
	var out []argocd.ProjectDestination
	for _, d := range ds {
		out = append(out, argocd.ProjectDestination{Server: d.Server, Name: d.Name, Namespace: d.Namespace})
	}
	return out
}

func TestIsDestinationPermitted(t *testing.T) {
	type c struct {
		Dests     []dest
		Cluster   int
		Namespace string
	}
	gen := func(r *rand.Rand) c {
		return c{Dests: genDests(r), Cluster: r.IntN(len(servers)), Namespace: pick(r, namespaces...)}
	}
	property(t, "IsDestinationPermitted", gen, func(c c) string {
		spec := argocd.ProjectSpec{Destinations: projectDests(c.Dests)}
		cluster := argocd.Cluster{Server: servers[c.Cluster], Name: names[c.Cluster]}
		want, err := upstreamProject("p", spec).IsDestinationPermitted(&v1alpha1.Cluster{Server: cluster.Server, Name: cluster.Name}, c.Namespace, nil)
		if err != nil {
			return "Argo CD: " + err.Error()
		}
		p := argocd.NewProject("p", spec)
		if got, known := p.IsDestinationPermitted(cluster, c.Namespace); !known || got != want {
			return fmt.Sprintf("platc %v (known %v), Argo CD %v", got, known, want)
		}
		// With a field of the cluster unknown, as offline for a cluster
		// platc does not know, platc either says it cannot tell, or says
		// what Argo CD says.
		for _, partial := range []argocd.Cluster{{Server: cluster.Server}, {Name: cluster.Name}} {
			if got, known := p.IsDestinationPermitted(partial, c.Namespace); known && got != want {
				return fmt.Sprintf("platc %v knowing %+v only, Argo CD %v", got, partial, want)
			}
		}
		return ""
	})
}

func TestIsAppNamespacePermitted(t *testing.T) {
	type c struct {
		Patterns  []string
		Namespace string
	}
	gen := func(r *rand.Rand) c {
		return c{Patterns: some(r, 4, func() string { return genNamespacePattern(r) }), Namespace: pick(r, namespaces...)}
	}
	property(t, "IsAppNamespacePermitted", gen, func(c c) string {
		spec := argocd.ProjectSpec{SourceNamespaces: c.Patterns}
		got := argocd.NewProject("p", spec).IsAppNamespacePermitted(c.Namespace, "argocd")
		want := upstreamNamespacePermitted(upstreamProject("p", spec), c.Namespace)
		if got != want {
			return fmt.Sprintf("platc %v, Argo CD %v", got, want)
		}
		return ""
	})
	property(t, "NamespaceEnabled", gen, func(c c) (msg string) {
		defer func() {
			if recover() != nil && argocd.NamespaceEnabled(c.Namespace, "argocd", c.Patterns) {
				msg = "platc true, Argo CD panics"
			}
		}()
		got := argocd.NamespaceEnabled(c.Namespace, "argocd", c.Patterns)
		if want := security.IsNamespaceEnabled(c.Namespace, "argocd", c.Patterns); got != want {
			return fmt.Sprintf("platc %v, Argo CD %v", got, want)
		}
		return ""
	})
}

func TestIsGroupKindPermitted(t *testing.T) {
	type rule = argocd.ResourceRule
	type c struct {
		ClusterWhite, ClusterBlack, NamespaceWhite, NamespaceBlack []rule
		NilWhite                                                   bool
		Group, Kind, Name                                          string
		Namespaced                                                 bool
	}
	groups := []string{"", "apps", "rbac.authorization.k8s.io", "kro.run"}
	kinds := []string{"Namespace", "ClusterRole", "ClusterRoleBinding", "Deployment", "ConfigMap"}
	objNames := []string{"web", "pv-1", "team-a", ""}
	genRule := func(r *rand.Rand) rule {
		return rule{
			Group: pick(r, append(groups, "*", "?pps", "*.k8s.io", "[")...),
			Kind:  pick(r, append(kinds, "*", "Cluster*", "[A-Z]*", "\\", "Config?ap")...),
			Name:  pick(r, "", "", "web", "pv-*", "[", "*"),
		}
	}
	gen := func(r *rand.Rand) c {
		rules := func() []rule { return some(r, 3, func() rule { return genRule(r) }) }
		x := c{ClusterWhite: rules(), ClusterBlack: rules(), NamespaceWhite: rules(), NamespaceBlack: rules(), NilWhite: r.IntN(2) == 0,
			Group: pick(r, groups...), Kind: pick(r, kinds...), Name: pick(r, objNames...), Namespaced: r.IntN(2) == 0}
		if x.NamespaceWhite == nil && !x.NilWhite {
			x.NamespaceWhite = []rule{}
		}
		return x
	}
	property(t, "IsGroupKindPermitted", gen, func(c c) string {
		white := c.NamespaceWhite
		if c.NilWhite {
			white = nil
		}
		spec := argocd.ProjectSpec{ClusterResourceWhitelist: c.ClusterWhite, ClusterResourceBlacklist: c.ClusterBlack, NamespaceResourceWhitelist: white, NamespaceResourceBlacklist: c.NamespaceBlack}
		got := argocd.NewProject("p", spec).IsGroupKindPermitted(c.Group, c.Kind, c.Name, c.Namespaced)
		want := upstreamGroupKindPermitted(upstreamProject("p", spec), c.Group, c.Kind, c.Name, c.Namespaced)
		if got != want {
			return fmt.Sprintf("platc %v, Argo CD %v", got, want)
		}
		return ""
	})
}

func TestValidateProject(t *testing.T) {
	type c struct {
		Repos, SourceNamespaces []string
		Dests                   []dest
	}
	gen := func(r *rand.Rand) c {
		// Small pools, so that duplicates are frequent.
		repos := []string{"https://a.example.com/p", "!*", "*", "https://a.example.com/p/", genURL(r)}
		nss := []string{"team-a", "team-*", "/^t/", "team-a "}
		return c{
			Repos:            some(r, 4, func() string { return pick(r, repos...) }),
			SourceNamespaces: some(r, 3, func() string { return pick(r, nss...) }),
			Dests: some(r, 4, func() dest {
				return pick(r, dest{Server: "https://s", Namespace: "x"}, dest{Name: "n", Namespace: "x"}, dest{Server: "https://s", Name: "n", Namespace: "x"},
					dest{Server: "!*", Namespace: "x"}, dest{Name: "!*", Namespace: "x"}, dest{Server: "https://s", Namespace: "!*"}, dest{Name: "https://s", Namespace: "x"}, dest{Namespace: "x"})
			}),
		}
	}
	property(t, "ValidateProject", gen, func(c c) string {
		spec := argocd.ProjectSpec{SourceRepos: c.Repos, SourceNamespaces: c.SourceNamespaces, Destinations: projectDests(c.Dests)}
		got := argocd.NewProject("p", spec).ValidateProject()
		err := upstreamProject("p", spec).ValidateProject()
		switch {
		case err == nil && len(got) == 0:
			return ""
		case err == nil:
			return fmt.Sprintf("platc refuses (%s), Argo CD accepts", got[0].Message)
		case len(got) == 0:
			return "platc accepts, Argo CD refuses: " + err.Error()
		case got[0].Message != status.Convert(err).Message():
			return fmt.Sprintf("platc %q, Argo CD %q", got[0].Message, status.Convert(err).Message())
		}
		return ""
	})
}

func TestValidatePermissions(t *testing.T) {
	type src struct{ RepoURL, Path, Chart, Ref, TargetRevision string }
	type c struct {
		Patterns                []string
		Dests                   []dest
		Sources                 []src
		Multiple                bool
		Server, Name, Namespace string
	}
	clusters := []argocd.Cluster{argocd.InCluster, {Server: servers[1], Name: names[1]}, {Server: servers[2], Name: names[2]}}
	gen := func(r *rand.Rand) c {
		x := c{Patterns: some(r, 3, func() string { return genRepoPattern(r) }), Dests: genDests(r), Multiple: r.IntN(2) == 0, Namespace: pick(r, namespaces...)}
		x.Sources = some(r, 3, func() src {
			s := src{RepoURL: pick(r, genURL(r), genURL(r), "")}
			if len(x.Patterns) > 0 && r.IntN(2) == 0 {
				s.RepoURL = strings.TrimPrefix(pick(r, x.Patterns...), "!")
			}
			switch r.IntN(4) {
			case 0:
				s.Path = "."
			case 1:
				s.Chart = "c"
			case 2:
				s.Ref = "values"
			}
			if r.IntN(3) > 0 {
				s.TargetRevision = "1.0.0"
			}
			return s
		})
		if !x.Multiple && len(x.Sources) > 1 {
			x.Sources = x.Sources[:1]
		}
		switch r.IntN(6) {
		case 0:
			x.Name = pick(r, names...)
		case 1:
			x.Server, x.Name = pick(r, servers...), pick(r, names...)
		case 2:
		default:
			x.Server = pick(r, append(servers, servers[1]+"/")...)
		}
		return x
	}
	property(t, "ValidatePermissions", gen, func(c c) string {
		spec := argocd.ProjectSpec{SourceRepos: c.Patterns, Destinations: projectDests(c.Dests)}
		a := argocd.App{Project: "p", MultipleSources: c.Multiple && len(c.Sources) > 0, Destination: argocd.Destination{Server: c.Server, Name: c.Name, Namespace: c.Namespace}}
		for _, s := range c.Sources {
			a.Sources = append(a.Sources, argocd.Source{RepoURL: s.RepoURL, Path: s.Path, Chart: s.Chart, Ref: s.Ref, TargetRevision: s.TargetRevision})
		}
		if len(a.Sources) == 0 {
			a.Sources = []argocd.Source{{}}
		}
		var got []string
		for _, cond := range argocd.ValidatePermissions(a, argocd.NewProject("p", spec), clusters) {
			got = append(got, conditionText(strings.Contains(cond.Message, "are required for source"), cond.Message))
		}
		app := upstreamApp(a)
		conds, err := argo.ValidatePermissions(context.Background(), &app.Spec, upstreamProject("p", spec), clusterDB{clusters: clusters})
		if err != nil {
			return "Argo CD: " + err.Error()
		}
		var want []string
		for _, cond := range conds {
			want = append(want, conditionText(strings.Contains(cond.Message, "are required for source"), cond.Message))
		}
		if !slices.Equal(got, want) {
			return fmt.Sprintf("platc %q, Argo CD %q", got, want)
		}
		return ""
	})
}

// conditionText is a condition's message; for a malformed source of many,
// where Argo CD prints its own struct, only what it is about.
func conditionText(multipleInvalid bool, msg string) string {
	if multipleInvalid {
		return "a source of many lacks its repoURL, or its path, chart and ref"
	}
	return msg
}
