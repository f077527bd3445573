package synth

import (
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
)

// TestPlatformsCompile requires every generated platform to compile without
// a problem: a benchmark of a platform with errors measures nothing.
func TestPlatformsCompile(t *testing.T) {
	for _, s := range []Size{{Environments: 3, Modules: 30, Clients: 3}, Sizes["10x100"], Sizes["10x100-nostck"]} {
		res := compiler.Compile(Platform(s), compiler.Options{})
		for _, p := range res.Log.Problems() {
			// Notes say what a reader may want to know (a stacks module
			// with no instance in some environments, as generated).
			if p.Severity != diag.Note {
				t.Errorf("%v: %s", s, p)
			}
		}
	}
}

// TestPlatformsWithChartsRender requires every chart of a generated
// platform with charts to render, without a problem.
func TestPlatformsWithChartsRender(t *testing.T) {
	s := Size{Environments: 3, Modules: 30, Clients: 3}
	res := compiler.Compile(PlatformWithCharts(s), compiler.Options{KeepRenders: true})
	for _, p := range res.Log.Problems() {
		if p.Severity != diag.Note {
			t.Errorf("%v: %s", s, p)
		}
	}
	if len(res.Gaps) > 0 {
		t.Errorf("gaps: %+v", res.Gaps)
	}
	apps, objects := 0, 0
	for _, a := range res.Charts.Apps() {
		if a.Outcome.Error != "" {
			t.Errorf("%s/%s: %s", a.Env, a.Name, a.Outcome.Error)
		}
		apps++
		objects += a.Outcome.Len()
	}
	if apps < 60 || objects < 3*apps {
		t.Errorf("%d Applications rendered, %d objects", apps, objects)
	}
}
