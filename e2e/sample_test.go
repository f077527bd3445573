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
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	rig, err := deliver.NewRig(deliver.Source{Dir: "..", Name: "sample"}, testDir(t, "rig"), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
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
		st, err := envs[name].Wait(ctx, 5*time.Minute)
		if st != nil {
			report.AddState("sample", st)
			check(t, "sample", envs[name].WaveOrder(st))
		}
		if err != nil {
			report.Fail("sample/%s: %v", name, err)
			t.Fatal(err)
		}
	}
	local, customer := envs["local"], envs["customer"]
	check(t, "sample", local.SelfHeal(ctx, "budget-redis"))
	check(t, "sample", local.Prune(ctx, "model-catalog", func(spec string) error {
		return deliver.RemoveBlock(filepath.Join(spec, "modules.cue"), "model-catalog")
	}))
	check(t, "sample", deliver.Release(ctx, "v0.12.0", customer, local))
}
