package deliver

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/testkit/chartstest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A chartServer serves, on loopback, the archives a platform locks for
// one chart repository.
type chartServer struct {
	// From is the repository URL as the spec pins it; To the URL Argo
	// CD reads in its place.
	From, To string
	oci      bool
	close    func()
	Charts   []string // chart-version, sorted
	served   []chartstest.Chart
}

// serveCharts starts a loopback server for each repository of the lock
// file (the spec's charts.lock) whose archives the spec's vendor folder
// holds, checked against the lock: an HTTP chart repository or an OCI
// registry, as the pin's URL is, over TLS (platc's test chart servers,
// testkit/chartstest). A chart that is locked but not vendored
// is not served: Argo CD meets the real repository's URL for it.
func serveCharts(specDir string) ([]*chartServer, error) {
	data, err := os.ReadFile(filepath.Join(specDir, charts.LockFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lock, err := charts.ParseLock(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", charts.LockFile, err)
	}
	byRepo := map[string][]chartstest.Chart{}
	for _, e := range lock.Charts {
		archive, err := os.ReadFile(filepath.Join(specDir, charts.VendorDir, e.File()))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if charts.Digest(archive) != e.Digest {
			return nil, fmt.Errorf("%s/%s is not the archive locked for %s %s", charts.VendorDir, e.File(), e.Chart, e.Version)
		}
		byRepo[e.RepoURL] = append(byRepo[e.RepoURL], chartstest.Chart{Name: e.Chart, Version: e.Version, Archive: archive})
	}
	var servers []*chartServer
	for _, url := range slices.Sorted(maps.Keys(byRepo)) {
		cs := byRepo[url]
		s := &chartServer{From: url, served: cs}
		for _, c := range cs {
			s.Charts = append(s.Charts, c.Name+"-"+c.Version)
		}
		slices.Sort(s.Charts)
		if strings.HasPrefix(url, "oci://") {
			reg := chartstest.NewRegistry(cs...)
			s.To, s.oci, s.close = reg.RepoURL(), true, reg.Close
		} else {
			repo := chartstest.NewRepo(cs...)
			s.To, s.close = repo.URL, repo.Close
		}
		servers = append(servers, s)
	}
	return servers, nil
}

// manifestDigest is the digest of the manifest an OCI registry serves
// for a chart version's tag, or "".
func (s *chartServer) manifestDigest(chart, version string) string {
	if !s.oci {
		return ""
	}
	for _, c := range s.served {
		if c.Name == chart && c.Version == version {
			return chartstest.ManifestDigest(c)
		}
	}
	return ""
}

// OCIPulled checks that Argo CD pulled every chart the rig serves from an
// OCI registry by its tag, as the spec pins it: each Application with
// such a source is Synced at the digest of the manifest the registry
// serves for that tag (the revision Argo CD resolves the tag to), and
// there is one at least.
func (e *Env) OCIPulled(s *State) *Check {
	c := &Check{Name: "charts of OCI registries pulled by Argo CD by their tag", Env: e.Name, Pass: true}
	var notes []string
	for _, a := range s.Apps {
		for _, src := range a.oci {
			what := fmt.Sprintf("%s/%s: %s %s (%s/%s)", a.Namespace, a.Name, src.pin.Chart, src.pin.Version, src.pin.RepoURL, src.pin.Chart)
			if a.Sync != "Synced" || !strings.Contains(a.Revision, src.digest) {
				c.Pass = false
				notes = append(notes, fmt.Sprintf("%s: %s at %q, want Synced at %s, the manifest of tag %s", what, or(a.Sync, "not compared"), a.Revision, src.digest, src.pin.Version))
				continue
			}
			notes = append(notes, fmt.Sprintf("%s: tag %s pulled, Synced at %s", what, src.pin.Version, src.digest))
		}
	}
	if len(notes) == 0 {
		c.Pass, notes = false, []string{"no Application has a chart of an OCI registry the rig serves"}
	}
	c.Detail = strings.Join(notes, "; ")
	return c
}

// serves reports whether the server has an archive of a chart version.
func (s *chartServer) serves(chart, version string) bool {
	return slices.Contains(s.Charts, chart+"-"+version)
}

// repositorySecrets are the Argo CD repositories that let it read a
// loopback server: its certificate is the test server's own, so TLS is
// not verified (insecure), as for any repository with a self-signed
// certificate. An HTTP chart repository is one Helm repository; an OCI
// registry is one OCI repository per chart, for platc renders a chart of
// a registry as an OCI source (repoURL oci://host/path/chart, path "."),
// which Argo CD reads with its own OCI client, and a repository's
// insecure flag is not inherited from credentials for a prefix.
func (s *chartServer) repositorySecrets(namespace string, i int) []*unstructured.Unstructured {
	secret := func(name string, data map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{
				"name": name, "namespace": namespace,
				"labels": map[string]any{"argocd.argoproj.io/secret-type": "repository"},
			},
			"stringData": data,
		}}
	}
	name := fmt.Sprintf("loopback-charts-%d", i)
	if !s.oci {
		return []*unstructured.Unstructured{secret(name, map[string]any{"name": name, "type": "helm", "url": s.To, "insecure": "true"})}
	}
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	for _, c := range s.served {
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		n := fmt.Sprintf("%s-%d", name, len(out))
		out = append(out, secret(n, map[string]any{"name": n, "type": "oci", "url": s.To + "/" + c.Name, "insecure": "true"}))
	}
	return out
}
