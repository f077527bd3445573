package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/testkit/chartstest"
)

// TestChartsPullLocksEnvironmentVersions: an environment's own chart
// version is locked, verified and rendered as the platform's is. charts
// pull locks one entry per chart and version; vet renders each
// environment's Application with the version it runs (the chart's
// defaults tell them apart); a bump to a version not locked yet is said
// so at the environment's pin.
func TestChartsPullLocksEnvironmentVersions(t *testing.T) {
	t.Setenv(cli.CacheEnv, t.TempDir())
	web10, web11 := chartArchive("web", "1.0.0", 1, false), chartArchive("web", "1.1.0", 1, false)
	repo := chartstest.NewRepo(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: web10}, chartstest.Chart{Name: "web", Version: "1.1.0", Archive: web11})
	defer repo.Close()
	p := cli.Process{HTTPClient: trusting(repo)}
	dir := t.TempDir()
	writeFile(t, dir, "sources/platform.cue", fmt.Sprintf(`package platform

platform: {name: "shop", repoURL: "https://git.example.com/shop.git", defaultEnvironment: "dev"}
charts: web: {repoURL: %q, chart: "web", version: "1.0.0"}
modules: web: {chart: "web", namespace: "web"}
environments: {
	dev: revision: "HEAD"
	lab: {
		revision: "HEAD"
		charts: web: version: "1.1.0"
	}
}
`, repo.URL))

	code, stdout, stderr := run(t, p, "charts", "pull", "-C", dir)
	if code != cli.ExitOK || !strings.Contains(stdout, "platc: sources/charts.lock: 2 charts locked") {
		t.Fatalf("charts pull: exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sources/charts.lock"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := charts.ParseLock(data)
	if err != nil {
		t.Fatal(err)
	}
	for v, archive := range map[string][]byte{"1.0.0": web10, "1.1.0": web11} {
		if e := lock.Find(repo.URL, "web", v); e == nil || e.Digest != charts.Digest(archive) {
			t.Errorf("the lock of web %s: %+v", v, e)
		}
	}

	if code, _, stderr := run(t, p, "vet", "-C", dir); code != cli.ExitOK || stderr != "" {
		t.Fatalf("vet: exit %d\n%s", code, stderr)
	}
	for env, tag := range map[string]string{"dev": "1.0.0", "lab": "1.1.0"} {
		_, stdout, stderr := run(t, p, "explain", "-C", dir, env+"/web", "image.tag")
		if w := fmt.Sprintf("chart defaults  image.tag = %q  web/values.yaml", tag); !strings.Contains(stdout, w) {
			t.Errorf("explain %s/web: stdout lacks %q:\n%s%s", env, w, stdout, stderr)
		}
	}

	// A version nobody locked: bump writes it, and says it is not
	// locked where it is written.
	code, _, stderr = run(t, p, "bump", "-C", dir, "web", "1.2.0", "-env", "lab")
	if w := "sources/platform.cue:10:11: warning: environments.lab.charts.web: chart web 1.2.0 of " + repo.URL + " has no entry in sources/charts.lock: it is neither verified nor rendered; run platc charts pull"; code != cli.ExitOK || !strings.Contains(stderr, w) {
		t.Errorf("bump to a version not locked: exit %d, stderr lacks\n%s\nstderr:\n%s", code, w, stderr)
	}
}
