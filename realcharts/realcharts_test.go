// Package realcharts checks the sample platform with the real charts it
// pins (../shared/charts, read-only, beside the repository): it serves
// their archives on loopback at the URLs users pull them from, locks them
// with platc charts pull in a copy of the sample, and runs platc vet on
// the copy, so every chart is rendered as Argo CD's repo server renders
// it and the platform's and the clients' values are checked against it.
// It lives in a module of its own because it reads outside the
// repository; .ci/run runs it (make realcharts).
package realcharts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/cli"
)

// summary is the suite's last line, which TestSample sets.
var summary string

func TestMain(m *testing.M) {
	code := m.Run()
	if summary != "" {
		fmt.Println(summary)
	}
	os.Exit(code)
}

// corpus is where ../shared/charts is, from this folder.
var corpus = filepath.Join("..", "..", "shared", "charts")

func readCorpus(t *testing.T) []*archive {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, "index.json"))
	if err != nil {
		t.Fatalf("the real charts are not at %s (../shared/charts beside the repository): %v", corpus, err)
	}
	var archives []*archive
	if err := json.Unmarshal(data, &archives); err != nil {
		t.Fatalf("%s/index.json: %v", corpus, err)
	}
	for _, a := range archives {
		a.data, err = os.ReadFile(filepath.Join(corpus, a.File))
		if err != nil {
			t.Fatal(err)
		}
		if d := charts.Digest(a.data); d != "sha256:"+a.SHA256 {
			t.Fatalf("%s: digest %s, index.json says %s", a.File, d, a.SHA256)
		}
	}
	return archives
}

