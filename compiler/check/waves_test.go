package check

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
)

// specHeader is everything a spec needs besides its modules: one chart that
// every module of the tests installs, and one environment. It is four lines
// long, so the modules of a test start on line 5.
const specHeader = `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: c: {repoURL: "https://charts.example.com", chart: "c", version: "1.2.3"}
environments: dev: revision: "HEAD"
`

// checkModules loads a spec of specHeader followed by modules, as the
// compiler does, and checks it.
func checkModules(t *testing.T, modules string) (*Info, []diag.Problem) {
	t.Helper()
	fsys := fstest.MapFS{"sources/platform.cue": {Data: []byte(specHeader + modules)}}
	log := &diag.Log{}
	loaded := load.Load(fsys, "sources", log)
	if loaded == nil {
		t.Fatalf("the test spec does not load:\n%s", log)
	}
	info := Check(model.Decode(loaded), fsys, log)
	return info, log.Problems()
}

func TestCheckDerivesWavesAndParents(t *testing.T) {
	tests := []struct {
		name       string
		modules    string
		wantWaves  map[string]int
		wantParent map[string]string
	}{
		{
			name: "no needs",
			modules: `modules: {
	a: {chart: "c", namespace: "a"}
	b: {chart: "c", namespace: "b"}
}`,
			wantWaves:  map[string]int{"a": 0, "b": 0},
			wantParent: map[string]string{},
		},
		{
			// Argo CD's waves may be negative: a hand-set one is
			// kept, and what needs it syncs one wave later (at least
			// 0, as without needs).
			name: "hand-set waves before 0",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: -3}
	b: {chart: "c", namespace: "b", needs: ["a"], wave: -2}
	c: {chart: "c", namespace: "c", needs: ["b"]}
}`,
			wantWaves:  map[string]int{"a": -3, "b": -2, "c": 0},
			wantParent: map[string]string{},
		},
		{
			name: "chain",
			modules: `modules: {
	c: {chart: "c", namespace: "c", needs: ["b"]}
	b: {chart: "c", namespace: "b", needs: ["a"]}
	a: {chart: "c", namespace: "a"}
}`,
			wantWaves:  map[string]int{"a": 0, "b": 1, "c": 2},
			wantParent: map[string]string{},
		},
		{
			name: "diamond",
			modules: `modules: {
	top:    {chart: "c", namespace: "top"}
	left:   {chart: "c", namespace: "left", needs: ["top"]}
	right:  {chart: "c", namespace: "right", needs: ["top"]}
	bottom: {chart: "c", namespace: "bottom", needs: ["left", "right"]}
}`,
			wantWaves:  map[string]int{"top": 0, "left": 1, "right": 1, "bottom": 2},
			wantParent: map[string]string{},
		},
		{
			name: "the latest need decides, not the first",
			modules: `modules: {
	a: {chart: "c", namespace: "a"}
	b: {chart: "c", namespace: "b", needs: ["a"]}
	c: {chart: "c", namespace: "c", needs: ["b"]}
	z: {chart: "c", namespace: "z", needs: ["a", "c", "b"]}
}`,
			wantWaves:  map[string]int{"a": 0, "b": 1, "c": 2, "z": 3},
			wantParent: map[string]string{},
		},
		{
			name: "explicit waves are honoured",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: 5}
	b: {chart: "c", namespace: "b", needs: ["a"]}
	c: {chart: "c", namespace: "c", wave: 2}
	d: {chart: "c", namespace: "d", needs: ["a"], wave: 9}
	e: {chart: "c", namespace: "e", wave: 0}
}`,
			wantWaves:  map[string]int{"a": 5, "b": 6, "c": 2, "d": 9, "e": 0},
			wantParent: map[string]string{},
		},
		{
			name: "a need on a group member is lifted to the group",
			modules: `modules: {
	db:      {chart: "c", namespace: "db"}
	ops:     {group: ["kyverno", "certs"], needs: ["db"]}
	kyverno: {chart: "c", namespace: "kyverno"}
	certs:   {chart: "c", namespace: "certs", needs: ["kyverno"]}
	policy:  {chart: "c", namespace: "policy", needs: ["certs"]}
}`,
			// policy syncs after ops (wave 1), which delivers certs; certs
			// is at wave 1 among its own siblings in ops' apps file.
			wantWaves:  map[string]int{"db": 0, "ops": 1, "kyverno": 0, "certs": 1, "policy": 2},
			wantParent: map[string]string{"kyverno": "ops", "certs": "ops"},
		},
		{
			name: "a member's need on a top-level module is lifted to its group",
			modules: `modules: {
	g:   {group: ["m"]}
	m:   {chart: "c", namespace: "m", needs: ["top"]}
	top: {chart: "c", namespace: "top"}
}`,
			wantWaves:  map[string]int{"g": 1, "m": 0, "top": 0},
			wantParent: map[string]string{"m": "g"},
		},
		{
			name: "nested groups",
			modules: `modules: {
	outer: {group: ["inner", "x"]}
	inner: {group: ["y", "z"]}
	x:     {chart: "c", namespace: "x"}
	y:     {chart: "c", namespace: "y", needs: ["x"]}
	z:     {chart: "c", namespace: "z", needs: ["y"]}
	w:     {chart: "c", namespace: "w", needs: ["z"]}
}`,
			// y needs x: inner syncs after x in outer's apps file. w needs
			// z: w syncs after outer in the environment's apps.yaml.
			wantWaves:  map[string]int{"outer": 0, "inner": 1, "x": 0, "y": 0, "z": 1, "w": 1},
			wantParent: map[string]string{"inner": "outer", "x": "outer", "y": "inner", "z": "inner"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, problems := checkModules(t, tt.modules)
			if len(problems) > 0 {
				t.Fatalf("unexpected problems:\n%v", problems)
			}
			if diff := cmp.Diff(tt.wantWaves, info.Waves); diff != "" {
				t.Errorf("Waves (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantParent, info.Parent, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckReportsWaveProblems(t *testing.T) {
	tests := []struct {
		name    string
		modules string
		// wantWaves, where set, are the waves derived despite the
		// problem; the waves of a cycle are not specified.
		wantWaves map[string]int
		want      []string
	}{
		{
			name: "cycle",
			modules: `modules: {
	a: {chart: "c", namespace: "a", needs: ["b"]}
	b: {chart: "c", namespace: "b", needs: ["a"]}
}`,
			want: []string{
				"sources/platform.cue:6:34: modules.a.needs: modules need each other: a -> b -> a: remove one of these needs [cycle]",
			},
		},
		{
			name: "hand-set wave not after a need",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: 3}
	b: {chart: "c", namespace: "b", needs: ["a"], wave: 2}
}`,
			wantWaves: map[string]int{"a": 3, "b": 2},
			want: []string{
				`sources/platform.cue:7:54: modules.b.wave: wave 2 is not after wave 3 of "a", which it needs: set wave to 4 or more, or remove it [order]`,
			},
		},
		{
			name: "hand-set wave before 0 not after a need",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: -2}
	b: {chart: "c", namespace: "b", needs: ["a"], wave: -2}
	c: {chart: "c", namespace: "c", wave: -2147483649}
}`,
			wantWaves: map[string]int{"a": -2, "b": -2, "c": -2147483648},
			want: []string{
				`sources/platform.cue:7:54: modules.b.wave: wave -2 is not after wave -2 of "a", which it needs: set wave to -1 or more, or remove it [order]`,
				"sources/platform.cue:8:40: modules.c.wave: wave is less than -2147483648, the earliest sync wave Argo CD reads (an int of 32 bits on 32-bit builds): use a larger wave [order]",
			},
		},
		{
			name: "a wave too large for Argo CD",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: 9223372036854775808}
	b: {chart: "c", namespace: "b", wave: 2147483648}
	c: {chart: "c", namespace: "c", wave: 2147483647}
	d: {chart: "c", namespace: "d", needs: ["a"]}
}`,
			want: []string{
				"sources/platform.cue:6:40: modules.a.wave: wave is more than 2147483647, the latest sync wave Argo CD reads: it reads the annotation with strconv.Atoi, into an int of 32 bits on 32-bit builds, and syncs a wave it cannot read as wave 0; use a smaller wave [order]",
				"sources/platform.cue:7:40: modules.b.wave: wave is more than 2147483647, the latest sync wave Argo CD reads: it reads the annotation with strconv.Atoi, into an int of 32 bits on 32-bit builds, and syncs a wave it cannot read as wave 0; use a smaller wave [order]",
			},
		},
		{
			name: "needs past the latest wave, reported once",
			modules: `modules: {
	a: {chart: "c", namespace: "a", wave: 2147483647}
	b: {chart: "c", namespace: "b", needs: ["a"]}
	c: {chart: "c", namespace: "c", needs: ["b"]}
	d: {chart: "c", namespace: "d", needs: ["c"], wave: 5}
}`,
			want: []string{
				`sources/platform.cue:7:34: modules.b.needs: syncs after "a", at wave 2147483647, the latest sync wave Argo CD reads: lower the wave of "a", or of what it needs [order]`,
			},
		},
		{
			name: "member needs its group",
			modules: `modules: {
	g: {group: ["m"]}
	m: {chart: "c", namespace: "m", needs: ["g"]}
}`,
			wantWaves: map[string]int{"g": 0, "m": 0},
			want: []string{
				`sources/platform.cue:7:34: modules.m.needs: "m" needs "g", but one delivers the other: remove the need, the group syncs its members itself [order]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, problems := checkModules(t, tt.modules)
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.wantWaves == nil {
				return
			}
			if diff := cmp.Diff(tt.wantWaves, info.Waves); diff != "" {
				t.Errorf("Waves (-want +got):\n%s", diff)
			}
		})
	}
}
