package charts

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/Masterminds/semver/v3"

	"go.yaml.in/yaml/v3"
)

// Limits of what Pull reads, against a hostile or broken server.
const (
	maxIndexSize   = 64 << 20
	maxArchiveSize = 64 << 20
	maxManifest    = 4 << 20
)

// Pull fetches one chart version: from an HTTP chart repository (its
// index.yaml names the archive's URL and digest) or, for an oci://
// repository, from an OCI registry (the manifest of the version's tag,
// then its Helm chart layer). It checks every digest the server gives and
// returns the lock entry and the archive; client is the HTTP client to use.
func Pull(ctx context.Context, client *http.Client, name, repoURL, chart, version string) (Entry, []byte, error) {
	e := Entry{Name: name, RepoURL: repoURL, Chart: chart, Version: version}
	var data []byte
	var err error
	if rest, ok := strings.CutPrefix(repoURL, "oci://"); ok || !strings.Contains(repoURL, "://") {
		// An OCI registry: oci://, or without a scheme, as Argo CD
		// reads one (helm.IsHelmOciRepo).
		data, e.ManifestDigest, err = pullOCI(ctx, client, strings.TrimSuffix(rest, "/")+"/"+chart, version)
	} else {
		data, err = pullHTTP(ctx, client, repoURL, chart, version)
	}
	if err != nil {
		return e, nil, err
	}
	if _, err := LoadArchive(data); err != nil {
		return e, nil, fmt.Errorf("the archive of %s %s is not a chart Helm loads: %v", chart, version, err)
	}
	e.Digest = Digest(data)
	return e, data, nil
}

// Get sends a GET of u with header and returns the response and, for a
// 200, its body, at most limit bytes. Every request platc makes goes
// through it: Pull's, and platc outdated's.
func Get(ctx context.Context, client *http.Client, u string, limit int64, header http.Header) ([]byte, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %v", u, err)
	}
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes", u, limit)
	}
	return data, resp, nil
}

// index is the part of a chart repository's index.yaml Pull reads.
type index struct {
	Entries map[string][]struct {
		Version string   `yaml:"version"`
		URLs    []string `yaml:"urls"`
		Digest  string   `yaml:"digest"`
	} `yaml:"entries"`
}

func pullHTTP(ctx context.Context, client *http.Client, repoURL, chart, version string) ([]byte, error) {
	base := strings.TrimSuffix(repoURL, "/") + "/"
	indexURL := base + "index.yaml"
	data, resp, err := Get(ctx, client, indexURL, maxIndexSize, nil)
	if err != nil {
		return nil, err
	}
	if status := resp.StatusCode; status != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s: is %s a chart repository?", indexURL, status, http.StatusText(status), repoURL)
	}
	var idx index
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s: %v", indexURL, err)
	}
	versions, ok := idx.Entries[chart]
	if !ok {
		return nil, fmt.Errorf("%s has no chart %q", repoURL, chart)
	}
	for _, v := range versions {
		if v.Version != version {
			continue
		}
		if len(v.URLs) == 0 {
			return nil, fmt.Errorf("%s names no URL for %s %s", indexURL, chart, version)
		}
		// A relative URL is relative to the repository (Helm's
		// repo.ResolveReferenceURL).
		b, err := url.Parse(base)
		if err != nil {
			return nil, err
		}
		ref, err := url.Parse(v.URLs[0])
		if err != nil {
			return nil, fmt.Errorf("%s: URL of %s %s: %v", indexURL, chart, version, err)
		}
		u := b.ResolveReference(ref).String()
		archive, resp, err := Get(ctx, client, u, maxArchiveSize, nil)
		if err != nil {
			return nil, err
		}
		if status := resp.StatusCode; status != http.StatusOK {
			return nil, fmt.Errorf("%s: %d %s", u, status, http.StatusText(status))
		}
		if v.Digest != "" && "sha256:"+strings.TrimPrefix(v.Digest, "sha256:") != Digest(archive) {
			return nil, fmt.Errorf("%s: the archive's digest is %s, the index says %s", u, Digest(archive), v.Digest)
		}
		return archive, nil
	}
	return nil, fmt.Errorf("%s has no version %s of %s (it has %d others)", repoURL, version, chart, len(versions))
}

// Media types of Helm charts in OCI registries (Helm's pkg/registry).
const (
	ociManifestType = "application/vnd.oci.image.manifest.v1+json"
	chartLayerType  = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

type ociManifest struct {
	Layers []struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
	} `json:"layers"`
}

// pullOCI pulls ref (host/path/chart) at tag version over HTTPS, with an
// anonymous bearer token where the registry asks for one (the
// distribution spec's token flow, as public registries use it).
func pullOCI(ctx context.Context, client *http.Client, ref, version string) ([]byte, string, error) {
	host, name, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, "", fmt.Errorf("oci://%s names no repository", ref)
	}
	reg := &registry{client: client, base: "https://" + host + "/v2/" + name}
	// The version as written, '+' as '_', as Helm's registry client
	// pulls it (pkg/registry): a version is never matched to another tag.
	tag := strings.ReplaceAll(version, "+", "_")
	manifest, _, err := reg.get(ctx, "/manifests/"+tag, maxManifest, ociManifestType)
	if errors.Is(err, errNotFound) {
		err = reg.missing(ctx, version, tag)
	}
	if err != nil {
		return nil, "", err
	}
	var m ociManifest
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, "", fmt.Errorf("the manifest of %s:%s: %v", ref, version, err)
	}
	for _, l := range m.Layers {
		if l.MediaType != chartLayerType {
			continue
		}
		if !ValidDigest(l.Digest) {
			return nil, "", fmt.Errorf("the manifest of %s:%s names layer digest %q, which platc does not verify", ref, version, l.Digest)
		}
		blob, _, err := reg.get(ctx, "/blobs/"+l.Digest, maxArchiveSize, "")
		if err != nil {
			return nil, "", err
		}
		if d := Digest(blob); d != l.Digest {
			return nil, "", fmt.Errorf("the chart layer of %s:%s has digest %s, the manifest says %s", ref, version, d, l.Digest)
		}
		return blob, Digest(manifest), nil
	}
	return nil, "", fmt.Errorf("%s:%s is not a Helm chart: its manifest has no layer of type %s", ref, version, chartLayerType)
}

