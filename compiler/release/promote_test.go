package release

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
)

const charts = `package platform

platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: {
	kyverno: {repoURL: "https://kyverno.github.io/kyverno/", chart: "kyverno", version: "3.7.2"}
	"external-secrets": {repoURL: "https://charts.external-secrets.io", chart: "external-secrets", version: "2.0.0"}
	kro: {repoURL: "oci://registry.k8s.io/kro/charts", chart: "kro", version: "0.9.3"}
}
`

func decode(t *testing.T, files fstest.MapFS) *model.Spec {
	t.Helper()
	log := &diag.Log{}
	loaded := load.Load(files, "sources", log)
	if loaded == nil || log.HasErrors() {
		t.Fatalf("the spec does not load:\n%s", log)
	}
	return model.Decode(loaded)
}

// TestBumpWritesPins checks each way an environment can be written: the
// edited spec must load, and run the version set, with the rest of the
// file as it was.
func TestBumpWritesPins(t *testing.T) {
	for _, tc := range []struct {
		name, envs, want string
	}{{
		name: "a struct over several lines",
		envs: "environments: {\n\tlab: {\n\t\trevision: \"HEAD\" // follows main\n\t}\n}\n",
		want: "environments: {\n\tlab: {\n\t\trevision: \"HEAD\" // follows main\n\t\tcharts: {\n\t\t\t// renovate: datasource=helm depName=kyverno registryUrl=https://kyverno.github.io/kyverno/\n\t\t\tkyverno: version: \"3.8.2\"\n\t\t}\n\t}\n}\n",
	}, {
		name: "its charts struct",
		envs: "environments: lab: {\n    revision: \"HEAD\"\n    charts: {\n        kro: version: \"0.9.2\"\n    }\n}\n",
		want: "environments: lab: {\n    revision: \"HEAD\"\n    charts: {\n        kro: version: \"0.9.2\"\n        // renovate: datasource=helm depName=kyverno registryUrl=https://kyverno.github.io/kyverno/\n        kyverno: version: \"3.8.2\"\n    }\n}\n",
	}, {
		name: "labels at the top",
		envs: "environments: lab: revision: \"HEAD\"\n",
		want: "environments: lab: revision: \"HEAD\"\n// renovate: datasource=helm depName=kyverno registryUrl=https://kyverno.github.io/kyverno/\nenvironments: lab: charts: kyverno: version: \"3.8.2\"\n",
	}, {
		name: "a struct on one line",
		envs: "environments: {\n\tlab: {revision: \"HEAD\"}\n}\n",
		want: "environments: {\n\tlab: {revision: \"HEAD\"}\n\t// renovate: datasource=helm depName=kyverno registryUrl=https://kyverno.github.io/kyverno/\n\tlab: charts: kyverno: version: \"3.8.2\"\n}\n",
	}, {
		name: "everything on one line",
		envs: "environments: {lab: revision: \"HEAD\"}\n",
		want: "environments: {lab: revision: \"HEAD\", lab: charts: {kyverno: version: \"3.8.2\"}}\n",
	}, {
		name: "its own pin",
		envs: "environments: lab: {revision: \"HEAD\", charts: kyverno: version: \"3.7.0\"}\n",
		want: "environments: lab: {revision: \"HEAD\", charts: kyverno: version: \"3.8.2\"}\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			files := fstest.MapFS{"sources/platform.cue": {Data: []byte(charts)}, "sources/environments.cue": {Data: []byte("package platform\n\n" + tc.envs)}}
			spec := decode(t, files)
			log := &diag.Log{}
			v := Bump(files, spec, "kyverno", "3.8.2", []string{"lab"}, "", log)
			if log.HasErrors() {
				t.Fatalf("Bump:\n%s", log)
			}
			got := string(v.Files["sources/environments.cue"])
			if want := "package platform\n\n" + tc.want; got != want {
				t.Fatalf("edited:\n%s\nwant:\n%s", got, want)
			}
			files["sources/environments.cue"] = &fstest.MapFile{Data: []byte(got)}
			if c := decode(t, files).ChartIn(decode(t, files).Environment("lab"), "kyverno"); c.Version != "3.8.2" {
				t.Errorf("the edited spec runs kyverno %s in lab", c.Version)
			}
		})
	}
}

