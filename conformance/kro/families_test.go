package conformance

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// casesPerFamily is the number of generated cases of each family: 5,000
// (issue 11's floor), or CONFORMANCE_CASES, as for conformance/argocd, for
// a longer search.
var casesPerFamily = flag.Int("kro.cases", defaultCases(), "generated cases per rule family (default: CONFORMANCE_CASES, or 5000)")

func defaultCases() int {
	if n, err := strconv.Atoi(os.Getenv("CONFORMANCE_CASES")); err == nil && n > 0 {
		return n
	}
	return 5000
}

// Each family has its own range of seeds, so that a seed names one case.
const (
	seedSimpleSchema = 1_000_000
	seedMeta         = 2_000_000
	seedCEL          = 3_000_000
	seedInstances    = 4_000_000
	seedFields       = 5_000_000
)

// runFamily runs a family of RGD cases against platc and kro and fails
// with one reproducer per class of disagreement.
func runFamily(t *testing.T, family string, seed uint64, gen Generator) {
	t.Helper()
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	r := Run(family, seed, *casesPerFamily, gen, RealSides(base))
	report(t, r)
}

func report(t *testing.T, r *Report) {
	t.Helper()
	t.Log(r.Summary())
	if r.BothAccept == 0 || r.BothRefuse == 0 {
		t.Errorf("%s: the generator never makes a case both sides %s: it tests too little", r.Family, map[bool]string{true: "accept", false: "refuse"}[r.BothAccept == 0])
	}
	for _, c := range r.Classes {
		t.Errorf("%s", c)
	}
}

// TestSimpleSchema is family 1: SimpleSchema types and markers.
func TestSimpleSchema(t *testing.T) { runFamily(t, "simpleschema", seedSimpleSchema, GenSimpleSchema) }

// TestMeta is family 2: resource ids and the RGD's kind, group and apiVersion.
func TestMeta(t *testing.T) { runFamily(t, "meta", seedMeta, GenMeta) }

// TestCEL is family 3: CEL expressions over typed schemas.
func TestCEL(t *testing.T) { runFamily(t, "cel", seedCEL, GenCEL) }

// TestFields is family 5: resources of Kubernetes' own kinds, forEach
// collections, externalRefs and readyWhen (the extended kro fields).
func TestFields(t *testing.T) { runFamily(t, "fields", seedFields, GenFields) }

// TestInstances is family 4: instance values against the CRD kro
// generates, through platc's whole pipeline.
func TestInstances(t *testing.T) {
	base, err := BaseWorld()
	if err != nil {
		t.Fatal(err)
	}
	r := RunInstances(seedInstances, *casesPerFamily, base)
	t.Logf("instances: %d schemas generated, %d skipped (refused by platc or kro: family 1's concern)", r.Schemas, r.SkippedSchemas)
	for _, h := range r.Harness {
		t.Errorf("harness: %s", h)
	}
	if r.Cases < *casesPerFamily {
		t.Errorf("instances: only %d cases judged, want %d: too many schemas skipped", r.Cases, *casesPerFamily)
	}
	report(t, &r.Report)
}
