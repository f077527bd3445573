package cli

import (
	"strings"
	"testing"
)

// TestReleaseOf requires that only a version a tag names is taken for a
// release: platc init pins it, and a build from a checkout pins nothing
// that does not exist.
func TestReleaseOf(t *testing.T) {
	for _, c := range []struct{ version, want string }{
		{"v1.2.0", "v1.2.0"},
		{"v1.3.0-rc.1", "v1.3.0-rc.1"},
		{"(devel)", ""},
		{"", ""},
		{"v0.0.0-20261206120000-0123456789ab", ""},
		{"v0.0.0-20261206120000-0123456789ab+dirty", ""},
		{"v1.2.1-0.20261206120000-0123456789ab", ""},
		{"v1.2.0+dirty", ""},
		{"v1.2.1-snapshot.0123456", ""},
		{"main", ""},
	} {
		if got := releaseOf(c.version); got != c.want {
			t.Errorf("releaseOf(%q) = %q, want %q", c.version, got, c.want)
		}
	}
}

// TestInitPinsARelease requires a release's starter files to pin it in
// each place a platform names platc: the install hint, pre-commit's rev
// and the workflow's action.
func TestInitPinsARelease(t *testing.T) {
	r := strings.NewReplacer(pins(buildVersion{Module: "v1.2.0"})...)
	for _, f := range starterFiles {
		got := r.Replace(f.text)
		if strings.Contains(got, "{{") && f.path != "sources/platform.cue" {
			t.Errorf("%s keeps a placeholder:\n%s", f.path, got)
		}
		if strings.Contains(got, "main") {
			t.Errorf("%s names main in a release's starter files:\n%s", f.path, got)
		}
	}
	want := map[string]string{
		"Makefile":                     "install it from https://github.com/platc/platc/releases/tag/v1.2.0, or with go install github.com/platc/platc/cmd/platc@v1.2.0, or name it",
		".pre-commit-config.yaml":      "    rev: v1.2.0\n",
		".github/workflows/platc.yaml": "      - uses: platc/platc@v1.2.0\n",
	}
	for _, f := range starterFiles {
		if w, ok := want[f.path]; ok && !strings.Contains(r.Replace(f.text), w) {
			t.Errorf("%s does not say %q:\n%s", f.path, w, r.Replace(f.text))
		}
	}
}
