package conformance

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// repoRoot is platc's repository, which this module sits in.
const repoRoot = "../.."

// TestRendered is family 5: upstream over everything platc renders. Every
// ResourceGraphDefinition of the sample and of every positive golden case
// (one without a stderr file) must be accepted by kro, and every stack
// instance rendered must be admitted by the CRD kro generates for it.
func TestRendered(t *testing.T) {
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	repos := []string{repoRoot}
	cases, err := filepath.Glob(filepath.Join(repoRoot, "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if _, err := os.Stat(filepath.Join(c, "stderr")); err == nil {
			continue
		}
		repos = append(repos, c)
	}
	var nRGD, nInst int
	for _, dir := range repos {
		name, _ := filepath.Rel(repoRoot, dir)
		if name == "." {
			name = "sample"
		}
		t.Run(name, func(t *testing.T) {
			c := Compile(os.DirFS(dir))
			if len(c.Problems) > 0 {
				t.Fatalf("platc refuses %s: %v", dir, c.Problems)
			}
			v, err := CheckRendered(base.WithGates(c.Gates), c.Outputs)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range slices.Sorted(maps.Keys(v.RGDs)) {
				nRGD++
				if err := v.RGDs[k]; err != nil {
					t.Errorf("kro refuses %s, which platc renders: %v", k, err)
				}
			}
			// platc validates instances against the CRD it derives: it
			// must be the one kro creates.
			for name, obj := range v.Objects {
				var others []map[string]any
				for other, o := range v.Objects {
					if other != name {
						others = append(others, o)
					}
				}
				crd := PlatcInstanceCRD(c.Gates, obj, others...)
				if crd == nil || v.CRDs[fmt.Sprint(lookup(crd, "metadata", "name"))] == nil {
					t.Errorf("%s: platc derives the instance CRD %v, kro creates %v", name, lookup(crd, "metadata", "name"), slices.Sorted(maps.Keys(v.CRDs)))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v.Instances)) {
				nInst++
				if err := v.Instances[k]; err != nil {
					t.Errorf("the API server refuses %s, which platc renders: %v", k, err)
				}
			}
		})
	}
	t.Logf("family 5 (rendered): %d repositories, %d RGDs, %d instances", len(repos), nRGD, nInst)
	if nRGD == 0 || nInst == 0 {
		t.Errorf("found %d RGDs and %d instances: the test looks at nothing", nRGD, nInst)
	}
}
