package compiler_test

import (
	"bytes"
	stdcmp "cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
)

// runPlan runs a direct-apply plan (its bytes) with bash from the folder
// dir, with helm and kubectl replaced by stubs that record their
// arguments, and returns the argument vector of every command it ran, the
// command's name first, in order. It reads the plan as the shell does, so
// the test sees what an operator's helm and kubectl would receive.
func runPlan(t *testing.T, dir string, plan []byte) [][]string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH: the plan is checked by running it")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each argument ends with a NUL, each command with \x01 and a NUL:
	// no argument platc writes can hold either (check refuses control
	// characters in spec strings). A stub reads its input to the end
	// first, so the two sides of a pipe record in order.
	stub := "#!/bin/sh\ncat >/dev/null\nfor a in \"$(basename \"$0\")\" \"$@\"; do printf '%s\\0' \"$a\"; done >>\"$PLAN_LOG\"\nprintf '\\001\\0' >>\"$PLAN_LOG\"\n"
	for _, tool := range []string{"helm", "kubectl"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(tmp, "plan.sh")
	if err := os.WriteFile(script, plan, 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(tmp, "log")
	cmd := exec.Command(bash, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PLAN_LOG="+log)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the plan fails: %v\n%s", err, out)
	}
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, rec := range bytes.Split(data, []byte("\x01\x00")) {
		if len(rec) == 0 {
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(rec), "\x00"), "\x00")
		cmds = append(cmds, args)
	}
	return cmds
}

