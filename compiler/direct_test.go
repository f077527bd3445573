package compiler_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
)

var helmLine = regexp.MustCompile(`^helm upgrade --install (\S+) (\S+)(?: --repo (\S+))? --version (\S+) --namespace (\S+)`)
var kubectlLine = regexp.MustCompile(`^kubectl apply --server-side --namespace (\S+) -[fk] (\S+)$`)

// TestDirectApplyMatchesTheApplications reads the sample's direct-apply plan
// and the local environment's Applications from the rendered bytes, and
// requires the same charts at the same versions in the same namespaces with
// the same values, the same folders, and the same order.
func TestDirectApplyMatchesTheApplications(t *testing.T) {
	res := compiler.Compile(os.DirFS(".."), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the sample does not compile:\n%s", res.Log)
	}
	files := map[string]string{}
	for _, o := range res.Outputs {
		files[o.Path] = string(o.Data)
	}
	plan := files["out/deploy/direct-apply/local/plan.sh"]
	if plan == "" {
		t.Fatal("no plan for the local environment")
	}

	type install struct{ Chart, Repo, Version, Namespace string }
	planned := map[string]install{}
	var order []string
	for _, line := range strings.Split(plan, "\n") {
		if m := helmLine.FindStringSubmatch(line); m != nil {
			planned[m[1]] = install{m[2], m[3], m[4], m[5]}
			order = append(order, m[1])
		}
		if m := kubectlLine.FindStringSubmatch(line); m != nil {
			planned[m[2]] = install{Namespace: m[1]}
			order = append(order, m[2])
		}
	}

	// Every Application of local that deploys a chart or a folder, in the
	// order of the apps files (a group's members at the group's place).
	var apps []map[string]any
	var walk func(file string)
	walk = func(file string) {
		for _, doc := range strings.Split(files[file], "\n---\n") {
			var app map[string]any
			if err := yaml.Unmarshal([]byte(doc), &app); err != nil || app == nil || app["kind"] != "Application" {
				continue // an AppProject platc renders for stack instances
			}
			src, _ := app["spec"].(map[string]any)["source"].(map[string]any)
			path, _ := src["path"].(string)
			if strings.HasPrefix(path, "out/deploy/clusters/local/") {
				walk(strings.TrimSuffix(path, "/") + "/apps.yaml")
				continue
			}
			apps = append(apps, app)
		}
	}
	walk("out/deploy/clusters/local/apps.yaml")

	var want []string
	checked := 0
	for _, app := range apps {
		name := app["metadata"].(map[string]any)["name"].(string)
		spec := app["spec"].(map[string]any)
		src, _ := spec["source"].(map[string]any)
		ns := spec["destination"].(map[string]any)["namespace"]
		switch {
		case src["chart"] != nil || src["path"] == ".":
			want = append(want, name)
			got := planned[name]
			repo, chart := src["repoURL"].(string), src["chart"]
			if chart == nil { // OCI: the chart is the repository
				chart, repo = repo, ""
			}
			if diff := cmp.Diff(install{chart.(string), repo, src["targetRevision"].(string), ns.(string)}, got); diff != "" {
				t.Errorf("%s: the plan installs something else (-Application +plan):\n%s", name, diff)
			}
			var values any
			if data := files["out/deploy/direct-apply/local/values/"+name+".yaml"]; data != "" {
				if err := yaml.Unmarshal([]byte(data), &values); err != nil {
					t.Fatal(err)
				}
			}
			helm, _ := src["helm"].(map[string]any)
			if diff := cmp.Diff(helm["valuesObject"], values); diff != "" {
				t.Errorf("%s: the plan's values differ from the Application's valuesObject (-Application +plan):\n%s", name, diff)
			}
			checked++
		case strings.HasPrefix(src["path"].(string), "sources/"):
			want = append(want, src["path"].(string))
			if got := planned[src["path"].(string)]; got.Namespace != ns {
				t.Errorf("%s: the plan applies %s to namespace %q, the Application to %q", name, src["path"], got.Namespace, ns)
			}
			checked++
		}
	}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("the plan's order differs from the Applications' (-Applications +plan):\n%s", diff)
	}
	if checked < 15 {
		t.Errorf("checked %d Applications; the sample's local environment has more", checked)
	}
}
