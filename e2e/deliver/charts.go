package deliver

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/charts/chartstest"
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
}

// serveCharts starts a loopback server for each repository of the lock
// file (the spec's charts.lock) whose archives the spec's vendor folder
// holds, checked against the lock: an HTTP chart repository or an OCI
// registry, as the pin's URL is, over TLS (platc's test chart servers,
// compiler/charts/chartstest). A chart that is locked but not vendored
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
		s := &chartServer{From: url}
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

// repositorySecret is the Argo CD repository that lets it read a
// loopback server: its certificate is the test server's own, so TLS is
// not verified (insecure), as for any repository with a self-signed
// certificate.
func (s *chartServer) repositorySecret(namespace string, i int) *unstructured.Unstructured {
	data := map[string]any{
		"name": fmt.Sprintf("loopback-charts-%d", i), "type": "helm",
		"url": s.To, "insecure": "true",
	}
	if s.oci {
		data["url"] = strings.TrimPrefix(s.To, "oci://")
		data["enableOCI"] = "true"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{
			"name": fmt.Sprintf("loopback-charts-%d", i), "namespace": namespace,
			"labels": map[string]any{"argocd.argoproj.io/secret-type": "repository"},
		},
		"stringData": data,
	}}
}
