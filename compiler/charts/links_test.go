package charts_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/charts"
)

// TestFolderLinks: a symbolic link in a chart folder is followed, as
// Helm follows it, where it stays inside the repository and leads to a
// file; otherwise the message says it is a link, and what to do.
func TestFolderLinks(t *testing.T) {
	chart := func(link string, target string) fstest.MapFS {
		return fstest.MapFS{
			"web/Chart.yaml":             {Data: []byte("apiVersion: v2\nname: web\nversion: 1.0.0\n")},
			"web/values.yaml":            {Data: []byte("replicas: 1\n")},
			"common/cm.yaml":             {Data: []byte("kind: ConfigMap\n")},
			"web/templates/" + link:      {Data: []byte(target), Mode: fs.ModeSymlink},
			"common/dir/x.yaml":          {Data: []byte("x: 1\n")},
			"web/templates/.keep":        {Data: nil},
			"web/templates/service.yaml": {Data: []byte("kind: Service\n")},
		}
	}
	if _, err := charts.LoadFolder(chart("cm.yaml", "../../common/cm.yaml"), "web"); err != nil {
		t.Errorf("a link inside the repository: %v", err)
	}
	for _, c := range []struct{ target, want string }{
		{"../../../etc/passwd", `web/templates/cm.yaml is a symbolic link to "../../../etc/passwd", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		{"/etc/passwd", `web/templates/cm.yaml is a symbolic link to "/etc/passwd", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		{"../../common/dir", `web/templates/cm.yaml is a symbolic link to a folder ("../../common/dir"), which platc does not follow in a chart: copy the folder into the chart, or link its files one by one`},
		{"nowhere.yaml", `web/templates/cm.yaml is a symbolic link to "nowhere.yaml", which does not exist: fix the link, or remove it`},
	} {
		_, err := charts.LoadFolder(chart("cm.yaml", c.target), "web")
		if err == nil || err.Error() != c.want {
			t.Errorf("a link to %s:\n got %v\nwant %s", c.target, err, c.want)
		}
	}
}
