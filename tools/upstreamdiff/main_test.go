package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fakeModules serves releases from memory, as the module proxy would.
type fakeModules struct {
	list     map[string][]string
	releases map[string]map[string][]byte // module@version: files
}

func (f fakeModules) versions(module string) ([]string, error) {
	return f.list[module], nil
}

func (f fakeModules) files(module, version string) (map[string][]byte, error) {
	files, ok := f.releases[module+"@"+version]
	if !ok {
		return nil, fmt.Errorf("%s@%s: not served", module, version)
	}
	return files, nil
}

func TestNewerReleases(t *testing.T) {
	releases, pre := newerReleases("v3.6.2", []string{"v3.5.8", "v3.6.0-rc2", "v3.6.1", "v3.6.2", "v3.7.0", "v3.6.10", "v3.6.3", "v3.7.0-rc1", "latest"})
	if want := []string{"v3.6.3", "v3.6.10", "v3.7.0"}; !slices.Equal(releases, want) {
		t.Errorf("releases %q, want %q", releases, want)
	}
	if want := []string{"v3.7.0-rc1"}; !slices.Equal(pre, want) {
		t.Errorf("pre-releases %q, want %q", pre, want)
	}
}

// TestCheckNewer: a patch release that changes a ported file fails the
// check, naming the release and the file; one that changes other files
// does not; a pre-release is listed, not compared.
func TestCheckNewer(t *testing.T) {
	p := project{name: "Upstream", module: "example.com/upstream", target: "v3.6.2", files: []string{"a.go", "b.go"}}
	m := fakeModules{
		list: map[string][]string{p.module: {"v3.6.1", "v3.6.2", "v3.6.3", "v3.6.4", "v3.7.0-rc1"}},
		releases: map[string]map[string][]byte{
			p.module + "@v3.6.2": {"a.go": []byte("package a\n"), "b.go": []byte("package b\n")},
			p.module + "@v3.6.3": {"a.go": []byte("package a\n"), "b.go": []byte("package b\n"), "c.go": []byte("other\n")},
			p.module + "@v3.6.4": {"a.go": []byte("package a\n\nvar veto = true\n"), "b.go": []byte("package b\n")},
		},
	}
	var out strings.Builder
	changed, err := checkNewer(&out, m, []project{p})
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Errorf("the check passed, but v3.6.4 changed a.go:\n%s", out.String())
	}
	for _, want := range []string{
		"Upstream v3.6.2: 2 newer release(s) served: v3.6.3 v3.6.4 (pre-releases not compared: v3.7.0-rc1)",
		"Upstream v3.6.3: no file platc ports changed",
		"+var veto = true",
		"  Upstream v3.6.4 changed a.go (changed)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output has no line %q:\n%s", want, out.String())
		}
	}

	// Without v3.6.4, nothing fails.
	m.list[p.module] = []string{"v3.6.2", "v3.6.3"}
	out.Reset()
	if changed, err := checkNewer(&out, m, []project{p}); err != nil || changed {
		t.Errorf("checkNewer = %v, %v, want false, nil:\n%s", changed, err, out.String())
	}
}

func TestCompare(t *testing.T) {
	old := map[string][]byte{"same": []byte("x"), "edit": []byte("1\n"), "gone": []byte("g")}
	cur := map[string][]byte{"same": []byte("x"), "edit": []byte("2\n"), "new": []byte("n")}
	var got []string
	for _, c := range compare([]string{"same", "edit", "gone", "new", "none"}, "v1", "v2", old, cur) {
		got = append(got, c.file+" "+c.what)
	}
	if want := []string{"same unchanged", "edit changed", "gone gone", "new new", "none in neither"}; !slices.Equal(got, want) {
		t.Errorf("compare = %q, want %q", got, want)
	}
}
