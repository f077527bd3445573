package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdChartRepo is the script command chartrepo DIR: it serves the files
// of DIR on the loopback interface, from the test process, until the
// script ends, and sets $CHARTREPO to its URL (http://127.0.0.1:port)
// and $CHARTHOST to its host and port, for oci://$CHARTHOST/...
// A Helm repository is its index.yaml; an OCI registry's tag list is
// DIR/v2/<repository>/tags/list, which it serves as a registry does to
// an anonymous client: a 401 with a Bearer challenge, then the list for
// the token of its realm (/token). It never reaches the internet.
func cmdChartRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chartrepo DIR")
	}
	dir := ts.MkAbs(args[0])
	files := http.FileServer(http.Dir(dir))
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/token":
			if r.URL.Query().Get("service") != "test-registry" || !strings.HasSuffix(r.URL.Query().Get("scope"), ":pull") {
				http.Error(w, "bad token request", http.StatusBadRequest)
				return
			}
			fmt.Fprint(w, `{"token": "anonymous"}`)
		case strings.HasPrefix(r.URL.Path, "/v2/") && r.Header.Get("Authorization") != "Bearer anonymous":
			repo := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/"), "/tags/list")
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="test-registry",scope="repository:%s:pull"`, srv.URL, repo))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		default:
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.URL.Path))); err != nil {
				http.NotFound(w, r)
				return
			}
			files.ServeHTTP(w, r)
		}
	}))
	ts.Defer(srv.Close)
	ts.Setenv("CHARTREPO", srv.URL)
	ts.Setenv("CHARTHOST", strings.TrimPrefix(srv.URL, "http://"))
}

// cmdExpand is the script command expand SRC DST: it writes SRC to DST
// with $VARIABLES of the script's environment expanded (a spec that names
// the repository chartrepo serves).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	data := ts.ReadFile(args[0])
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(data, ts.Getenv)), 0o644))
}
