// Package chartstest serves charts on the loopback interface for tests: an
// HTTP chart repository (index.yaml and archives) and a minimal OCI
// registry (the distribution spec's manifest and blob reads, behind an
// anonymous bearer token as public registries ask for), both over TLS in
// the test process. Nothing leaves the machine.
package chartstest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Chart is one chart version to serve.
type Chart struct {
	Name, Version string
	Archive       []byte
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Repo is an HTTP chart repository.
type Repo struct {
	*httptest.Server
	mu     sync.Mutex
	charts []Chart
	// Requests counts the requests served.
	Requests int
}

// NewRepo serves charts as a chart repository at Server.URL; Close it.
func NewRepo(charts ...Chart) *Repo {
	r := &Repo{charts: charts}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	return r
}

// Set replaces the charts served (a re-published version).
func (r *Repo) Set(charts ...Chart) {
	r.mu.Lock()
	r.charts = charts
	r.mu.Unlock()
}

func (r *Repo) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Requests++
	if req.URL.Path == "/index.yaml" {
		w.Write(Index(r.charts...))
		return
	}
	for _, c := range r.charts {
		if req.URL.Path == "/charts/"+c.Name+"-"+c.Version+".tgz" {
			w.Write(c.Archive)
			return
		}
	}
	http.NotFound(w, req)
}

// Index is the index.yaml of a chart repository that serves each chart
// at charts/<name>-<version>.tgz, with its digest.
func Index(charts ...Chart) []byte {
	type version struct {
		Name    string   `yaml:"name"`
		Version string   `yaml:"version"`
		URLs    []string `yaml:"urls"`
		Digest  string   `yaml:"digest"`
	}
	idx := struct {
		APIVersion string               `yaml:"apiVersion"`
		Entries    map[string][]version `yaml:"entries"`
	}{APIVersion: "v1", Entries: map[string][]version{}}
	for _, c := range charts {
		idx.Entries[c.Name] = append(idx.Entries[c.Name], version{c.Name, c.Version, []string{"charts/" + c.Name + "-" + c.Version + ".tgz"}, strings.TrimPrefix(digest(c.Archive), "sha256:")})
	}
	data, _ := yaml.Marshal(idx)
	return data
}

// Registry is an OCI registry holding charts under /v2/charts/<name>,
// as Helm pushes them (`helm push`: a manifest whose config is the chart's
// metadata and whose one layer is its archive), readable by Helm's and
// Argo CD's clients (oras-go) as by platc's: each chart version is the tag
// of its version as written (Helm's tag, "+" as "_"); manifests are read
// by tag or by digest, with GET or HEAD, and say their digest
// (Docker-Content-Digest), as oras-go requires; the config and the
// archive are blobs; the tags of a repository are listed
// (/tags/list); /v2/ answers the API's ping.
type Registry struct {
	*httptest.Server
	mu     sync.Mutex
	charts []Chart
	// Token is the bearer token the registry hands out and requires.
	Token string
}

// NewRegistry serves charts as an OCI registry; their repository URL is
// RepoURL(). Close it.
func NewRegistry(charts ...Chart) *Registry {
	r := &Registry{charts: charts, Token: "anonymous-pull-token"}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	return r
}

// RepoURL is the oci:// repository of the charts.
func (r *Registry) RepoURL() string {
	return "oci://" + strings.TrimPrefix(r.URL, "https://") + "/charts"
}

// Set replaces the charts served.
func (r *Registry) Set(charts ...Chart) {
	r.mu.Lock()
	r.charts = charts
	r.mu.Unlock()
}

// tag is the tag a chart version is pushed under: its version, with "+"
// (not allowed in a tag) as "_", as Helm's registry client writes it.
func tag(version string) string { return strings.ReplaceAll(version, "+", "_") }

const manifestType = "application/vnd.oci.image.manifest.v1+json"

func (c Chart) config() []byte {
	return []byte(fmt.Sprintf(`{"name":%q,"version":%q}`, c.Name, c.Version))
}

// ManifestDigest is the digest of the manifest the registry serves for
// a chart version: what a client resolves its tag to.
func ManifestDigest(c Chart) string { return digest(Manifest(c)) }

// Manifest is the OCI manifest Helm pushes for a chart: its name and
// version as config, the archive as the one layer.
func Manifest(c Chart) []byte {
	config := c.config()
	m := map[string]any{
		"schemaVersion": 2,
		"mediaType":     manifestType,
		"config":        map[string]any{"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": digest(config), "size": len(config)},
		"layers":        []any{map[string]any{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "digest": digest(c.Archive), "size": len(c.Archive)}},
	}
	data, _ := json.Marshal(m)
	return data
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.URL.Path == "/token" {
		json.NewEncoder(w).Encode(map[string]string{"token": r.Token})
		return
	}
	if req.Header.Get("Authorization") != "Bearer "+r.Token {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="test",scope="repository:charts:pull"`, r.URL))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if req.URL.Path == "/v2/" || req.URL.Path == "/v2" {
		w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
		return
	}
	send := func(mediaType string, data []byte) {
		w.Header().Set("Content-Type", mediaType)
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Header().Set("Docker-Content-Digest", digest(data))
		if req.Method == http.MethodGet {
			w.Write(data)
		}
	}
	var tags []string
	repo := ""
	for _, c := range r.charts {
		base := "/v2/charts/" + c.Name
		if !strings.HasPrefix(req.URL.Path, base+"/") {
			continue
		}
		repo = "charts/" + c.Name
		tags = append(tags, tag(c.Version))
		m := Manifest(c)
		switch req.URL.Path {
		case base + "/manifests/" + tag(c.Version), base + "/manifests/" + digest(m):
			send(manifestType, m)
			return
		case base + "/blobs/" + digest(c.Archive):
			send("application/octet-stream", c.Archive)
			return
		case base + "/blobs/" + digest(c.config()):
			send("application/octet-stream", c.config())
			return
		}
	}
	if repo != "" && strings.HasSuffix(req.URL.Path, "/tags/list") {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": repo, "tags": tags})
		return
	}
	http.NotFound(w, req)
}
