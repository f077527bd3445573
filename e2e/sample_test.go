package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/platc/platc/e2e/deliver"
)

// realCharts is the corpus of the real charts the sample pins: Helm chart
// archives, ../shared/charts beside the repository (from this folder,
// ../../shared/charts), read-only.
var realCharts = filepath.Join("..", "..", "shared", "charts")

// TestSample delivers the sample platform (sources/ and its committed
// out/) to two clusters, one per environment: local follows HEAD,
// customer is pinned to the release tag. Then the lifecycle: a module
// removed and pruned, an object edited by hand and healed, a release that
// moves the customer and not the lab.
func TestSample(t *testing.T) {
	// The longest delivery takes its slots first, before the golden
	// cases' (acquired after t.Parallel, once the tests resume).
	acquire(t, 2)
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Minute)
	defer cancel()
	// With the real charts it pins, from the corpus beside the
	// repository (../shared/charts): a run without it fails.
	rig, err := deliver.NewRig(deliver.Source{Dir: "..", Name: "sample", Corpus: realCharts}, testDir(t, "rig"), os.Stderr)
	if err != nil {
		report.Fail("sample: %v", err)
		t.Fatal(err)
	}
	defer rig.Close()
	report.AddPins(rig.Pins)
	// The two control planes start together; each is then waited for.
	envs := map[string]*deliver.Env{}
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range []string{"local", "customer"} {
		opts := envOptions(t, name)
		wg.Go(func() {
			env, err := rig.Deliver(ctx, name, opts)
			mu.Lock()
			envs[name], errs[name] = env, err
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, name := range []string{"local", "customer"} {
		if envs[name] != nil {
			defer envs[name].Stop()
		}
	}
	for _, name := range []string{"local", "customer"} {
		if errs[name] != nil {
			report.Fail("sample/%s: %v", name, errs[name])
			t.Fatal(errs[name])
		}
	}
	// Each is waited for at once: a person syncs what a window holds in
	// one while the other settles.
	states := map[string]*deliver.State{}
	for _, name := range []string{"local", "customer"} {
		wg.Go(func() {
			st, err := envs[name].Wait(ctx, 12*time.Minute)
			mu.Lock()
			states[name], errs[name] = st, err
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, name := range []string{"local", "customer"} {
		if st := states[name]; st != nil {
			report.AddState("sample", st)
			check(t, "sample", envs[name].WaveOrder(st))
			check(t, "sample", envs[name].OCIPulled(st))
		}
		if errs[name] != nil {
			report.Fail("sample/%s: %v", name, errs[name])
			t.Fatal(errs[name])
		}
	}
	local, customer := envs["local"], envs["customer"]
	check(t, "sample", local.SelfHeal(ctx, "budget-redis"))
	check(t, "sample", local.Prune(ctx, "model-catalog", func(spec string) error {
		return deliver.RemoveBlock(filepath.Join(spec, "modules.cue"), "model-catalog")
	}))
	check(t, "sample", deliver.Release(ctx, "v0.12.0", customer, local))
}
