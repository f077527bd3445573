package deliver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/testkit/chartstest"
)

// writeCorpus writes a corpus of archives (file -> bytes) with its
// index.json.
func writeCorpus(t *testing.T, entries []corpusEntry, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(entries)
	if err := os.WriteFile(filepath.Join(dir, "index.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func hexOf(data []byte) string { return strings.TrimPrefix(charts.Digest(data), "sha256:") }

// TestVendorCorpus: every pin the corpus holds (same repository, chart
// and version as its Chart.yaml says: kro's v0.9.3, listed as 0.9.3) is
// locked by its archive's digest and vendored; a pin it does not hold is
// not, and says why; a pin the spec's own lock has stays as it was.
func TestVendorCorpus(t *testing.T) {
	web, kro := []byte("web archive"), []byte("kro archive")
	corpus := writeCorpus(t, []corpusEntry{
		{Name: "web", Version: "1.0.0", RepoURL: "https://charts.example.com/", File: "web-1.0.0.tgz", SHA256: hexOf(web)},
		{Name: "kro", Version: "0.9.3", ChartVersion: "v0.9.3", RepoURL: "oci://registry.example.com/kro/charts", File: "kro-v0.9.3.tgz", SHA256: hexOf(kro)},
	}, map[string][]byte{"web-1.0.0.tgz": web, "kro-v0.9.3.tgz": kro})
	work := t.TempDir()
	spec := filepath.Join(work, "sources")
	own := charts.Entry{Name: "own", RepoURL: "https://own.example.com", Chart: "own", Version: "2.0.0", Digest: charts.Digest([]byte("own"))}
	os.MkdirAll(spec, 0o755)
	os.WriteFile(filepath.Join(spec, charts.LockFile), (&charts.Lock{Charts: []charts.Entry{own}}).Marshal(), 0o644)
	pins := []*ChartPin{
		{Name: "web", RepoURL: "https://charts.example.com", Chart: "web", Version: "1.0.0"},
		{Name: "kro", RepoURL: "oci://registry.example.com/kro/charts", Chart: "kro", Version: "v0.9.3"},
		{Name: "kro-unprefixed", RepoURL: "oci://registry.example.com/kro/charts", Chart: "kro", Version: "0.9.3"},
		{Name: "mimir", RepoURL: "https://charts.example.com", Chart: "mimir", Version: "6.0.5"},
		{Name: "own", RepoURL: "https://own.example.com", Chart: "own", Version: "2.0.0"},
	}
	if err := vendorCorpus(work, "sources", corpus, "../shared/charts", pins); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(spec, charts.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := charts.ParseLock(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pin     *ChartPin
		archive []byte // nil: not vendored from the corpus
		why     string
	}{
		{pins[0], web, ""},
		{pins[1], kro, ""},
		{pins[2], nil, "not in ../shared/charts"},
		{pins[3], nil, "not in ../shared/charts"},
		{pins[4], nil, ""},
	} {
		p := tc.pin
		e := lock.Find(p.RepoURL, p.Chart, p.Version)
		if p.Real != (tc.archive != nil) || p.Why != tc.why || p.Corpus != "../shared/charts" {
			t.Errorf("%s: real %v, why %q, corpus %q", p.Name, p.Real, p.Why, p.Corpus)
		}
		if tc.archive == nil {
			if p.Name != "own" && e != nil {
				t.Errorf("%s is locked: %+v", p.Name, e)
			}
			continue
		}
		if e == nil || e.Digest != charts.Digest(tc.archive) || e.Name != p.Name {
			t.Errorf("%s: locked as %+v, want the digest of its archive", p.Name, e)
			continue
		}
		if got, err := os.ReadFile(filepath.Join(spec, charts.VendorDir, e.File())); err != nil || string(got) != string(tc.archive) {
			t.Errorf("%s: vendored %s: %q, %v", p.Name, e.File(), got, err)
		}
	}
	if e := lock.Find(own.RepoURL, own.Chart, own.Version); e == nil || *e != own {
		t.Errorf("the spec's own entry became %+v", e)
	}
	// serveCharts serves what was vendored, each repository as its URL
	// says; servedPins says so of each pin.
	servers, err := serveCharts(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, s := range servers {
			s.close()
		}
	}()
	servedPins(pins, servers)
	for i, want := range []bool{true, true, false, false, false} {
		if pins[i].Served != want {
			t.Errorf("%s: served %v, want %v (why %q)", pins[i].Name, pins[i].Served, want, pins[i].Why)
		}
	}
	for _, s := range servers {
		if s.oci {
			secrets := s.repositorySecrets("argocd", 0)
			if len(secrets) != 1 {
				t.Fatalf("%d repository secrets for %s", len(secrets), s.To)
			}
			data := secrets[0].Object["stringData"].(map[string]any)
			if data["type"] != "oci" || data["url"] != s.To+"/kro" || data["insecure"] != "true" {
				t.Errorf("the OCI repository of kro: %v", data)
			}
			if d := s.manifestDigest("kro", "v0.9.3"); d != chartstest.ManifestDigest(chartstest.Chart{Name: "kro", Version: "v0.9.3", Archive: kro}) {
				t.Errorf("kro's manifest digest %q", d)
			}
		}
	}
}

// TestVendorCorpusRefuses: without the corpus the rig does not run; an
// archive that is not the one its index.json says is refused.
func TestVendorCorpusRefuses(t *testing.T) {
	pins := []*ChartPin{{Name: "web", RepoURL: "https://charts.example.com", Chart: "web", Version: "1.0.0"}}
	err := vendorCorpus(t.TempDir(), "sources", filepath.Join(t.TempDir(), "absent"), "../shared/charts", pins)
	if err == nil || !strings.Contains(err.Error(), "the corpus of real charts is not at") || !strings.Contains(err.Error(), "../shared/charts") {
		t.Errorf("without a corpus: %v", err)
	}
	corpus := writeCorpus(t, []corpusEntry{
		{Name: "web", Version: "1.0.0", RepoURL: "https://charts.example.com", File: "web-1.0.0.tgz", SHA256: hexOf([]byte("another"))},
	}, map[string][]byte{"web-1.0.0.tgz": []byte("web archive")})
	err = vendorCorpus(t.TempDir(), "sources", corpus, "corpus", pins)
	if err == nil || !strings.Contains(err.Error(), "its digest is") {
		t.Errorf("an archive of another digest: %v", err)
	}
}
