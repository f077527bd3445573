package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
)

// TestDenyVetoes proves the rule that v3.6.2 of Argo CD changed in
// isDestinationMatched (pkg/apis/application/v1alpha1/app_project_types.go):
// a destination whose name or server denies the cluster ("!prod") refuses
// it wherever the destination's namespace matches, even where its other
// field matches. The release before, v3.6.1, permitted each Application
// below (the destination's other field matched, and the match won over
// the denial); Argo CD's own ValidatePermissions, linked here, refuses
// each, and platc's refuses each with Argo CD's message.
func TestDenyVetoes(t *testing.T) {
	prod := argocd.Cluster{Server: "https://prod.example.com", Name: "prod"}
	stage := argocd.Cluster{Server: "https://stage.example.com", Name: "stage"}
	clusters := []argocd.Cluster{argocd.InCluster, prod, stage}
	for _, tt := range []struct {
		dests []argocd.ProjectDestination
		dest  argocd.Destination
	}{
		// Every server, but not the cluster named prod.
		{[]argocd.ProjectDestination{{Server: "*", Name: "!prod", Namespace: "*"}}, argocd.Destination{Name: "prod", Namespace: "web"}},
		{[]argocd.ProjectDestination{{Server: "*", Name: "!prod", Namespace: "*"}}, argocd.Destination{Server: prod.Server, Namespace: "web"}},
		// The cluster prod by name, but not the servers https://prod.*.
		{[]argocd.ProjectDestination{{Server: "!https://prod.*", Name: "prod", Namespace: "web"}}, argocd.Destination{Name: "prod", Namespace: "web"}},
		// A denial among permissions: the first destination permits prod.
		{[]argocd.ProjectDestination{{Server: "*", Namespace: "*"}, {Server: prod.Server, Name: "!pro?", Namespace: "web"}}, argocd.Destination{Name: "prod", Namespace: "web"}},
	} {
		spec := argocd.ProjectSpec{SourceRepos: []string{"*"}, Destinations: tt.dests}
		a := argocd.App{Name: "web", Namespace: "argocd", Project: "p", Destination: tt.dest,
			Sources: []argocd.Source{{RepoURL: "https://git.example.com/p.git", Path: "web"}}}
		app := upstreamApp(a)
		conds, err := argo.ValidatePermissions(context.Background(), &app.Spec, upstreamProject("p", spec), clusterDB{clusters: clusters})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range conds {
			want = append(want, c.Message)
		}
		var got []string
		for _, c := range argocd.ValidatePermissions(a, argocd.NewProject("p", spec), clusters) {
			got = append(got, c.Message)
		}
		if len(want) != 1 || !strings.Contains(want[0], "do not match any of the allowed destinations") {
			t.Errorf("%+v to %+v: Argo CD gives %q, want its refusal of the destination: is it v3.6.2's rule?", tt.dests, tt.dest, want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v to %+v: platc %q, Argo CD %q", tt.dests, tt.dest, got, want)
		}
		// Another cluster, which the denial does not name, is permitted
		// by both.
		other := a
		other.Destination = argocd.Destination{Name: "stage", Namespace: "web"}
		if strings.Contains(tt.dests[len(tt.dests)-1].Name, "prod") || strings.Contains(tt.dests[len(tt.dests)-1].Name, "pro?") {
			app := upstreamApp(other)
			conds, err := argo.ValidatePermissions(context.Background(), &app.Spec, upstreamProject("p", spec), clusterDB{clusters: clusters})
			if err != nil {
				t.Fatal(err)
			}
			if got := argocd.ValidatePermissions(other, argocd.NewProject("p", spec), clusters); len(conds) != len(got) {
				t.Errorf("%+v to stage: platc %v, Argo CD %v", tt.dests, got, conds)
			}
		}
	}
}

// TestDenyVetoGolden runs Argo CD's ValidatePermissions over the
// Applications and AppProjects platc renders for the golden case
// golden/error-project-deny-veto, and requires platc to report exactly
// the Applications Argo CD refuses (project-destination), in each
// environment: web and ops in prod (a denied name; a denied namespace),
// none in lab.
func TestDenyVetoGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "golden", "error-project-deny-veto")
	res := compiler.Compile(os.DirFS(dir), compiler.Options{KeepFiles: true})
	if res.Files == nil {
		t.Fatalf("platc renders nothing of %s: %s", dir, res.Log)
	}
	var reported []string
	for _, p := range res.Log.Problems() {
		if p.ID == diag.ProjectDestination {
			// "project apps does not permit destination prod, namespace
			// "web", which affects Application "web"
			// (out/deploy/clusters/prod/...
			_, rest, _ := strings.Cut(p.Msg, "affects Application \"")
			name, rest, _ := strings.Cut(rest, "\"")
			env := strings.Split(strings.TrimPrefix(rest, " (out/deploy/clusters/"), "/")[0]
			reported = append(reported, env+"/"+name)
		}
	}
	// The clusters Argo CD knows: each environment's, by the name the
	// spec gives, with a server of its own.
	clusters := []argocd.Cluster{argocd.InCluster, {Name: "prod", Server: "https://prod.example.com"}, {Name: "lab", Server: "https://lab.example.com"}}
	var refused []string
	checked := 0
	for _, env := range []string{"prod", "lab"} {
		projects := map[string]*v1alpha1.AppProject{}
		var apps []*v1alpha1.Application
		for _, f := range res.Files {
			if f.Env != env || f.Values {
				continue
			}
			for _, o := range f.Objects {
				data, err := json.Marshal(object.Plain(o))
				if err != nil {
					t.Fatal(err)
				}
				switch o.Get("kind") {
				case "AppProject":
					var p v1alpha1.AppProject
					mustDecode(t, data, &p)
					projects[p.Name] = &p
				case "Application":
					var a v1alpha1.Application
					mustDecode(t, data, &a)
					apps = append(apps, &a)
				}
			}
		}
		for _, a := range apps {
			proj := projects[a.Spec.Project]
			if a.Spec.Project == "default" {
				proj = &v1alpha1.AppProject{Spec: v1alpha1.AppProjectSpec{SourceRepos: []string{"*"}, Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "*"}}}}
			}
			if proj == nil {
				t.Fatalf("%s: Application %s names project %s, which platc does not render", env, a.Name, a.Spec.Project)
			}
			conds, err := argo.ValidatePermissions(context.Background(), &a.Spec, proj, clusterDB{clusters: clusters})
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, c := range conds {
				if c.Type == v1alpha1.ApplicationConditionInvalidSpecError && strings.Contains(c.Message, "do not match any of the allowed destinations") {
					refused = append(refused, env+"/"+a.Name)
				}
			}
		}
	}
	slices.Sort(reported)
	slices.Sort(refused)
	if want := []string{"prod/ops", "prod/web"}; !slices.Equal(refused, want) {
		t.Errorf("Argo CD refuses %q of the %d Applications, want %q: is it v3.6.2's rule?", refused, checked, want)
	}
	if !slices.Equal(reported, refused) {
		t.Fatalf("platc reports project-destination for %q, Argo CD refuses %q", reported, refused)
	}
	t.Logf("Argo CD and platc refuse the same %d of %d Applications", len(refused), checked)
}