// flagValue returns the value after flag in args, or "".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestDirectApplyMatchesTheApplications runs the sample's direct-apply
// plan with stub tools and reads the local environment's Applications
// from the rendered bytes, and requires the same charts at the same
// versions in the same namespaces with the same values, the same folders,
// and the same order.
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

	type install struct{ Chart, Repo, Version, Namespace, Values string }
	planned := map[string]install{}
	var order []string
	for _, args := range runPlan(t, "..", []byte(plan)) {
		switch {
		case len(args) > 4 && args[0] == "helm" && args[1] == "upgrade" && args[2] == "--install" && strings.HasPrefix(args[4], "sources/"):
			// A chart of this repository: its folder, as Argo CD's source.
			planned[args[4]] = install{Namespace: flagValue(args, "--namespace")}
			order = append(order, args[4])
		case len(args) > 4 && args[0] == "helm" && args[1] == "upgrade" && args[2] == "--install":
			planned[args[3]] = install{args[4], flagValue(args, "--repo"), flagValue(args, "--version"), flagValue(args, "--namespace"), flagValue(args, "--values")}
			order = append(order, args[3])
		case len(args) == 7 && args[0] == "kubectl" && args[1] == "apply" && args[2] == "--server-side":
			planned[args[6]] = install{Namespace: flagValue(args, "--namespace")}
			order = append(order, args[6])
		}
	}

	// Every Application of local that deploys a chart or a folder, in the
	// order Argo CD syncs them: each apps file by the wave annotation,
	// then name (a group's members at the group's place).
	var apps []map[string]any
	var walk func(file string)
	walk = func(file string) {
		var inFile []map[string]any
		for _, doc := range strings.Split(files[file], "\n---\n") {
			var app map[string]any
			if err := yaml.Unmarshal([]byte(doc), &app); err != nil || app == nil || app["kind"] != "Application" {
				continue // an AppProject platc renders for stack instances
			}
			inFile = append(inFile, app)
		}
		wave := func(app map[string]any) int {
			w, _ := strconv.Atoi(app["metadata"].(map[string]any)["annotations"].(map[string]any)["argocd.argoproj.io/sync-wave"].(string))
			return w
		}
		name := func(app map[string]any) string { return app["metadata"].(map[string]any)["name"].(string) }
		slices.SortStableFunc(inFile, func(a, b map[string]any) int {
			return stdcmp.Or(stdcmp.Compare(wave(a), wave(b)), strings.Compare(name(a), name(b)))
		})
		for _, app := range inFile {
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
			wantValues := ""
			if _, ok := files["out/deploy/direct-apply/local/values/"+name+".yaml"]; ok {
				wantValues = "out/deploy/direct-apply/local/values/" + name + ".yaml"
			}
			if diff := cmp.Diff(install{chart.(string), repo, src["targetRevision"].(string), ns.(string), wantValues}, got); diff != "" {
				t.Errorf("%s: the plan installs something else (-Application +plan):\n%s", name, diff)
			}
			var values any
			if got.Values != "" {
				if err := yaml.Unmarshal([]byte(files[got.Values]), &values); err != nil {
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

// TestDirectApplyHostileNames renders a platform whose folder names and
// chart repositories hold shell syntax, runs its plan with stub tools, and
// requires every spec string to reach helm and kubectl as exactly the one
// argument it is, and no command of the spec to run.
func TestDirectApplyHostileNames(t *testing.T) {
	repo := t.TempDir()
	folders := []string{"x$(touch PWNED)", "a;touch PWNED;b", "with space", "b`touch PWNED`c", "q'uote"}
	files := map[string]string{
		"sources/platform.cue": `package platform

platform: {name: "hostile", repoURL: "https://git.example.com/hostile.git", outDir: "gen out"}
charts: {
	web: {repoURL: "https://charts.example.com/$(touch$IFS'PWNED')", chart: "web", version: "1.0.0"}
	registry: {repoURL: "oci://registry.example.com/charts;touch$IFS'PWNED'", chart: "app", version: "2.0.0"}
}
modules: {
	web: {chart: "web", namespace: "web", values: replicas: 1}
	app: {chart: "registry", namespace: "app"}
	subst: {path: "sources/manifests/x$(touch PWNED)", namespace: "subst"}
	semi: {path: "sources/manifests/a;touch PWNED;b", namespace: "semi"}
	space: {path: "sources/manifests/with space", namespace: "space"}
	tick: {path: "sources/manifests/b` + "`touch PWNED`" + `c", namespace: "tick"}
	quote: {path: "sources/manifests/q'uote", namespace: "quote"}
}
environments: local: {revision: "HEAD", directApply: true}
`,
	}
	for _, f := range folders {
		files["sources/manifests/"+f+"/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n"
	}
	for name, data := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := compiler.Compile(os.DirFS(repo), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the platform does not compile:\n%s", res.Log)
	}
	var plan []byte
	for _, o := range res.Outputs {
		if o.Path == "gen out/deploy/direct-apply/local/plan.sh" {
			plan = o.Data
		}
	}
	if plan == nil {
		t.Fatal("no plan for the local environment")
	}
	got := runPlan(t, repo, plan)
	apply := func(ns, dir string) [][]string {
		return [][]string{
			{"kubectl", "create", "namespace", ns, "--dry-run=client", "-o", "yaml"},
			{"kubectl", "apply", "-f", "-"},
			{"kubectl", "apply", "--server-side", "--namespace", ns, "-f", "sources/manifests/" + dir},
		}
	}
	var want [][]string
	want = append(want, []string{"helm", "upgrade", "--install", "app", "oci://registry.example.com/charts;touch$IFS'PWNED'/app", "--version", "2.0.0", "--namespace", "app", "--create-namespace", "--wait"})
	want = append(want, apply("quote", "q'uote")...)
	want = append(want, apply("semi", "a;touch PWNED;b")...)
	want = append(want, apply("space", "with space")...)
	want = append(want, apply("subst", "x$(touch PWNED)")...)
	want = append(want, apply("tick", "b`touch PWNED`c")...)
	want = append(want, []string{"helm", "upgrade", "--install", "web", "web", "--repo", "https://charts.example.com/$(touch$IFS'PWNED')", "--version", "1.0.0", "--namespace", "web", "--create-namespace", "--values", "gen out/deploy/direct-apply/local/values/web.yaml", "--wait"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helm and kubectl receive other arguments (-want +got):\n%s\nplan:\n%s", diff, plan)
	}
	matches, _ := filepath.Glob(filepath.Join(repo, "*PWNED*"))
	if len(matches) > 0 {
		t.Errorf("the plan ran a command of the spec: %v", matches)
	}
}

// TestDirectApplyFields runs the plan of golden/argocd-fields, whose
// modules set every extended Helm and folder option, with stub tools,
// and requires helm to get the Application's release name, CRD and
// credential options, values files in Argo CD's order and its parameters
// as Argo CD passes them, kubectl the files Argo CD reads of a folder with
// directory options and the extra manifests of a chart, and the
// kustomization the plan builds over a module's to give what Argo CD's
// kustomize options give.
func TestDirectApplyFields(t *testing.T) {
	repo := filepath.Join("..", "golden", "argocd-fields")
	files := goldenOutputs(t, repo)
	got := runPlan(t, repo, []byte(files["out/deploy/direct-apply/lab/plan.sh"]))
	want := [][]string{
		{"helm", "upgrade", "--install", "keda-operator", "keda", "--repo", "https://kedacore.github.io/charts", "--version", "2.17.2", "--namespace", "keda", "--create-namespace",
			"--values", "out/deploy/direct-apply/lab/values/keda.yaml",
			"--set-string", "image.keda.tag=2.17.2", "--set", "resources.operator.limits.memory=1Gi", "--set", `podAnnotations.price=$5\, or more`, "--wait"},
		{"kubectl", "create", "namespace", "overlay", "--dry-run=client", "-o", "yaml"},
		{"kubectl", "apply", "-f", "-"},
		{"kubectl", "apply", "--server-side", "--namespace", "overlay", "-k", "out/deploy/direct-apply/lab/kustomize/overlay"},
		{"kubectl", "create", "namespace", "site", "--dry-run=client", "-o", "yaml"},
		{"kubectl", "apply", "-f", "-"},
		{"kubectl", "apply", "--server-side", "--namespace", "site", "-f", "sources/manifests/site/configmap.yaml", "-f", "sources/manifests/site/sub/page.yaml"},
		{"helm", "upgrade", "--install", "web", "web", "--repo", "https://charts.example.com/stable", "--version", "1.2.3", "--namespace", "web", "--create-namespace",
			"--pass-credentials", "--values", "sources/values/web.yaml", "--values", "sources/values/web-lab.yaml", "--values", "out/deploy/direct-apply/lab/values/web.yaml", "--wait"},
		{"kubectl", "apply", "--server-side", "--namespace", "web", "-f", "sources/manifests/web-extra"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helm and kubectl receive other arguments (-want +got):\n%s", diff)
	}

	// The plan's kustomization, built as kubectl -k builds it, over the
	// repository with the rendered files in place.
	fsys := filesys.MakeFsInMemory()
	_ = filepath.WalkDir(filepath.Join(repo, "sources"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(repo, p)
			_ = fsys.WriteFile("/"+filepath.ToSlash(rel), data)
		}
		return nil
	})
	k := "out/deploy/direct-apply/lab/kustomize/overlay"
	if err := fsys.WriteFile("/"+k+"/kustomization.yaml", []byte(files[k+"/kustomization.yaml"])); err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, "/"+k)
	if err != nil {
		t.Fatalf("kustomize cannot build the plan's kustomization: %v", err)
	}
	built, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var dep map[string]any
	if err := yaml.Unmarshal(built, &dep); err != nil {
		t.Fatal(err)
	}
	wantDep := map[string]any{
		"name":     "lab-app",
		"image":    "registry.example.com/nginx:1.27.0",
		"replicas": float64(2),
		"team":     "web",
		"owner":    "web-team",
	}
	containers := lookup(dep, "spec", "template", "spec", "containers").([]any)
	gotDep := map[string]any{
		"name":     lookup(dep, "metadata", "name"),
		"image":    containers[0].(map[string]any)["image"],
		"replicas": lookup(dep, "spec", "replicas"),
		"team":     lookup(dep, "spec", "selector", "matchLabels", "team"),
		"owner":    lookup(dep, "metadata", "annotations", "example.com/owner"),
	}
	if diff := cmp.Diff(wantDep, gotDep); diff != "" {
		t.Errorf("the plan's kustomization gives another Deployment than the options say (-want +got):\n%s\n%s", diff, built)
	}
}

func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// TestDirectApplyExtraSources runs the plan of modules with further
// sources: each chart rendered as Argo CD renders it and applied, each
// folder applied with the files Argo CD reads of it.
func TestDirectApplyExtraSources(t *testing.T) {
	repo := filepath.Join("..", "golden", "extra-sources")
	got := runPlan(t, repo, []byte(goldenOutputs(t, repo)["out/deploy/direct-apply/laptop/plan.sh"]))
	want := [][]string{
		{"helm", "upgrade", "--install", "shop", "web", "--repo", "https://charts.example.com", "--version", "1.0.0", "--namespace", "shop", "--create-namespace",
			"--values", "sources/values/shop.yaml", "--wait"},
		{"kubectl", "apply", "--server-side", "--namespace", "shop", "-f", "sources/manifests/shop-extras/configmap.yaml", "-f", "sources/manifests/shop-extras/more/region.yaml"},
		{"kubectl", "create", "namespace", "site", "--dry-run=client", "-o", "yaml"},
		{"kubectl", "apply", "-f", "-"},
		{"kubectl", "apply", "--server-side", "--namespace", "site", "-f", "sources/manifests/site"},
		{"helm", "template", "site-web", "web", "--repo", "https://charts.example.com", "--version", "1.0.0", "--namespace", "site",
			"--values", "out/deploy/direct-apply/laptop/values/site.source-1.yaml"},
		{"kubectl", "apply", "--server-side", "--namespace", "site", "-f", "-"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helm and kubectl receive other arguments (-want +got):\n%s", diff)
	}
}

// goldenOutputs compiles the golden case in repo, which must compile, and
// returns its outputs by path.
func goldenOutputs(t *testing.T, repo string) map[string]string {
	t.Helper()
	res := compiler.Compile(os.DirFS(repo), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the case does not compile:\n%s", res.Log)
	}
	files := map[string]string{}
	for _, o := range res.Outputs {
		files[o.Path] = string(o.Data)
	}
	return files
}