// TestPromoteWritesEveryChart promotes two charts at once, one with a
// name that is no CUE identifier and one from an OCI registry, into an
// environment that has none of its own.
func TestPromoteWritesEveryChart(t *testing.T) {
	envs := `package platform

environments: {
	lab: {
		revision: "HEAD"
		charts: {
			"external-secrets": version: "2.1.0"
			kro: version:                "0.10.0"
		}
	}
	staging: {
		revision: "main"
	}
}
`
	files := fstest.MapFS{"sources/platform.cue": {Data: []byte(charts)}, "sources/environments.cue": {Data: []byte(envs)}}
	spec := decode(t, files)
	log := &diag.Log{}
	v := Promote(files, spec, "lab", "staging", nil, "", log)
	if log.HasErrors() {
		t.Fatalf("Promote:\n%s", log)
	}
	want := `	staging: {
		revision: "main"
		charts: {
			// renovate: datasource=helm depName=external-secrets registryUrl=https://charts.external-secrets.io
			"external-secrets": version: "2.1.0"
			// renovate: datasource=docker depName=registry.k8s.io/kro/charts/kro
			kro: version: "0.10.0"
		}
	}
`
	if got := string(v.Files["sources/environments.cue"]); !strings.Contains(got, want) {
		t.Fatalf("edited:\n%s\nwant it to hold:\n%s", got, want)
	}
	if len(v.Changes) != 2 || !v.Changes[0].New || v.Changes[0].Chart != "external-secrets" || v.Changes[1].To != "0.10.0" {
		t.Errorf("changes: %+v", v.Changes)
	}
}

// TestRefusals: what Promote and Bump refuse, with the exact message.
func TestRefusals(t *testing.T) {
	envs := `package platform

environments: {
	lab: revision: "HEAD"
	customer: {revision: "v1.2.3", pinned: true}
}
_hold: charts: kyverno: version: "3.7.0"
environments: "customer-a": _hold & {revision: "v1.0.0", pinned: true}
environments: "customer-b": _hold & {revision: "v1.0.0", pinned: true}
`
	files := fstest.MapFS{"sources/platform.cue": {Data: []byte(charts)}, "sources/environments.cue": {Data: []byte(envs)}}
	spec := decode(t, files)
	for _, tc := range []struct {
		name string
		run  func(*diag.Log) *Versions
		want string
	}{{
		name: "a bump of the platform's pin, which a pinned environment runs",
		run: func(log *diag.Log) *Versions {
			return Bump(files, spec, "kyverno", "3.8.0", nil, "", log)
		},
		want: `sources/environments.cue:5:23: environments.customer.revision: pinned environment customer runs the charts of its release v1.2.3 (kyverno 3.7.2, the platform's pin): a new version reaches it with a release; bump and release in one edit with -release v1.2.4 (or a later tag), or bump only environments that are not pinned [release]`,
	}, {
		name: "a release that does not move forward",
		run: func(log *diag.Log) *Versions {
			return Promote(files, spec, "lab", "customer-a", nil, "v0.9.0", log)
		},
		want: `sources/environments.cue:8:48: environments.customer-a.revision: v0.9.0 is not newer than the current pin v1.0.0: a release moves forward [release]`,
	}, {
		name: "a release nothing needs",
		run: func(log *diag.Log) *Versions {
			return Bump(files, spec, "kro", "0.9.4", []string{"lab"}, "v1.3.0", log)
		},
		want: `platc: -release v1.3.0: the bump reaches no pinned environment, so there is nothing to release: leave -release out, or run platc release [release]`,
	}, {
		name: "a pin written once for two environments",
		run: func(log *diag.Log) *Versions {
			return Bump(files, spec, "kyverno", "3.8.0", []string{"customer-a"}, "v1.1.0", log)
		},
		want: `sources/environments.cue:7:34: environments.customer-a.charts.kyverno.version: the version is written once for customer-a and customer-b (through CUE: a pattern or a definition): a bump of kyverno would change them all; bump them together, or edit the spec by hand [spec-edit]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			log := &diag.Log{}
			if v := tc.run(log); v != nil || !log.HasErrors() {
				t.Fatalf("not refused: %+v", v)
			}
			if got := strings.TrimSpace(log.String()); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// Both environments of the shared pin, together: one edit.
	log := &diag.Log{}
	v := Bump(files, spec, "kyverno", "3.8.0", []string{"customer-a", "customer-b"}, "v1.1.0", log)
	if log.HasErrors() {
		t.Fatalf("Bump:\n%s", log)
	}
	if got := string(v.Files["sources/environments.cue"]); strings.Count(got, `"3.8.0"`) != 1 || strings.Count(got, `"v1.1.0"`) != 2 {
		t.Errorf("edited:\n%s", got)
	}
}
