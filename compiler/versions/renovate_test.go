package versions_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/release"
	"github.com/platc/platc/compiler/versions"
)

// renovateConfig is what the test reads of renovate.json5.
type renovateConfig struct {
	IgnorePaths    []string `json:"ignorePaths"`
	CustomManagers []struct {
		CustomType          string   `json:"customType"`
		ManagerFilePatterns []string `json:"managerFilePatterns"`
		MatchStrings        []string `json:"matchStrings"`
		DatasourceTemplate  string   `json:"datasourceTemplate"`
		PackageNameTemplate string   `json:"packageNameTemplate"`
	} `json:"customManagers"`
	PostUpgradeTasks struct {
		Commands    []string `json:"commands"`
		FileFilters []string `json:"fileFilters"`
	} `json:"postUpgradeTasks"`
}

// readRenovate reads the repository's renovate.json5. It is written as
// JSON with comments on lines of their own, which the test drops.
func readRenovate(t *testing.T) renovateConfig {
	t.Helper()
	data, err := os.ReadFile("../../renovate.json5")
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) {
			lines = append(lines, line)
		}
	}
	var cfg renovateConfig
	dec := json.NewDecoder(bytes.NewReader(bytes.Join(lines, []byte("\n"))))
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("renovate.json5 is not JSON with comments on their own lines: %v", err)
	}
	return cfg
}

// dep is a dependency as Renovate finds it: where its version is written,
// and how it looks it up.
type dep struct {
	File, Value string
	Line        int
	Datasource  string
	Lookup      string // the package name, or the dependency's name
	RegistryURL string
}

func (d dep) String() string {
	return fmt.Sprintf("%s:%d %s %s %s %s", d.File, d.Line, d.Value, d.Datasource, d.Lookup, d.RegistryURL)
}

