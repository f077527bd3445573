package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/e2e/deliver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestGolden delivers every golden case that renders, each environment to
// a control plane of its own: the charts a case vendors and locks are
// served on loopback, others meet their real repository's URL.
func TestGolden(t *testing.T) {
	// Beside the sample, which takes its slots first (TestSample), so
	// that the longest delivery starts at once and the golden cases
	// share what is left.
	t.Parallel()
	cases, err := filepath.Glob("../golden/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range cases {
		name := filepath.Base(dir)
		if strings.HasPrefix(name, "error-") {
			// The error cases render nothing: their expectation is
			// stderr alone.
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rig, err := deliver.NewRig(deliver.Source{Dir: dir, Name: "golden/" + name}, testDir(t, "rig"), os.Stderr)
			if err != nil {
				report.Fail("golden/%s: %v", name, err)
				t.Fatal(err)
			}
			// The environments run after this function returns;
			// Cleanup waits for them.
			t.Cleanup(rig.Close)
			for _, envName := range rig.Environments() {
				t.Run(envName, func(t *testing.T) {
					t.Parallel()
					acquire(t, 1)
					ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
					defer cancel()
					opts := envOptions(t, envName)
					opts.Nice = besideSample
					env, err := rig.Deliver(ctx, envName, opts)
					if err != nil {
						report.Fail("golden/%s/%s: %v", name, envName, err)
						t.Fatal(err)
					}
					defer env.Stop()
					st, err := env.Wait(ctx, 5*time.Minute)
					if st != nil {
						report.AddState("golden/"+name, st)
						check(t, "golden/"+name, env.WaveOrder(st))
					}
					if err != nil {
						report.Fail("golden/%s/%s: %v", name, envName, err)
						if st != nil {
							t.Log("\n" + st.Table())
						}
						t.Fatal(err)
					}
					if step := lifecycle[name+"/"+envName]; step != nil {
						step(ctx, t, env)
					}
				})
			}
		})
	}
}

// lifecycle are the steps run on a golden case's environment once it is
// delivered.
var lifecycle = map[string]func(ctx context.Context, t *testing.T, env *deliver.Env){
	// The client whose values are in a repository of its own changes
	// its file there: its Application, and only it, syncs the change,
	// which reaches the cluster.
	"delivery/dev": func(ctx context.Context, t *testing.T, env *deliver.Env) {
		const message = "blue's site, changed in blue's repository"
		c := env.ClientChange(ctx, "blue", func(dir string) error {
			file := filepath.Join(dir, "clients", "blue", "site", "web.yaml")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return err
			}
			return os.WriteFile(file, []byte("message: "+message+"\n"), 0o644)
		})
		if c.Pass {
			page, err := env.Cluster.Dynamic.Resource(configMaps).Namespace("site-blue").Get(ctx, "blue-web-page", metav1.GetOptions{})
			var have string
			if err == nil {
				have, _, _ = unstructured.NestedString(page.Object, "data", "index.html")
			}
			if have != message {
				c.Pass, c.Detail = false, fmt.Sprintf("ConfigMap site-blue/blue-web-page says %q (%v), want %q", have, err, message)
			}
		}
		check(t, "golden/delivery", c)
	},
}

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
