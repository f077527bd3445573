package chartstest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestRegistryAsORASReadsIt: what Argo CD's OCI client (oras-go) and
// Helm's ask of a registry: a tag resolved with HEAD to the manifest's
// digest (Docker-Content-Digest, Content-Length, Content-Type), the
// manifest read again by that digest, its config and layer as blobs, the
// repository's tags. A version with build metadata is tagged with "_".
func TestRegistryAsORASReadsIt(t *testing.T) {
	kro := Chart{Name: "kro", Version: "v0.9.3", Archive: []byte("kro archive")}
	build := Chart{Name: "kro", Version: "1.0.0+build.1", Archive: []byte("kro build archive")}
	lite := Chart{Name: "litellm-helm", Version: "0.1.592", Archive: []byte("litellm archive")}
	reg := NewRegistry(kro, build, lite)
	defer reg.Close()
	client := reg.Client()
	do := func(method, path string, auth bool) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, reg.URL+path, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer "+reg.Token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}

	if resp, _ := do("HEAD", "/v2/charts/kro/manifests/v0.9.3", false); resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer realm=") {
		t.Errorf("without a token: %d %q, want 401 and a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if resp, _ := do("GET", "/v2/", true); resp.StatusCode != http.StatusOK {
		t.Errorf("ping: %d", resp.StatusCode)
	}
	for _, tc := range []struct {
		c   Chart
		tag string
	}{{kro, "v0.9.3"}, {build, "1.0.0_build.1"}, {lite, "0.1.592"}} {
		base := "/v2/charts/" + tc.c.Name
		head, body := do("HEAD", base+"/manifests/"+tc.tag, true)
		if head.StatusCode != http.StatusOK || len(body) != 0 {
			t.Fatalf("HEAD %s:%s: %d, %d bytes", tc.c.Name, tc.tag, head.StatusCode, len(body))
		}
		get, manifest := do("GET", base+"/manifests/"+tc.tag, true)
		d := head.Header.Get("Docker-Content-Digest")
		if get.StatusCode != http.StatusOK || d != digest(manifest) || d != ManifestDigest(tc.c) || get.Header.Get("Docker-Content-Digest") != d {
			t.Errorf("%s:%s: HEAD says digest %s, GET %s, the manifest's is %s", tc.c.Name, tc.tag, d, get.Header.Get("Docker-Content-Digest"), digest(manifest))
		}
		if head.ContentLength != int64(len(manifest)) || head.Header.Get("Content-Type") != manifestType {
			t.Errorf("%s:%s: HEAD says %d bytes of %s, the manifest is %d of %s", tc.c.Name, tc.tag, head.ContentLength, head.Header.Get("Content-Type"), len(manifest), manifestType)
		}
		if resp, again := do("GET", base+"/manifests/"+d, true); resp.StatusCode != http.StatusOK || string(again) != string(manifest) {
			t.Errorf("%s by digest: %d", tc.c.Name, resp.StatusCode)
		}
		var m struct {
			Config struct{ Digest string } `json:"config"`
			Layers []struct {
				MediaType, Digest string
			} `json:"layers"`
		}
		if err := json.Unmarshal(manifest, &m); err != nil || len(m.Layers) != 1 {
			t.Fatalf("%s: manifest %s: %v", tc.c.Name, manifest, err)
		}
		if resp, config := do("GET", base+"/blobs/"+m.Config.Digest, true); resp.StatusCode != http.StatusOK || digest(config) != m.Config.Digest {
			t.Errorf("%s: config blob: %d", tc.c.Name, resp.StatusCode)
		}
		if resp, archive := do("GET", base+"/blobs/"+m.Layers[0].Digest, true); resp.StatusCode != http.StatusOK || string(archive) != string(tc.c.Archive) {
			t.Errorf("%s: chart layer: %d", tc.c.Name, resp.StatusCode)
		}
	}
	if resp, _ := do("HEAD", "/v2/charts/kro/manifests/0.9.3", true); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a tag not pushed (0.9.3 of v0.9.3): %d, want 404", resp.StatusCode)
	}
	resp, body := do("GET", "/v2/charts/kro/tags/list", true)
	var tags struct {
		Name string
		Tags []string
	}
	if err := json.Unmarshal(body, &tags); resp.StatusCode != http.StatusOK || err != nil || tags.Name != "charts/kro" || !slices.Equal(tags.Tags, []string{"v0.9.3", "1.0.0_build.1"}) {
		t.Errorf("tags of charts/kro: %d %s", resp.StatusCode, body)
	}
}
