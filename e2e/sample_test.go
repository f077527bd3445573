package e2e

import (
	"context"
	"os"
	"path/filepath"
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
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	rig, err := deliver.NewRig(deliver.Source{Dir: ".."}, testDir(t, "rig"), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	envs := map[string]*deliver.Env{}
	for _, name := range []string{"local", "customer"} {
		env, err := rig.Deliver(ctx, name, envOptions(t, name))
		if err != nil {
			t.Fatal(err)
		}
		defer env.Stop()
		envs[name] = env
	}
	for _, name := range []string{"local", "customer"} {
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
