package cli_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/testkit/chartstest"
)

// chartArchive is a small chart: a Deployment of replicaCount replicas,
// and, with clusterRole, a ClusterRole.
func chartArchive(name, version string, replicas int, clusterRole bool) []byte {
	files := map[string][]byte{
		"Chart.yaml":  []byte("apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"),
		"values.yaml": []byte(fmt.Sprintf("replicaCount: %d\nimage:\n  tag: %q\n", replicas, version)),
		"templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicaCount }}
  template:
    spec:
      containers:
        - name: app
          image: "app:{{ .Values.image.tag }}"
`),
	}
	if clusterRole {
		files["templates/clusterrole.yaml"] = []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}-reader\n")
	}
	return charts.BuildArchive(name, files)
}

// chartsRepo writes a platform whose charts are served by repo (web, kro)
// and reg (ops), with a stack whose client sets a values file.
func chartsRepo(t *testing.T, repo *chartstest.Repo, reg *chartstest.Registry) string {
	dir := t.TempDir()
	writeFile(t, dir, "sources/platform.cue", fmt.Sprintf(`package platform

platform: {name: "shop", repoURL: "https://git.example.com/shop.git", defaultEnvironment: "dev"}

charts: {
	kro: {repoURL: %[1]q, chart: "kro", version: "0.9.3"}
	web: {repoURL: %[1]q, chart: "web", version: "1.0.0"}
	ops: {repoURL: %[2]q, chart: "ops", version: "2.0.0"}
}

modules: {
	kro: {chart: "kro", namespace: "kro-system"}
	web: {chart: "web", namespace: "web", values: {
		replicaCount: 2
		imag: tag: "2.0"
	}}
	ops: {chart: "ops", namespace: "ops"}
	definitions: {definitions: ["site"], needs: ["kro"]}
	sites: {stacks: ["site"], namespace: "sites"}
}

environments: dev: {
	revision: "HEAD"
	projects: team: {
		sourceRepos: ["*"]
		destinations: [{server: "https://kubernetes.default.svc", namespace: "*"}]
		clusterResourceWhitelist: [{group: "", kind: "Namespace"}]
	}
	modules: ops: project: "team"
}

stacks: site: {
	kind: "Site"
	modules: web: chart: "web"
}

clients: blue: {
	values: repoURL: "https://git.example.com/shop.git"
	stacks: site: environments: ["dev"]
}
`, repo.URL, reg.RepoURL()))
	writeFile(t, dir, "clients/blue/site/web.yaml", "image:\n  tag: \"3.0\"\nreplicaCont: 3\n")
	return dir
}

// trusting is an HTTP client that trusts the test servers' certificates.
func trusting(servers ...interface{ Certificate() *x509.Certificate }) *http.Client {
	pool := x509.NewCertPool()
	for _, s := range servers {
		pool.AddCert(s.Certificate())
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// chartsFixture is chartsRepo's platform with its charts served: web
// and kro from an HTTP repository, ops from an OCI registry, in a fresh
// chart cache.
type chartsFixture struct {
	web, kro, ops []byte
	repo          *chartstest.Repo
	reg           *chartstest.Registry
	dir           string
	p             cli.Process
}

func newChartsFixture(t *testing.T) *chartsFixture {
	t.Helper()
	t.Setenv(cli.CacheEnv, t.TempDir())
	f := &chartsFixture{web: chartArchive("web", "1.0.0", 1, false), kro: chartArchive("kro", "0.9.3", 1, false), ops: chartArchive("ops", "2.0.0", 1, true)}
	f.repo = chartstest.NewRepo(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: f.web}, chartstest.Chart{Name: "kro", Version: "0.9.3", Archive: f.kro})
	t.Cleanup(f.repo.Close)
	f.reg = chartstest.NewRegistry(chartstest.Chart{Name: "ops", Version: "2.0.0", Archive: f.ops})
	t.Cleanup(f.reg.Close)
	f.dir = chartsRepo(t, f.repo, f.reg)
	f.p = cli.Process{HTTPClient: trusting(f.repo, f.reg)}
	return f
}

// readLockFile reads and parses dir's sources/charts.lock.
func readLockFile(t *testing.T, dir string) (*charts.Lock, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "sources/charts.lock"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := charts.ParseLock(data)
	if err != nil {
		t.Fatal(err)
	}
	return l, data
}

func run(t *testing.T, p cli.Process, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.MainIn(p, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestChartsPullLocksAndRenders is issue 13's path end to end, on loopback
// servers: charts pull fills the cache and the lock; vet then renders
// every chart offline, reports a values typo of the spec and of a client
// file at its line with the key it probably means, and refuses a chart
// that creates a cluster-scoped kind its project forbids; a re-published
// version is an error naming both digests; vendor makes the cache
// unnecessary.
func TestChartsPullLocksAndRenders(t *testing.T) {
	f := newChartsFixture(t)
	web, kro, ops, repo, reg, dir, p := f.web, f.kro, f.ops, f.repo, f.reg, f.dir, f.p

	// Before the pull: nothing is rendered, vet says which and how.
	code, _, stderr := run(t, p, "vet", "-C", dir)
	if code != cli.ExitOK || !strings.Contains(stderr, "platc: note: 3 charts are not rendered, since sources has no charts.lock: kro, ops, web; run platc charts pull") {
		t.Fatalf("vet before pull: exit %d, stderr:\n%s", code, stderr)
	}

	code, stdout, stderr := run(t, p, "charts", "pull", "-C", dir)
	if code != cli.ExitOK {
		t.Fatalf("charts pull: exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "platc: sources/charts.lock: 3 charts locked") {
		t.Errorf("charts pull: stdout:\n%s", stdout)
	}
	lock, lockData := readLockFile(t, dir)
	if e := lock.Find(reg.RepoURL(), "ops", "2.0.0"); e == nil || e.Digest != charts.Digest(ops) || e.ManifestDigest == "" {
		t.Errorf("the lock of ops: %+v", e)
	}
	if e := lock.Find(repo.URL, "web", "1.0.0"); e == nil || e.Digest != charts.Digest(web) {
		t.Errorf("the lock of web: %+v", e)
	}

	// vet renders offline: no server is asked.
	before := repo.Requests
	code, _, stderr = run(t, p, "vet", "-C", dir)
	want := []string{
		`sources/platform.cue:15:3: warning: modules.web.values.imag: chart web 1.0.0 has no value imag (set at modules.web.values.imag), which Application "web" sets in environment dev: not in its values.yaml, and no template reads it, so Helm ignores it; did you mean "image"?`,
		`clients/blue/site/web.yaml:3:1: warning: clients.blue: chart web 1.0.0 has no value replicaCont (in clients/blue/site/web.yaml), which Application "blue-web", created by kro, sets in environment dev: not in its values.yaml, and no template reads it, so Helm ignores it; did you mean "replicaCount"?`,
		`modules.ops: chart ops 2.0.0 creates the cluster-scoped kind ClusterRole (ops/templates/clusterrole.yaml) for Application "ops" (out/deploy/clusters/dev/apps.yaml), which project team does not allow: add {group: "rbac.authorization.k8s.io", kind: "ClusterRole"} to environments.dev.projects.team.clusterResourceWhitelist, or turn it off in the chart's values`,
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("vet: stderr lacks\n%s\nstderr:\n%s", w, stderr)
		}
	}
	if code != cli.ExitProblems {
		t.Errorf("vet: exit %d, want %d (the ClusterRole)", code, cli.ExitProblems)
	}
	if repo.Requests != before {
		t.Errorf("vet asked the chart repository %d times", repo.Requests-before)
	}
	if code, _, stderr := run(t, p, "vet", "-strict", "-C", dir); code != cli.ExitProblems || strings.Contains(stderr, "warning: modules.web.values.imag") {
		t.Errorf("vet -strict: the unknown key is not an error: exit %d\n%s", code, stderr)
	}

	// With the kind allowed, the spec vets; explain knows the chart's
	// defaults, at their lines of values.yaml.
	spec := filepath.Join(dir, "sources/platform.cue")
	data, _ := os.ReadFile(spec)
	writeFile(t, dir, "sources/platform.cue", strings.Replace(string(data), `clusterResourceWhitelist: [{group: "", kind: "Namespace"}]`, `clusterResourceWhitelist: [{group: "", kind: "Namespace"}, {group: "rbac.authorization.k8s.io", kind: "ClusterRole"}]`, 1))
	if code, _, stderr := run(t, p, "vet", "-C", dir); code != cli.ExitOK {
		t.Fatalf("vet with ClusterRole allowed: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = run(t, p, "explain", "-C", dir, "dev/web", "replicaCount")
	if w := "  1 chart defaults  replicaCount = 1  web/values.yaml:1:1"; !strings.Contains(stdout, w) || !strings.Contains(stdout, "replicaCount = 2  sources/platform.cue:14:3  <- wins") {
		t.Errorf("explain: exit %d, stdout lacks %q:\n%s%s", code, w, stdout, stderr)
	}

	// preview shows what the chart renders for a stack instance.
	code, stdout, _ = run(t, p, "preview", "-C", dir, "site", "-client", "blue", "-env", "dev", "-manifests")
	if w := "# Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: blue-web\n"; code != cli.ExitOK || !strings.Contains(stdout, w) || !strings.Contains(stdout, "image: app:3.0") {
		t.Errorf("preview -manifests: exit %d, stdout lacks %q:\n%s", code, w, stdout)
	}

	// A chart bump, seen in review: diff -manifests renders both sides.
	bumped := t.TempDir()
	for name, data := range tree(t, dir) {
		writeFile(t, bumped, name, data)
	}
	web11 := chartArchive("web", "1.1.0", 1, false)
	repo.Set(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: web}, chartstest.Chart{Name: "web", Version: "1.1.0", Archive: web11}, chartstest.Chart{Name: "kro", Version: "0.9.3", Archive: kro})
	data, _ = os.ReadFile(filepath.Join(bumped, "sources/platform.cue"))
	writeFile(t, bumped, "sources/platform.cue", strings.Replace(string(data), `chart: "web", version: "1.0.0"`, `chart: "web", version: "1.1.0"`, 1))
	if code, _, stderr := run(t, p, "charts", "pull", "-C", bumped); code != cli.ExitOK {
		t.Fatalf("pull of the bump: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = run(t, p, "diff", "-manifests", dir, bumped)
	// blue-web reads web too, but its client's file sets the tag.
	for _, w := range []string{
		"  changed Deployment web (rendered for Application web)\n      spec.template.spec.containers[name=app].image: \"app:1.0.0\" -> \"app:1.1.0\"\n",
		" -> " + bumped + ": 0 added, 0 removed, 1 changed\n",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("diff -manifests: exit %d, stdout lacks %q:\n%s%s", code, w, stdout, stderr)
		}
	}

	// A re-published version: pull refuses it, naming both digests.
	web2 := chartArchive("web", "1.0.0", 5, false)
	repo.Set(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: web2}, chartstest.Chart{Name: "web", Version: "1.1.0", Archive: web11}, chartstest.Chart{Name: "kro", Version: "0.9.3", Archive: kro})
	code, _, stderr = run(t, p, "charts", "pull", "-C", dir)
	if code != cli.ExitProblems || !strings.Contains(stderr, "web 1.0.0 of "+repo.URL+" was re-published: its archive's digest is "+charts.Digest(web2)+", the lock's "+charts.Digest(web)) {
		t.Errorf("pull of a re-published chart: exit %d, stderr:\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sources/charts.lock")); !bytes.Equal(after, lockData) {
		t.Errorf("a failed pull changed the lock")
	}

	// Vendored, the charts render without the cache.
	if code, stdout, stderr := run(t, p, "charts", "vendor", "-C", dir); code != cli.ExitOK || !strings.Contains(stdout, "3 charts (kro-0.9.3.tgz, ops-2.0.0.tgz, web-1.0.0.tgz)") {
		t.Fatalf("charts vendor: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv(cli.CacheEnv, "off")
	code, _, stderr = run(t, p, "vet", "-C", dir)
	if code != cli.ExitOK || !strings.Contains(stderr, want[0]) || strings.Contains(stderr, "note:") {
		t.Errorf("vet from the vendor folder: exit %d, stderr:\n%s", code, stderr)
	}
	// A vendored archive that is not the locked one is an error naming
	// both digests.
	writeFile(t, dir, "sources/charts/vendor/web-1.0.0.tgz", string(web2))
	_, _, stderr = run(t, p, "vet", "-C", dir)
	if w := "sources/charts/vendor/web-1.0.0.tgz is not the archive locked for web 1.0.0: its digest is " + charts.Digest(web2) + ", the lock's " + charts.Digest(web); !strings.Contains(stderr, w) {
		t.Errorf("a tampered vendor archive: stderr:\n%s", stderr)
	}
}

// TestChartsPullOnly: -chart pulls the charts named and keeps the lock's
// other entries as they are, even where the repository now serves another
// archive; a name the spec does not pin is a usage error.
func TestChartsPullOnly(t *testing.T) {
	f := newChartsFixture(t)
	web, kro, ops, repo, reg, dir, p := f.web, f.kro, f.ops, f.repo, f.reg, f.dir, f.p
	if code, _, stderr := run(t, p, "charts", "pull", "-C", dir, "-chart", "web"); code != cli.ExitOK {
		t.Fatalf("charts pull -chart web: exit %d\n%s", code, stderr)
	}
	if l, _ := readLockFile(t, dir); len(l.Charts) != 1 || l.Charts[0].Chart != "web" {
		t.Fatalf("after -chart web the lock is %+v", l.Charts)
	}

	// web is re-published: pulling ops alone keeps web's entry.
	repo.Set(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: chartArchive("web", "1.0.0", 5, false)}, chartstest.Chart{Name: "kro", Version: "0.9.3", Archive: kro})
	code, stdout, stderr := run(t, p, "charts", "pull", "-C", dir, "-chart", "ops")
	if code != cli.ExitOK || !strings.Contains(stdout, "platc: sources/charts.lock: 2 charts locked") {
		t.Fatalf("charts pull -chart ops: exit %d\n%s%s", code, stdout, stderr)
	}
	l, _ := readLockFile(t, dir)
	if e := l.Find(repo.URL, "web", "1.0.0"); e == nil || e.Digest != charts.Digest(web) {
		t.Errorf("web's entry changed: %+v", e)
	}
	if e := l.Find(reg.RepoURL(), "ops", "2.0.0"); e == nil || e.Digest != charts.Digest(ops) {
		t.Errorf("ops is not locked: %+v", e)
	}

	code, _, stderr = run(t, p, "charts", "pull", "-C", dir, "-chart", "nginx")
	if want := "platc charts pull: -chart nginx: the spec pins no chart \"nginx\" (charts.<name>)\n"; code != cli.ExitUsage || stderr != want {
		t.Errorf("-chart nginx: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// helmLockDigest is the digest Helm writes in a Chart.lock whose
// dependencies are those of Chart.yaml, each {name, version, repository}
// (internal/resolver.HashReq of Helm: the JSON of both lists).
func helmLockDigest(deps ...[3]string) string {
	type dep struct {
		Name       string `json:"name"`
		Version    string `json:"version,omitempty"`
		Repository string `json:"repository"`
	}
	var list []dep
	for _, d := range deps {
		list = append(list, dep{d[0], d[1], d[2]})
	}
	data, _ := json.Marshal([2][]dep{list, list})
	return charts.Digest(data)
}

// chartFolder writes a chart folder of the repository with the given
// dependencies ({name, version, repository}) in Chart.yaml and a
// Chart.lock as Helm writes it.
func chartFolder(t *testing.T, dir, folder, name string, deps ...[3]string) {
	chartYAML := "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
	lock := "dependencies:\n"
	if len(deps) > 0 {
		chartYAML += "dependencies:\n"
	}
	for _, d := range deps {
		chartYAML += fmt.Sprintf("  - name: %s\n    version: %s\n    repository: %s\n", d[0], d[1], d[2])
		lock += fmt.Sprintf("- name: %s\n  repository: %s\n  version: %s\n", d[0], d[2], d[1])
	}
	lock += "digest: " + helmLockDigest(deps...) + "\ngenerated: \"2026-01-01T00:00:00Z\"\n"
	writeFile(t, dir, folder+"/Chart.yaml", chartYAML)
	writeFile(t, dir, folder+"/Chart.lock", lock)
	writeFile(t, dir, folder+"/templates/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-"+name+"\n")
}

// TestChartsPullLocksFolderDependencies is item 4 of issue 42 end to
// end, on loopback servers: a chart folder of the repository whose
// charts/ lacks its dependencies is not rendered before the pull, and
// vet says which and what to run; charts pull locks and fetches them by
// their Chart.lock (a chart repository's and an OCI registry's), but not
// those a folder keeps in charts/; vet then builds the chart as Argo CD's
// repo server does (its file:// dependency too), offline, and checks
// values against the dependencies; vendor makes the cache unnecessary; a
// re-published dependency is refused.
func TestChartsPullLocksFolderDependencies(t *testing.T) {
	t.Setenv(cli.CacheEnv, t.TempDir())
	db := chartArchive("db", "1.0.0", 1, false)
	repo := chartstest.NewRepo(chartstest.Chart{Name: "db", Version: "1.0.0", Archive: db})
	defer repo.Close()
	cache := chartArchive("cache", "2.0.0", 1, false)
	reg := chartstest.NewRegistry(chartstest.Chart{Name: "cache", Version: "2.0.0", Archive: cache})
	defer reg.Close()
	p := cli.Process{HTTPClient: trusting(repo, reg)}

	dir := t.TempDir()
	writeFile(t, dir, "sources/platform.cue", `package platform

platform: {name: "shop", repoURL: "https://git.example.com/shop.git", defaultEnvironment: "dev"}

modules: {
	web: {path: "sources/charts/web", namespace: "web", values: db: replicaCont: 2}
	site: {path: "sources/charts/site", namespace: "site", values: db: replicaCont: 3}
}

environments: dev: revision: "HEAD"
`)
	chartFolder(t, dir, "sources/charts/common", "common")
	chartFolder(t, dir, "sources/charts/web", "web",
		[3]string{"common", "1.0.0", "file://../common"},
		[3]string{"db", "1.0.0", repo.URL},
		[3]string{"cache", "2.0.0", reg.RepoURL()})
	// site keeps its dependency in charts/, at a version no server has:
	// Argo CD builds nothing there, and nothing is pulled for it.
	chartFolder(t, dir, "sources/charts/site", "site", [3]string{"db", "0.9.0", repo.URL})
	writeFile(t, dir, "sources/charts/site/charts/db-0.9.0.tgz", string(chartArchive("db", "0.9.0", 1, false)))

	webWarning := `sources/platform.cue:6:66: warning: modules.web.values.db.replicaCont: the chart in sources/charts/web has no value db.replicaCont (set at modules.web.values.db.replicaCont), which Application "web" sets in environment dev: not in its values.yaml, and no template reads it, so Helm ignores it; did you mean "db.replicaCount"?`
	siteWarning := `modules.site.values.db.replicaCont: the chart in sources/charts/site has no value db.replicaCont`

	// Before the pull: web is not rendered, and vet says why; site is.
	code, _, stderr := run(t, p, "vet", "-C", dir)
	note := "platc: note: the chart in sources/charts/web is not rendered: its dependencies db 1.0.0 of " + repo.URL + ", cache 2.0.0 of " + reg.RepoURL() + " are not locked, since sources has no charts.lock; run platc charts pull (it uses the network) to lock and fetch them [not-checked]"
	if code != cli.ExitOK || !strings.Contains(stderr, note) || strings.Contains(stderr, webWarning) || !strings.Contains(stderr, siteWarning) {
		t.Fatalf("vet before pull: exit %d, stderr:\n%s", code, stderr)
	}

	code, stdout, stderr := run(t, p, "charts", "pull", "-C", dir)
	if code != cli.ExitOK || stderr != "" {
		t.Fatalf("charts pull: exit %d, stderr:\n%s", code, stderr)
	}
	for _, w := range []string{
		"db (sources/charts/web) db 1.0.0 " + charts.Digest(db) + "\n",
		"cache (sources/charts/web) cache 2.0.0 " + charts.Digest(cache) + "\n",
		"platc: sources/charts.lock: 2 charts locked\n",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("charts pull: stdout lacks %q:\n%s", w, stdout)
		}
	}
	lock, lockData := readLockFile(t, dir)
	if e := lock.Find(reg.RepoURL(), "cache", "2.0.0"); e == nil || e.Digest != charts.Digest(cache) || e.ManifestDigest == "" {
		t.Errorf("the lock of cache: %+v", e)
	}
	if lock.Find(repo.URL, "db", "0.9.0") != nil {
		t.Errorf("a dependency kept in charts/ is locked")
	}

	// vet builds web offline: no server is asked.
	before := repo.Requests
	code, _, stderr = run(t, p, "vet", "-C", dir)
	if code != cli.ExitOK || !strings.Contains(stderr, webWarning) || !strings.Contains(stderr, siteWarning) || strings.Contains(stderr, "note:") {
		t.Errorf("vet after pull: exit %d, stderr:\n%s", code, stderr)
	}
	if repo.Requests != before {
		t.Errorf("vet asked the chart repository %d times", repo.Requests-before)
	}

	// Vendored, the dependencies need no cache.
	if code, stdout, stderr := run(t, p, "charts", "vendor", "-C", dir); code != cli.ExitOK || !strings.Contains(stdout, "2 charts (cache-2.0.0.tgz, db-1.0.0.tgz)") {
		t.Fatalf("charts vendor: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv(cli.CacheEnv, "off")
	if code, _, stderr = run(t, p, "vet", "-C", dir); code != cli.ExitOK || !strings.Contains(stderr, webWarning) || strings.Contains(stderr, "note:") {
		t.Errorf("vet from the vendor folder: exit %d, stderr:\n%s", code, stderr)
	}

	// A re-published dependency: pull refuses it, naming both digests.
	t.Setenv(cli.CacheEnv, t.TempDir())
	db2 := chartArchive("db", "1.0.0", 5, false)
	repo.Set(chartstest.Chart{Name: "db", Version: "1.0.0", Archive: db2})
	code, _, stderr = run(t, p, "charts", "pull", "-C", dir)
	if w := "sources/charts/web/Chart.lock: db 1.0.0 of " + repo.URL + " was re-published: its archive's digest is " + charts.Digest(db2) + ", the lock's " + charts.Digest(db); code != cli.ExitProblems || !strings.Contains(stderr, w) {
		t.Errorf("pull of a re-published dependency: exit %d, stderr:\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sources/charts.lock")); !bytes.Equal(after, lockData) {
		t.Errorf("a failed pull changed the lock")
	}
}

// TestChartMessagesSayWhatIsWrong: a malformed digest in the lock is an
// error of the lock alone (not also "no charts.lock"), and an archive of
// the chart cache that is not the one its digest names is said to be
// damaged (not "not in the cache").
func TestChartMessagesSayWhatIsWrong(t *testing.T) {
	f := newChartsFixture(t)
	if code, _, stderr := run(t, f.p, "charts", "pull", "-C", f.dir); code != cli.ExitOK {
		t.Fatalf("charts pull: exit %d, stderr:\n%s", code, stderr)
	}
	_, lockData := readLockFile(t, f.dir)
	webDigest := charts.Digest(f.web)

	// A damaged archive in the cache.
	cached := filepath.Join(os.Getenv(cli.CacheEnv), "charts", strings.Replace(webDigest, ":", "-", 1)+".tgz")
	if err := os.WriteFile(cached, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := run(t, f.p, "vet", "-C", f.dir)
	want := "the chart cache's archive of web 1.0.0 (" + cached + ") is damaged: its digest is " + charts.Digest([]byte("damaged")) + ", the lock's " + webDigest + ": run platc charts pull to fetch it again"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "neither platc's cache") {
		t.Errorf("a damaged cached archive: stderr:\n%s\nwant it to hold\n%s", stderr, want)
	}

	// A malformed digest in the lock.
	writeFile(t, f.dir, "sources/charts.lock", strings.Replace(string(lockData), webDigest, "sha256:abc", 1))
	code, _, stderr := run(t, f.p, "vet", "-C", f.dir)
	want = `sources/charts.lock: entry 3 (web 1.0.0): digest "sha256:abc" is malformed: a digest is sha256: and 64 lower-case hexadecimal digits: fix the file, or remove it and run platc charts pull [chart-lock]`
	if code != cli.ExitProblems || !strings.Contains(stderr, want+"\n") || strings.Contains(stderr, "no charts.lock") {
		t.Errorf("a malformed digest: exit %d, stderr:\n%s\nwant exit %d, and a line\n%s\nand no \"no charts.lock\"", code, stderr, cli.ExitProblems, want)
	}
}
