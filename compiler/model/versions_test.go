package model

import (
	"fmt"
	"testing"
)

func TestChartPins(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: {
	kyverno: {repoURL: "https://kyverno.github.io/kyverno/", chart: "kyverno", version: "3.7.2"}
	web: {repoURL: "oci://ghcr.io/example/charts", chart: "web", version: "0.4.0"}
}
// Every customer holds kyverno at 3.7.1: one pin for a group of
// environments, written once.
environments: [=~"^customer-"]: charts: kyverno: version: "3.7.1"
environments: {
	lab: {revision: "HEAD", charts: {kyverno: version: "3.9.0", web: version: "0.5.1"}}
	staging: revision: "main"
	"customer-a": revision: "v1.0.0"
	"customer-b": revision: "v1.0.0"
}
`)
	lab, staging, a, b := spec.Environment("lab"), spec.Environment("staging"), spec.Environment("customer-a"), spec.Environment("customer-b")
	for _, tc := range []struct {
		env     *Environment
		chart   string
		version string
		pinned  bool
	}{
		{lab, "kyverno", "3.9.0", true},
		{lab, "web", "0.5.1", true},
		{staging, "kyverno", "3.7.2", false},
		{staging, "web", "0.4.0", false},
		{a, "kyverno", "3.7.1", true},
		{b, "kyverno", "3.7.1", true},
		{nil, "kyverno", "3.7.2", false},
	} {
		c := spec.ChartIn(tc.env, tc.chart)
		name := "the platform"
		if tc.env != nil {
			name = tc.env.Name
		}
		if c == nil || c.Version != tc.version || (c.Pin != nil) != tc.pinned || c.RepoURL != spec.Chart(tc.chart).RepoURL {
			t.Errorf("%s runs %s at %+v, want %s (pinned %v)", name, tc.chart, c, tc.version, tc.pinned)
		}
	}
	if spec.ChartIn(staging, "kyverno") != spec.Chart("kyverno") {
		t.Error("an environment without a pin of its own does not run the platform's chart itself")
	}
	if spec.ChartIn(lab, "nope") != nil {
		t.Error("an unknown chart is found")
	}
	// The group's pin is written once: both environments point at it.
	pa, pb := a.Pin("kyverno"), b.Pin("kyverno")
	if pa.At("version") != pb.At("version") || pa.At("version").Line != 9 {
		t.Errorf("the group's pin is at %s and %s, want both at line 9", pa.At("version"), pb.At("version"))
	}
	if pa.FieldPath("version") != "environments.customer-a.charts.kyverno.version" {
		t.Errorf("spec path %s", pa.FieldPath("version"))
	}
	if !spec.PinnedSomewhere("web") || !spec.PinnedSomewhere("kyverno") {
		t.Error("PinnedSomewhere misses a pin")
	}
	var got []string
	for _, v := range spec.ChartVersions() {
		got = append(got, fmt.Sprintf("%s %s %v %v", v.Chart.Name, v.Version, v.Platform, v.Envs))
	}
	want := []string{
		"kyverno 3.7.1 false [customer-a customer-b]",
		"kyverno 3.7.2 true []",
		"kyverno 3.9.0 false [lab]",
		"web 0.4.0 true []",
		"web 0.5.1 false [lab]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ChartVersions:\n got %q\nwant %q", got, want)
	}
}

func TestNoPinsCostNothing(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: web: {repoURL: "oci://ghcr.io/example/charts", chart: "web", version: "0.4.0"}
environments: lab: revision: "HEAD"
`)
	if env := spec.Environment("lab"); env.Charts != nil || env.charts != nil || spec.pinned != nil {
		t.Errorf("a spec without pins of environments allocates for them: %+v %v %v", env.Charts, env.charts, spec.pinned)
	}
}
