package charts_test

import (
	"context"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/charts/chartstest"
)

func archive(version, replicas string) []byte {
	return charts.BuildArchive("web", map[string][]byte{
		"Chart.yaml":  []byte("apiVersion: v2\nname: web\nversion: " + version + "\n"),
		"values.yaml": []byte("replicaCount: " + replicas + "\n"),
	})
}

func TestPullHTTPRepository(t *testing.T) {
	a := archive("1.0.0", "1")
	repo := chartstest.NewRepo(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: a})
	defer repo.Close()
	e, data, err := charts.Pull(context.Background(), repo.Client(), "web", repo.URL, "web", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest != charts.Digest(a) || string(data) != string(a) || e.ManifestDigest != "" {
		t.Errorf("entry %+v", e)
	}
	if _, _, err := charts.Pull(context.Background(), repo.Client(), "web", repo.URL, "web", "2.0.0"); err == nil || !strings.Contains(err.Error(), "has no version 2.0.0 of web") {
		t.Errorf("a missing version: %v", err)
	}
}

func TestPullOCIRegistry(t *testing.T) {
	a := archive("1.0.0", "1")
	reg := chartstest.NewRegistry(chartstest.Chart{Name: "web", Version: "1.0.0", Archive: a})
	defer reg.Close()
	e, _, err := charts.Pull(context.Background(), reg.Client(), "web", reg.RepoURL(), "web", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest != charts.Digest(a) || !charts.ValidDigest(e.ManifestDigest) {
		t.Errorf("entry %+v", e)
	}
}

func TestLockRoundTrip(t *testing.T) {
	l := &charts.Lock{Charts: []charts.Entry{
		{Name: "b", RepoURL: "oci://r/x", Chart: "b", Version: "1.0.0", Digest: charts.Digest([]byte("b")), ManifestDigest: charts.Digest([]byte("m"))},
		{Name: "a", RepoURL: "https://r", Chart: "a", Version: "2.0.0", Digest: charts.Digest([]byte("a"))},
	}}
	data := l.Marshal()
	back, err := charts.ParseLock(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Charts[0].Name != "a" || back.Find("oci://r/x", "b", "1.0.0") == nil {
		t.Errorf("round trip: %+v", back)
	}
	if _, err := charts.ParseLock([]byte("charts:\n  - name: a\n    repoURL: r\n    chart: a\n    version: 1\n    digest: md5:00\n")); err == nil {
		t.Error("a malformed digest is accepted")
	}
	if _, err := charts.ParseLock([]byte("charts: []\nextra: 1\n")); err == nil {
		t.Error("an unknown field is accepted")
	}
}
