package upstream_test

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/platc/platc/compiler/upstream"
)

// root is the repository, from this package's folder.
const root = "../.."

// moduleVersion is the version a go.mod must give a module of a target,
// or "" for a module that is none of them.
func moduleVersion(path string) string {
	switch path {
	case "github.com/argoproj/argo-cd/v3", "github.com/argoproj/argo-cd/gitops-engine/v3":
		return upstream.ArgoCD
	case "github.com/kubernetes-sigs/kro":
		return upstream.Kro
	case "helm.sh/helm/v4":
		return upstream.Helm
	case "sigs.k8s.io/kustomize/kustomize/v5":
		return upstream.Kustomize
	case "sigs.k8s.io/kustomize/api", "sigs.k8s.io/kustomize/kyaml":
		return upstream.KustomizeAPI
	case "k8s.io/kubernetes":
		return upstream.Kubernetes
	case "sigs.k8s.io/kwok":
		return upstream.Kwok
	case "go.etcd.io/etcd/server/v3":
		return upstream.Etcd
	}
	return ""
}

// stagingVersion matches the version of a k8s.io/* staging module
// (k8s.io/api v0.37.2), not those versioned on their own (k8s.io/klog/v2,
// k8s.io/utils and k8s.io/kube-openapi at pseudo-versions).
var stagingVersion = regexp.MustCompile(`^v0\.\d+\.\d+$`)

func isStaging(path, version string) bool {
	rest, ok := strings.CutPrefix(path, "k8s.io/")
	// v0.0.0 is k8s.io/kubernetes' placeholder for a module its replace
	// block names.
	return ok && !strings.Contains(rest, "/") && rest != "kubernetes" && version != "v0.0.0" && stagingVersion.MatchString(version)
}

// goMods are the go.mod files of the repository's modules.
func goMods(t *testing.T) []string {
	t.Helper()
	var mods []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDir(p, d.Name()) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			mods = append(mods, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mods
}

// skipDir is a folder that holds no file of platc's own: generated output,
// test cases (their specs are users' input), build products and Git.
func skipDir(p, name string) bool {
	switch name {
	case ".git", ".bin", "testdata", "node_modules":
		return true
	}
	rel, _ := filepath.Rel(root, p)
	return rel == "out" || rel == "golden"
}

// TestTheOnePlace requires every go.mod of the repository to require and
// replace the targets' modules at the versions this package names.
func TestTheOnePlace(t *testing.T) {
	mods := goMods(t)
	for _, want := range []string{"go.mod", "e2e/go.mod", "e2e/programs/go.mod", "conformance/argocd/go.mod", "conformance/kro/go.mod"} {
		if !slices.Contains(mods, filepath.Join(root, want)) {
			t.Errorf("%s not found: the test reads every module's go.mod", want)
		}
	}
	for _, p := range mods {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(p, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		check := func(line int, path, version string) {
			if version == "" {
				return // a replacement by a folder
			}
			want := moduleVersion(path)
			if want == "" && isStaging(path, version) {
				want = upstream.KubernetesModules()
			}
			if want != "" && version != want {
				t.Errorf("%s:%d: %s %s, but compiler/upstream targets %s: change one of them", rel, line, path, version, want)
			}
		}
		for _, r := range f.Require {
			check(r.Syntax.Start.Line, r.Mod.Path, r.Mod.Version)
		}
		for _, r := range f.Replace {
			check(r.Syntax.Start.Line, r.New.Path, r.New.Version)
		}
	}
}

// mentions are the ways a file names a release of a target, with the
// versions each may name. A version of one part only (Argo CD 3.1, a
// minor) names when a rule came, not a release platc targets, and is not
// read.
var mentions = []struct {
	re   *regexp.Regexp
	want []string
}{
	{regexp.MustCompile(`(?i)\bargo ?cd v?(\d+\.\d+\.\d+)\b`), []string{upstream.ArgoCD, upstream.ArgoCDChartApp}},
	{regexp.MustCompile(`argo-cd/v3@(v\d+\.\d+\.\d+)`), []string{upstream.ArgoCD}},
	{regexp.MustCompile(`(?i)\bkro v?(\d+\.\d+\.\d+)\b`), []string{upstream.Kro}},
	{regexp.MustCompile(`kubernetes-sigs/kro@(v\d+\.\d+\.\d+)`), []string{upstream.Kro}},
	{regexp.MustCompile(`\bHelm v?(\d+\.\d+\.\d+)\b`), []string{upstream.Helm}},
	{regexp.MustCompile(`helm/v4@(v\d+\.\d+\.\d+)`), []string{upstream.Helm}},
	{regexp.MustCompile(`(?i)\bkustomize v?(\d+\.\d+\.\d+)\b`), []string{upstream.Kustomize, upstream.ArgoCDKustomize}},
	{regexp.MustCompile(`\bKubernetes (v\d+\.\d+\.\d+)\b`), []string{upstream.Kubernetes}},
	{regexp.MustCompile(`k8s.io/kubernetes@(v\d+\.\d+\.\d+)`), []string{upstream.Kubernetes}},
	{regexp.MustCompile(`(?i)\bkwok v?(\d+\.\d+\.\d+)\b`), []string{upstream.Kwok}},
	{regexp.MustCompile(`(?i)\betcd v?(\d+\.\d+\.\d+)\b`), []string{upstream.Etcd}},
	{regexp.MustCompile(`argo-cd chart v?(\d+\.\d+\.\d+)\b`), []string{upstream.ArgoCDChart}},
}

// pastReleases starts the part of a doc that tells of releases platc
// targeted before (docs/upstream.md), which the test does not read.
const pastReleases = "<!-- past releases below"

// textFile is a file of platc's own that may name a release: code,
// docs, the spec's schema, build and CI scripts.
func textFile(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".md", ".cue", ".json5", ".yaml", ".yml", ".txtar", ".sh", ".mod":
		return true
	}
	return name == "Makefile" || name == "run"
}

// TestEveryFileNamesTheTargets requires every file of platc's own
// (code, comments, docs, the Makefile, CI) that names a release of a
// target to name the one compiler/upstream gives: after a bump, it lists
// each place that still names the old one.
func TestEveryFileNamesTheTargets(t *testing.T) {
	read := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !textFile(d.Name()) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		read++
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, pastReleases) {
				break // a doc's history
			}
			for _, m := range mentions {
				for _, sub := range m.re.FindAllStringSubmatch(line, -1) {
					v := "v" + strings.TrimPrefix(sub[1], "v")
					if !slices.Contains(m.want, v) {
						t.Errorf("%s:%d: %q names a release compiler/upstream does not target (%s): name %s, or no version", rel, i+1, sub[0], strings.Join(m.want, " or "), m.want[0])
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < 100 {
		t.Errorf("read %d files of the repository: the walk missed it", read)
	}
}

// TestMakefileBootstrap requires make bootstrap-argocd to install the
// targets' chart and Argo CD, and make conformance to build Argo CD's
// module with the Go it needs.
func TestMakefileBootstrap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ARGOCD_CHART_VERSION ?= " + upstream.ArgoCDChart + "\n",
		"ARGOCD_VERSION ?= " + upstream.ArgoCD + "\n",
		"UPSTREAM_GOTOOLCHAIN ?= " + upstream.GoToolchain + "\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Makefile has no line %q", strings.TrimSpace(want))
		}
	}
}