// copyTree copies the folder src of the repository to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o777)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func platc(t *testing.T, dir string, args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	n := 1
	if args[0] == "charts" {
		n = 2
	}
	code := cli.Main(append(append(args[:n:n], "-C", dir), args[n:]...), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// sample copies the sample platform (sources/ and the clients' values
// files beside it) into a new repository, serves the corpus as its
// charts' repositories and locks every chart the corpus holds with platc
// charts pull. A pin the corpus does not hold (mimir-distributed) fails
// to pull, as from a repository that lacks it; the others are then
// locked by name. It returns the repository and those pins.
func sample(t *testing.T) (repo string, missing []string) {
	t.Helper()
	archives := readCorpus(t)
	up, err := newUpstream(archives)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(up.Close)
	saved := http.DefaultTransport
	http.DefaultTransport = up.Transport
	t.Cleanup(func() { http.DefaultTransport = saved })

	repo = t.TempDir()
	for _, d := range []string{"sources", "clients"} {
		copyTree(t, filepath.Join("..", d), filepath.Join(repo, d))
	}
	t.Setenv(cli.CacheEnv, t.TempDir())

	out, errs, code := platc(t, repo, "charts", "pull")
	var locked []string
	for _, m := range pulled.FindAllStringSubmatch(out, -1) {
		locked = append(locked, m[1])
	}
	for _, m := range pullFailed.FindAllStringSubmatch(errs, -1) {
		missing = append(missing, m[2])
		if !strings.Contains(m[3], "has no chart") && !strings.Contains(m[3], "has no version") {
			t.Errorf("platc charts pull of %s: %s", m[1], m[3])
		}
	}
	if code != 0 {
		if len(missing) == 0 {
			t.Fatalf("platc charts pull: exit %d\n%s%s", code, out, errs)
		}
		args := []string{"charts", "pull"}
		for _, name := range slices.Compact(locked) {
			args = append(args, "-chart", name)
		}
		if out, errs, code := platc(t, repo, args...); code != 0 {
			t.Fatalf("platc %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
	return repo, missing
}

var (
	// pulled is a line of platc charts pull: name, chart, version, digest.
	pulled = regexp.MustCompile(`(?m)^(\S+) \S+ \S+ sha256:[0-9a-f]{64}$`)
	// pullFailed is an error of platc charts pull, at the pin: name,
	// chart and version, why.
	pullFailed = regexp.MustCompile(`(?m)^\S+: charts\.(\S+): pulling (\S+ \S+): (.*)$`)
	// problem is a line of platc vet's: position, id.
	problem = regexp.MustCompile(`(?m)^(\S+:\d+:\d+: .*) \[([a-z-]+)\]$`)
	// lockEntry is a chart of the lock file.
	lockEntry = regexp.MustCompile(`(?m)^  - name: `)
)

// TestSample checks the whole sample with the real charts: every chart
// locked is rendered as Argo CD's repo server renders it, its values
// checked against the chart's schema and values.yaml, the kinds it
// creates against the projects, the clients' values files with them.
// Every problem platc reports is a false alarm or a true finding in the
// sample; either is fixed, so there are none.
func TestSample(t *testing.T) {
	repo, missing := sample(t)
	lock, err := os.ReadFile(filepath.Join(repo, "sources", "charts.lock"))
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := platc(t, repo, "vet")
	var problems []string
	for _, m := range problem.FindAllStringSubmatch(errs, -1) {
		// The pins the corpus does not hold are not locked: vet says
		// so at the pin, which is not a problem of the sample.
		if m[2] == "chart-unlocked" && slices.ContainsFunc(missing, func(p string) bool { return strings.Contains(m[1], "chart "+p+" ") }) {
			continue
		}
		problems = append(problems, m[0])
	}
	for _, p := range missing {
		fmt.Printf("not in ../shared/charts, so not rendered: %s\n", p)
	}
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		if strings.Contains(line, "[not-checked]") {
			fmt.Println(line)
		}
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	fmt.Print(out)
	summary = fmt.Sprintf("realcharts: %d charts rendered, %d problems", len(lockEntry.FindAll(lock, -1)), len(problems))
	if code != 0 || len(problems) > 0 {
		t.Errorf("platc vet of the sample with the real charts: exit %d, %d problems:\n%s", code, len(problems), errs)
	}
}

// TestMisspelledValues: a key a chart does not have is reported at its
// line with the key it probably means, in the platform's values and in a
// team's values file, for a chart whose keys real templates read through
// a helper (loki's singleBinary): once for all the Applications it
// reaches.
func TestMisspelledValues(t *testing.T) {
	repo, _ := sample(t)
	edit(t, filepath.Join(repo, "clients/payments/observability/loki.yaml"), "  resources:", "  resorces:")
	edit(t, filepath.Join(repo, "sources/stacks.cue"), "singleBinary: replicas: 1", "singleBinary: replcas: 1")
	_, errs, code := platc(t, repo, "vet")
	want := []string{
		`clients/payments/observability/loki.yaml:9:3: warning: clients.payments: chart loki 12.0.0 has no value singleBinary.resorces (in clients/payments/observability/loki.yaml), which Application "payments-loki", created by kro, sets in environments customer and local: not in its values.yaml, and no template reads it, so Helm ignores it; did you mean "singleBinary.resources"? [chart-value]`,
		`sources/stacks.cue:140:19: warning: stacks.observability.modules.loki.values.singleBinary.replcas: chart loki 12.0.0 has no value singleBinary.replcas (set at stacks.observability.modules.loki.values.singleBinary.replcas), which 2 Applications, created by kro, set: "payments-loki" (in environments customer and local) and "search-loki" (in environment local): not in its values.yaml, and no template reads it, so Helm ignores it; did you mean "singleBinary.replicas"? [chart-value]`,
	}
	var got []string
	for _, m := range problem.FindAllStringSubmatch(errs, -1) {
		if m[2] == "chart-value" {
			got = append(got, m[0])
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("platc vet with two misspelled Loki values: exit %d; the chart-value problems are\n%s\nwant\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, errs, code := platc(t, repo, "vet", "-strict"); code == 0 {
		t.Errorf("platc vet -strict passes a misspelled value:\n%s", errs)
	}
}

// edit replaces old, which must be there, with new in file.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o666); err != nil {
		t.Fatal(err)
	}
}
