package deliver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/charts"
)

// A ChartPin is a chart version the spec pins, and how the rig serves it.
type ChartPin struct {
	// Platform names the platform in a report (Source.Name).
	Platform string `json:"platform,omitempty"`
	// Name is the spec's name for the chart; RepoURL, Chart and Version
	// are as the spec pins them.
	Name    string `json:"name"`
	RepoURL string `json:"repoURL"`
	Chart   string `json:"chart"`
	Version string `json:"version"`
	// Served: its archive is locked and vendored, and served on loopback
	// in place of its repository.
	Served bool `json:"served"`
	// Real: the archive served is the real chart, from the corpus
	// (Source.Corpus), not a test chart the platform vendors.
	Real bool `json:"real,omitempty"`
	// Why it is not served: its Applications are unreachable for this
	// reason.
	Why string `json:"why,omitempty"`
	// Corpus is the corpus of real charts it was looked for in, if any.
	Corpus string `json:"corpus,omitempty"`
}

func (p *ChartPin) String() string {
	return fmt.Sprintf("%s %s (%s)", p.Chart, p.Version, p.RepoURL)
}

// corpusEntry is one archive of a corpus of real charts, as its
// index.json lists it.
type corpusEntry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// ChartVersion is the version its Chart.yaml says, where that is not
	// Version as the repository lists it (kro: v0.9.3, tagged so in its
	// registry).
	ChartVersion string `json:"chartVersion"`
	RepoURL      string `json:"repoURL"`
	File         string `json:"file"`
	SHA256       string `json:"sha256"`
}

// vendorCorpus locks and vendors, in the work copy's spec folder, the
// archive of every chart version the spec pins that the corpus holds
// (the same repository, chart and version), checked against the digest
// the corpus's index.json gives; a pin the spec's own lock already has
// stays as it is. It marks the pins whose archive is the corpus's
// (Real), and says why the others it has none of are not served, naming
// the corpus by label (as from the repository: ../shared/charts). A
// corpus that is not there is an error: a delivery asked to use the real
// charts does not quietly deliver without them.
func vendorCorpus(work, specDir, corpus, label string, pins []*ChartPin) error {
	data, err := os.ReadFile(filepath.Join(corpus, "index.json"))
	if err != nil {
		return fmt.Errorf("the corpus of real charts is not at %s (%s from the repository; its index.json: %w): the delivery uses the real charts the spec pins, and does not run without them", corpus, label, err)
	}
	var entries []corpusEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(corpus, "index.json"), err)
	}
	specPath := filepath.Join(work, specDir)
	lock := &charts.Lock{}
	if data, err := os.ReadFile(filepath.Join(specPath, charts.LockFile)); err == nil {
		if lock, err = charts.ParseLock(data); err != nil {
			return fmt.Errorf("%s: %w", charts.LockFile, err)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	added := false
	for _, p := range pins {
		p.Corpus = label
		if lock.Find(p.RepoURL, p.Chart, p.Version) != nil {
			continue
		}
		e := findCorpus(entries, p.RepoURL, p.Chart, p.Version)
		if e == nil {
			p.Why = "not in " + label
			continue
		}
		archive, err := os.ReadFile(filepath.Join(corpus, e.File))
		if err != nil {
			return fmt.Errorf("the corpus of real charts: %w", err)
		}
		if d := charts.Digest(archive); d != "sha256:"+e.SHA256 {
			return fmt.Errorf("%s: its digest is %s, %s says sha256:%s", filepath.Join(corpus, e.File), d, filepath.Join(corpus, "index.json"), e.SHA256)
		}
		entry := charts.Entry{Name: p.Name, RepoURL: p.RepoURL, Chart: p.Chart, Version: p.Version, Digest: charts.Digest(archive)}
		if err := os.MkdirAll(filepath.Join(specPath, charts.VendorDir), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(specPath, charts.VendorDir, entry.File()), archive, 0o644); err != nil {
			return err
		}
		lock.Charts = append(lock.Charts, entry)
		p.Real, added = true, true
	}
	if !added {
		return nil
	}
	return os.WriteFile(filepath.Join(specPath, charts.LockFile), lock.Marshal(), 0o644)
}

// readPins reads the chart versions the work copy's spec pins: the
// platform's and each environment's own.
func readPins(work, specDir string) ([]*ChartPin, error) {
	specs, _, log := compiler.Pins(os.DirFS(work), specDir)
	if log.HasErrors() {
		return nil, fmt.Errorf("the platform's chart pins:\n%s", log.String())
	}
	var pins []*ChartPin
	for _, c := range specs {
		pins = append(pins, &ChartPin{Name: c.Name, RepoURL: c.RepoURL, Chart: c.Chart, Version: c.Version})
	}
	return pins, nil
}

// findCorpus finds the archive of a chart version of a repository: the
// version its Chart.yaml says, which is the tag an OCI registry has it
// under and the version an HTTP repository's index lists.
func findCorpus(entries []corpusEntry, repoURL, chart, version string) *corpusEntry {
	for i, e := range entries {
		v := e.ChartVersion
		if v == "" {
			v = e.Version
		}
		if e.Name == chart && v == version && sameRepo(e.RepoURL, repoURL) {
			return &entries[i]
		}
	}
	return nil
}

// sameRepo reports whether two chart repository URLs are the same
// repository (a trailing slash aside).
func sameRepo(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// servedPins marks the pins that serveCharts serves (locked and
// vendored), and says why the others are not, where nothing has yet.
func servedPins(pins []*ChartPin, servers []*chartServer) {
	for _, p := range pins {
		for _, s := range servers {
			if sameRepo(s.From, p.RepoURL) && s.serves(p.Chart, p.Version) {
				p.Served = true
			}
		}
		if !p.Served && p.Why == "" {
			p.Why = "not vendored"
		}
		if p.Served {
			p.Why = ""
		}
	}
}