// find applies the custom managers of cfg to the files of fsys, as
// Renovate's regex manager does (matchStringsStrategy "any": each regex
// over the whole file, every match a dependency; templates filled from
// the named groups), under root.
func find(t *testing.T, cfg renovateConfig, fsys fs.FS, root string) []dep {
	t.Helper()
	var out []dep
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		for _, m := range cfg.CustomManagers {
			if m.CustomType != "regex" || !slices.ContainsFunc(m.ManagerFilePatterns, func(pat string) bool {
				return regexp.MustCompile(strings.Trim(pat, "/")).MatchString(p)
			}) {
				continue
			}
			for _, ms := range m.MatchStrings {
				re := regexp.MustCompile(ms)
				for _, idx := range re.FindAllSubmatchIndex(data, -1) {
					groups := map[string]string{}
					var valueAt int
					for i, name := range re.SubexpNames() {
						if name != "" && idx[2*i] >= 0 {
							groups[name] = string(data[idx[2*i]:idx[2*i+1]])
							if name == "currentValue" {
								valueAt = idx[2*i]
							}
						}
					}
					d := dep{File: p, Value: groups["currentValue"], Line: bytes.Count(data[:valueAt], []byte("\n")) + 1,
						Datasource: groups["datasource"], Lookup: groups["depName"], RegistryURL: groups["registryUrl"]}
					if m.DatasourceTemplate != "" {
						d.Datasource = fill(t, m.DatasourceTemplate, groups)
					}
					if m.PackageNameTemplate != "" {
						d.Lookup = fill(t, m.PackageNameTemplate, groups)
					}
					out = append(out, d)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var triple = regexp.MustCompile(`\{\{\{(\w+)\}\}\}`)

// fill fills a Handlebars template of the form the configuration uses:
// text and {{{group}}}.
func fill(t *testing.T, tmpl string, groups map[string]string) string {
	out := triple.ReplaceAllStringFunc(tmpl, func(s string) string {
		name := triple.FindStringSubmatch(s)[1]
		v, ok := groups[name]
		if !ok {
			t.Errorf("template %q names %s, which its regex does not capture", tmpl, name)
		}
		return v
	})
	if strings.Contains(out, "{{") {
		t.Errorf("template %q: the test fills {{{group}}} only", tmpl)
	}
	return out
}

// pins are the deps Renovate must find in a spec: every version pinned,
// the platform's and each environment's own, looked up as platc knows the
// chart.
func pins(spec *model.Spec) []dep {
	var out []dep
	add := func(c *model.Chart, pos diag.Pos, version string) {
		r := versions.RenovateOf(c)
		out = append(out, dep{File: pos.File, Line: pos.Line, Value: version, Datasource: r.Datasource, Lookup: r.DepName, RegistryURL: r.RegistryURL})
	}
	seen := map[diag.Pos]bool{}
	for _, c := range spec.Charts {
		add(c, c.At("version"), c.Version)
	}
	for _, env := range spec.Environments {
		for _, p := range env.Charts {
			if pos := p.At("version"); !seen[pos] {
				seen[pos] = true
				add(spec.Chart(p.Chart), pos, p.Version)
			}
		}
	}
	return out
}

func sorted(deps []dep) []string {
	var out []string
	for _, d := range deps {
		out = append(out, d.String())
	}
	slices.Sort(out)
	return out
}

func loadSpec(t *testing.T, fsys fs.FS) *model.Spec {
	t.Helper()
	log := &diag.Log{}
	loaded := load.Load(fsys, "sources", log)
	if loaded == nil || log.HasErrors() {
		t.Fatalf("the spec does not load:\n%s", log)
	}
	return model.Decode(loaded)
}

// TestRenovateFindsEveryPin applies the Renovate configuration's patterns
// to the sample spec: they must find every chart pin, the platform's and
// the environments' own, with the repository and the version platc reads,
// and nothing else.
func TestRenovateFindsEveryPin(t *testing.T) {
	cfg := readRenovate(t)
	repo := os.DirFS("../..")
	spec := loadSpec(t, repo)
	found := find(t, cfg, repo, "sources")
	want := pins(spec)
	if len(spec.Environment("local").Charts) == 0 {
		t.Fatal("the sample's lab pins no chart of its own: the test would not see an environment's pin")
	}
	if got, want := sorted(found), sorted(want); !slices.Equal(got, want) {
		t.Errorf("Renovate finds:\n  %s\nplatc pins:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if !slices.Contains(cfg.IgnorePaths, "out/**") {
		t.Errorf("ignorePaths %q does not keep Renovate's managers off out/", cfg.IgnorePaths)
	}
	if !slices.Contains(cfg.PostUpgradeTasks.Commands, "platc render") || !slices.Contains(cfg.PostUpgradeTasks.FileFilters, "out/**") {
		t.Errorf("postUpgradeTasks %+v: the pull request must carry out/ as platc render writes it", cfg.PostUpgradeTasks)
	}
}

// TestRenovateFindsWrittenPins: what platc promote and platc bump write
// for an environment that had no pin of its own, Renovate finds.
func TestRenovateFindsWrittenPins(t *testing.T) {
	cfg := readRenovate(t)
	files := fstest.MapFS{
		"sources/platform.cue": {Data: []byte(`package platform

platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: {
	web: {repoURL: "https://charts.example.com/stable", chart: "web", version: "1.0.0"}
	kro: {repoURL: "oci://registry.k8s.io/kro/charts", chart: "kro", version: "0.9.3"}
}
environments: {
	lab: revision: "HEAD"
	staging: {
		revision: "main"
	}
}
`)},
	}
	spec := loadSpec(t, files)
	log := &diag.Log{}
	for _, env := range []string{"lab", "staging"} {
		for _, b := range []struct{ chart, version string }{{"web", "1.1.0"}, {"kro", "0.10.0"}} {
			v := release.Bump(files, spec, b.chart, b.version, []string{env}, "", log)
			if log.HasErrors() {
				t.Fatalf("Bump:\n%s", log)
			}
			files["sources/platform.cue"] = &fstest.MapFile{Data: v.Files["sources/platform.cue"]}
			spec = loadSpec(t, files)
		}
	}
	if got, want := sorted(find(t, cfg, files, ".")), sorted(pins(spec)); !slices.Equal(got, want) {
		t.Errorf("Renovate finds:\n  %s\nplatc pins:\n  %s\nin:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), files["sources/platform.cue"].Data)
	}
}
