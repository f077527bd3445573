package realcharts

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/testkit/chartstest"
)

// archive is one entry of ../shared/charts/index.json with its bytes.
type archive struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	RepoURL string `json:"repoURL"`
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	// ChartVersion is the version in the archive's Chart.yaml, where it
	// is not Version (kro's v0.9.3): its OCI tag.
	ChartVersion string `json:"chartVersion"`
	data         []byte
}

// chart is the archive as its repository serves it, at its tag.
func (a *archive) chart() chartstest.Chart {
	return chartstest.Chart{Name: a.Name, Version: a.tag(), Archive: a.data}
}

func (a *archive) tag() string {
	if a.ChartVersion != "" {
		return a.ChartVersion
	}
	return a.Version
}

// upstream serves the archives at the URLs their users pull them from
// (https://kyverno.github.io/kyverno/index.yaml, an OCI registry at
// registry.k8s.io, ...), over TLS with a certificate of its own
// authority for those hosts, from one loopback listener. Nothing leaves
// the machine: Transport dials the listener whatever host it is asked
// for, and trusts only that authority.
type upstream struct {
	srv       *httptest.Server
	Transport *http.Transport
	archives  []*archive
}

func newUpstream(archives []*archive) (*upstream, error) {
	u := &upstream{archives: archives}
	hosts := map[string]bool{}
	for _, a := range archives {
		h, err := url.Parse(a.RepoURL)
		if err != nil {
			return nil, err
		}
		hosts[h.Host] = true
	}
	var names []string
	for h := range hosts {
		names = append(names, h)
	}
	ca, leaf, err := certificates(names)
	if err != nil {
		return nil, err
	}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	u.srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	u.srv.StartTLS()
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	addr := u.srv.Listener.Addr().String()
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	u.Transport = &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: pool},
	}
	return u, nil
}

func (u *upstream) Close() { u.srv.Close() }

// certificates makes a certificate authority and a leaf certificate of
// it for hosts.
func certificates(hosts []string) (*x509.Certificate, tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "realcharts test authority"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: hosts[0]},
		DNSNames:     hosts,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	return ca, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// serve answers as each archive's repository does: an HTTP chart
// repository's index.yaml and archives under its URL, or an OCI
// registry's tag list, manifests and blobs for oci:// ones, behind the
// anonymous bearer token public registries ask for.
func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	at := r.Host + r.URL.Path
	if r.URL.Path == "/token" {
		json.NewEncoder(w).Encode(map[string]string{"token": "anonymous"})
		return
	}
	// HTTP chart repositories.
	var index []*archive
	for _, a := range u.archives {
		base, ok := strings.CutPrefix(strings.TrimSuffix(a.RepoURL, "/")+"/", "https://")
		if !ok {
			continue
		}
		switch at {
		case base + "index.yaml":
			index = append(index, a)
		case base + "charts/" + a.Name + "-" + a.tag() + ".tgz":
			w.Write(a.data)
			return
		}
	}
	if len(index) > 0 {
		var cs []chartstest.Chart
		for _, a := range index {
			cs = append(cs, a.chart())
		}
		w.Write(chartstest.Index(cs...))
		return
	}
	// OCI registries.
	if !strings.HasPrefix(r.URL.Path, "/v2/") {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer anonymous" {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="https://%s/token",service="%s",scope="repository:%s:pull"`, r.Host, r.Host, strings.TrimPrefix(r.URL.Path, "/v2/")))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var tags []string
	name := ""
	for _, a := range u.archives {
		rest, ok := strings.CutPrefix(a.RepoURL, "oci://")
		if !ok {
			continue
		}
		repo := strings.TrimSuffix(rest, "/") + "/" + a.Name
		host, path, _ := strings.Cut(repo, "/")
		if host != r.Host {
			continue
		}
		prefix := "/v2/" + path + "/"
		switch r.URL.Path {
		case prefix + "tags/list":
			name = path
			tags = append(tags, a.tag())
			continue
		case prefix + "manifests/" + a.tag():
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Write(chartstest.Manifest(a.chart()))
			return
		case prefix + "blobs/" + charts.Digest(a.data):
			w.Write(a.data)
			return
		}
	}
	if name != "" {
		json.NewEncoder(w).Encode(map[string]any{"name": name, "tags": tags})
		return
	}
	http.NotFound(w, r)
}