func TestMinor(t *testing.T) {
	for in, want := range map[string]string{"v3.6.1": "v3.6", "3.5": "v3.5", "v0.9": "v0.9", "v3": "v3", "": ""} {
		if got := upstream.Minor(in); got != want {
			t.Errorf("Minor(%q) = %q, want %q", in, got, want)
		}
	}
	if got := upstream.KubernetesModules(); !strings.HasPrefix(got, "v0.") || strings.TrimPrefix(got, "v0.") != strings.TrimPrefix(upstream.Kubernetes, "v1.") {
		t.Errorf("KubernetesModules() = %q for Kubernetes %s", got, upstream.Kubernetes)
	}
}

// TestRenovateFindsEveryTarget applies the Renovate manager of
// renovate.json5 that reads upstream.go to it, and requires it to find
// every target at its version, and nothing else: Renovate proposes each
// bump.
func TestRenovateFindsEveryTarget(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "renovate.json5"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			lines = append(lines, line)
		}
	}
	var cfg struct {
		CustomManagers []struct {
			ManagerFilePatterns []string `json:"managerFilePatterns"`
			MatchStrings        []string `json:"matchStrings"`
		} `json:"customManagers"`
	}
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &cfg); err != nil {
		t.Fatalf("renovate.json5: %v", err)
	}
	src, err := os.ReadFile("upstream.go")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, m := range cfg.CustomManagers {
		if !slices.ContainsFunc(m.ManagerFilePatterns, func(p string) bool {
			return regexp.MustCompile(strings.Trim(p, "/")).MatchString("compiler/upstream/upstream.go")
		}) {
			continue
		}
		for _, ms := range m.MatchStrings {
			re := regexp.MustCompile(ms)
			for _, sub := range re.FindAllStringSubmatch(string(src), -1) {
				found[sub[re.SubexpIndex("depName")]] = sub[re.SubexpIndex("currentValue")]
			}
		}
	}
	want := map[string]string{"argo-cd": upstream.ArgoCDChart}
	for _, target := range upstream.Targets {
		if target.Module != "" {
			want[target.Module] = target.Version
		}
	}
	if !maps.Equal(found, want) {
		t.Errorf("Renovate finds %v in upstream.go, want %v", found, want)
	}
}
