package charts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/testkit/chartstest"
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
	// The registry without a scheme, as Argo CD reads one, is the same.
	bare := strings.TrimPrefix(reg.RepoURL(), "oci://")
	e, _, err = charts.Pull(context.Background(), reg.Client(), "web", bare, "web", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest != charts.Digest(a) || e.RepoURL != bare {
		t.Errorf("entry of the registry without a scheme %+v", e)
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

// TestPullOCITagAsWritten: Helm pulls an OCI chart by its version as
// written ('+' as '_'), never another tag of the same version; where the
// registry has one (kro's v0.9.3 for 0.9.3), the error names the pin.
func TestPullOCITagAsWritten(t *testing.T) {
	v := archive("v0.9.3", "1")
	build := archive("1.0.0+build.7", "1")
	reg := chartstest.NewRegistry(chartstest.Chart{Name: "web", Version: "v0.9.3", Archive: v}, chartstest.Chart{Name: "web", Version: "1.0.0+build.7", Archive: build})
	defer reg.Close()
	ctx := context.Background()
	if e, _, err := charts.Pull(ctx, reg.Client(), "web", reg.RepoURL(), "web", "v0.9.3"); err != nil || e.Digest != charts.Digest(v) {
		t.Errorf("v0.9.3: %+v %v", e, err)
	}
	if e, _, err := charts.Pull(ctx, reg.Client(), "web", reg.RepoURL(), "web", "1.0.0+build.7"); err != nil || e.Digest != charts.Digest(build) {
		t.Errorf("1.0.0+build.7: %+v %v", e, err)
	}
	host := strings.TrimPrefix(reg.URL, "https://")
	_, _, err := charts.Pull(ctx, reg.Client(), "web", reg.RepoURL(), "web", "0.9.3")
	want := host + `/charts/web has no tag 0.9.3, but has v0.9.3, the same version: Helm, and so Argo CD, pulls the tag as written: pin version "v0.9.3"`
	if err == nil || err.Error() != want {
		t.Errorf("0.9.3:\n got %v\nwant %s", err, want)
	}
	_, _, err = charts.Pull(ctx, reg.Client(), "web", reg.RepoURL(), "web", "2.0.0")
	if want := host + "/charts/web has no version 2.0.0 (it has 2 others)"; err == nil || err.Error() != want {
		t.Errorf("2.0.0:\n got %v\nwant %s", err, want)
	}
}

// TestLockRefusesPathsInNames: a lock entry whose chart or version would
// make the vendor folder's file name a path is refused.
func TestLockRefusesPathsInNames(t *testing.T) {
	d := charts.Digest([]byte("a"))
	for _, tc := range []struct{ chart, version string }{
		{"../../.git/hooks/pre-commit", "1.0.0"},
		{"web", "1.0.0/../../../x"},
		{"..", "1"},
		{".web", "1.0.0"},
		{`web\x`, "1.0.0"},
	} {
		data := fmt.Sprintf("charts:\n  - name: web\n    repoURL: https://r\n    chart: %q\n    version: %q\n    digest: %s\n", tc.chart, tc.version, d)
		_, err := charts.ParseLock([]byte(data))
		if err == nil || !strings.Contains(err.Error(), "is not a chart's name and version") {
			t.Errorf("chart %q version %q: %v", tc.chart, tc.version, err)
		}
	}
	bad := "charts:\n  - name: web\n    repoURL: https://r\n    chart: web\n    version: 1.0.0\n    digest: sha256:ABC\n"
	if _, err := charts.ParseLock([]byte(bad)); err == nil || err.Error() != `entry 1 (web 1.0.0): digest "sha256:ABC" is malformed: a digest is sha256: and 64 lower-case hexadecimal digits` {
		t.Errorf("a malformed digest: %v", err)
	}
	if _, err := charts.ParseLock([]byte("charts:\n  - name: web\n    repoURL: https://r\n    chart: web\n    version: 1.0.0+build.1\n    digest: " + d + "\n")); err != nil {
		t.Errorf("a plain entry: %v", err)
	}
}
