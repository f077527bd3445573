// Package e2e delivers what platc renders to the real controllers: the
// sample platform and the golden cases, each environment to a control
// plane of its own (package cluster), judged by what Argo CD and kro say
// (package deliver). `make e2e` runs it; the last line it prints starts
// with "e2e:" and gives the counts, and E2E_REPORT=file writes the report
// as JSON.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/platc/platc/e2e/cluster"
	"github.com/platc/platc/e2e/deliver"
)

// report gathers every delivery of the run.
var report = &deliver.Report{}

// bins are the control plane's programs, built once for the run.
var bins cluster.Binaries

func TestMain(m *testing.M) {
	wd, _ := os.Getwd()
	programsDir = filepath.Join(wd, "programs")
	// Build before the tests, so that a parallel test's timeout does
	// not count the first build.
	if cache, err := cluster.DefaultCacheDir(); err == nil {
		buildOnce.Do(func() {
			var err error
			if bins, err = cluster.Build(context.Background(), cluster.BuildOptions{ProgramsDir: programsDir, CacheDir: cache, Log: os.Stderr}); err != nil {
				fmt.Fprintln(os.Stderr, "e2e:", err)
			}
		})
	}
	code := m.Run()
	if len(report.Apps)+len(report.Checks)+len(report.Failures) > 0 {
		fmt.Fprint(os.Stderr, "\n"+report.Table())
		if path := os.Getenv("E2E_REPORT"); path != "" {
			if err := report.WriteJSON(path); err != nil {
				fmt.Fprintln(os.Stderr, "e2e: E2E_REPORT:", err)
				code = 1
			}
		}
		if !report.OK() && code == 0 {
			code = 1
		}
		fmt.Println(report.Summary())
	}
	os.Exit(code)
}

var programsDir string

// slots bounds the control planes that run at once (E2E_CLUSTERS,
// default 4): most of a delivery is waiting on Argo CD's and kro's loops,
// not on the two cores.
var slots = make(chan struct{}, clusters())

func clusters() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_CLUSTERS")); err == nil && n > 0 {
		return n
	}
	return 4
}

// besideSample is the scheduling priority (nice) of the control planes
// that run beside the sample's: its delivery, with the real charts, is
// the longest, and CPU-bound on a small machine; the others use what it
// leaves.
const besideSample = 5

// acquire takes n slots until the test ends.
func acquire(t *testing.T, n int) {
	for range n {
		select {
		case slots <- struct{}{}:
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
	}
	t.Cleanup(func() {
		for range n {
			<-slots
		}
	})
}

// buildOnce builds the control plane's programs before any test runs in
// parallel.
var buildOnce sync.Once

// envOptions builds the control plane's programs (once per run) and
// gives an environment a data folder.
func envOptions(t *testing.T, name string) deliver.EnvOptions {
	t.Helper()
	var err error
	buildOnce.Do(func() {
		var cache string
		if cache, err = cluster.DefaultCacheDir(); err == nil {
			bins, err = cluster.Build(context.Background(), cluster.BuildOptions{ProgramsDir: programsDir, CacheDir: cache, Log: os.Stderr})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if bins.Dir == "" {
		t.Fatal("the control plane's programs were not built")
	}
	return deliver.EnvOptions{Binaries: bins, ProgramsDir: programsDir, Dir: testDir(t, name), Log: os.Stderr}
}

// testDir is a fresh folder for the test, kept under E2E_KEEP when that is
// set (for the logs of a failure), else removed at the end.
func testDir(t *testing.T, name string) string {
	keep := os.Getenv("E2E_KEEP")
	if keep == "" {
		return filepath.Join(t.TempDir(), name)
	}
	dir := filepath.Join(keep, t.Name(), name)
	os.RemoveAll(dir)
	return dir
}

// check records c and fails the test when it did not pass.
func check(t *testing.T, platform string, c *deliver.Check) {
	t.Helper()
	if platform != "" {
		c.Env = platform + "/" + c.Env
	}
	report.AddCheck(c)
	if !c.Pass {
		t.Errorf("%s: %s: %s", c.Env, c.Name, c.Detail)
	}
}