// missing says why the registry has no tag for a chart version: where
// it has one of the same semantic version (kro's chart 0.9.3 is tagged
// v0.9.3), the error names the version to pin, since Helm, and so Argo
// CD, would not find the version as written either.
func (r *registry) missing(ctx context.Context, version, tag string) error {
	tags, err := r.tags(ctx)
	if err != nil {
		return err
	}
	if want, err := semver.NewVersion(version); err == nil {
		for _, t := range tags {
			v, err := semver.NewVersion(strings.ReplaceAll(t, "_", "+"))
			if err == nil && v.Equal(want) && v.Metadata() == want.Metadata() {
				return fmt.Errorf("%s has no tag %s, but has %s, the same version: Helm, and so Argo CD, pulls the tag as written: pin version %q", r.ref(), tag, t, strings.ReplaceAll(t, "_", "+"))
			}
		}
	}
	return fmt.Errorf("%s has no version %s (it has %d others)", r.ref(), version, len(tags))
}

// ref is the registry's repository, host/path.
func (r *registry) ref() string {
	return strings.Replace(strings.TrimPrefix(r.base, "https://"), "/v2/", "/", 1)
}

// maxTagPages bounds the pages of a tag list a registry may answer with.
const maxTagPages = 100

// tags lists the repository's tags, following the Link header of a
// paginated answer (the distribution spec's tag listing).
func (r *registry) tags(ctx context.Context) ([]string, error) {
	var all []string
	next := "/tags/list"
	for page := 0; next != ""; page++ {
		if page == maxTagPages {
			return nil, fmt.Errorf("%s/tags/list: more than %d pages", r.base, maxTagPages)
		}
		data, header, err := r.get(ctx, next, maxManifest, "")
		if err != nil {
			return nil, err
		}
		var list struct {
			Tags []string `json:"tags"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("%s/tags/list: %v", r.base, err)
		}
		all = append(all, list.Tags...)
		next = nextPage(header.Get("Link"), r.base)
	}
	return all, nil
}

// nextPage is the path, relative to base, of the rel="next" link of a
// Link header ("</v2/name/tags/list?last=x&n=100>; rel=\"next\""), or "".
func nextPage(link, base string) string {
	target, rest, ok := strings.Cut(link, ">")
	if !ok || !strings.Contains(rest, `rel="next"`) {
		return ""
	}
	target = strings.TrimPrefix(strings.TrimSpace(target), "<")
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	p, ok := strings.CutPrefix(u.Path, b.Path)
	if !ok {
		return ""
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// errNotFound is a registry's 404.
var errNotFound = errors.New("404 Not Found")

type registry struct {
	client *http.Client
	base   string
	token  string
}

func (r *registry) get(ctx context.Context, p string, limit int64, accept string) ([]byte, http.Header, error) {
	for try := 0; ; try++ {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		if r.token != "" {
			h.Set("Authorization", "Bearer "+r.token)
		}
		data, resp, err := Get(ctx, r.client, r.base+p, limit, h)
		if err != nil {
			return nil, nil, err
		}
		status := resp.StatusCode
		switch {
		case status == http.StatusOK:
			return data, resp.Header, nil
		case status == http.StatusUnauthorized && try == 0:
			if err := r.authorize(ctx, resp.Header.Get("WWW-Authenticate")); err != nil {
				return nil, nil, err
			}
			continue
		}
		if status == http.StatusNotFound {
			return nil, nil, fmt.Errorf("%s: %w", r.base+p, errNotFound)
		}
		return nil, nil, fmt.Errorf("%s: %d %s", r.base+p, status, http.StatusText(status))
	}
}

// authorize gets an anonymous token from the realm a registry's
// WWW-Authenticate: Bearer challenge names.
func (r *registry) authorize(ctx context.Context, challenge string) error {
	scheme, params, _ := strings.Cut(challenge, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return fmt.Errorf("%s asks for %q authentication: platc pulls public charts only", r.base, scheme)
	}
	attrs := map[string]string{}
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		attrs[k] = strings.Trim(v, `"`)
	}
	u, err := url.Parse(attrs["realm"])
	if err != nil || attrs["realm"] == "" {
		return fmt.Errorf("%s: a Bearer challenge without a realm", r.base)
	}
	q := u.Query()
	for _, k := range []string{"service", "scope"} {
		if attrs[k] != "" {
			q.Set(k, attrs[k])
		}
	}
	u.RawQuery = q.Encode()
	data, resp, err := Get(ctx, r.client, u.String(), 1<<20, nil)
	if err != nil {
		return err
	}
	if status := resp.StatusCode; status != http.StatusOK {
		return fmt.Errorf("%s: %d %s: platc pulls public charts only", u, status, http.StatusText(status))
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(data, &tok); err != nil {
		return fmt.Errorf("%s: %v", u, err)
	}
	r.token = cmp.Or(tok.Token, tok.AccessToken)
	return nil
}
