package manifests

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/platc/platc/compiler/diag"
	memcache "github.com/platc/platc/internal/cache"
	"github.com/platc/platc/testkit/cachetest"
)

// link is a symbolic link to target in a fstest.MapFS.
func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Mode: fs.ModeSymlink, Data: []byte(target)}
}

func TestOutsideLink(t *testing.T) {
	fsys := fstest.MapFS{
		"a/cm.yaml":           {Data: []byte(configMapA)},
		"a/in.yaml":           link("cm.yaml"),
		"a/up.yaml":           link("../b/cm.yaml"),
		"b/cm.yaml":           {Data: []byte(configMapA)},
		"a/out.yaml":          link("../../etc/passwd"),
		"a/abs.yaml":          link("/etc/passwd"),
		"a/chain.yaml":        link("in.yaml"),
		"a/via-out.yaml":      link("out.yaml"),
		"shared":              link("/srv/manifests"),
		"a/sub":               link("../b"),
		"a/loop1.yaml":        link("loop2.yaml"),
		"a/loop2.yaml":        link("loop1.yaml"),
		"deep/x/y/escape":     link("../../../.."),
		"deep/x/y/root":       link("../../.."),
		"deep/x/y/root-twice": link("root/deep/x/y/root"),
	}
	tests := []struct {
		name, link, target string
		outside            bool
	}{
		{"a/cm.yaml", "", "", false},
		{"a/in.yaml", "", "", false},
		{"a/up.yaml", "", "", false},
		{"a/chain.yaml", "", "", false},
		{"a/sub/cm.yaml", "", "", false},
		{"a/out.yaml", "a/out.yaml", "../../etc/passwd", true},
		{"a/abs.yaml", "a/abs.yaml", "/etc/passwd", true},
		{"a/via-out.yaml", "a/out.yaml", "../../etc/passwd", true},
		{"shared/web/cm.yaml", "shared", "/srv/manifests", true},
		{"a/loop1.yaml", "", "", false},
		{"deep/x/y/escape/x", "deep/x/y/escape", "../../../..", true},
		{"deep/x/y/root/a/cm.yaml", "", "", false},
		{"deep/x/y/root-twice/a/cm.yaml", "", "", false},
		{"missing/cm.yaml", "", "", false},
	}
	for _, tt := range tests {
		l, target, outside := OutsideLink(fsys, tt.name)
		if l != tt.link || target != tt.target || outside != tt.outside {
			t.Errorf("OutsideLink(%q) = %q, %q, %v; want %q, %q, %v", tt.name, l, target, outside, tt.link, tt.target, tt.outside)
		}
	}
}

// TestBuildLinks builds folders with symbolic links: followed inside the
// repository, refused with their target outside it.
func TestBuildLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"common/cm.yaml":        {Data: []byte(configMapA)},
		"plain/in.yaml":         link("../common/cm.yaml"),
		"plain/out.yaml":        link("../../../etc/cm.yaml"),
		"plain/dangling.yaml":   link("nothing.yaml"),
		"linked":                link("/srv/manifests"),
		"k/kustomization.yaml":  {Data: []byte("resources:\n  - in.yaml\n  - out.yaml\n")},
		"k/in.yaml":             link("sub/cm.yaml"),
		"k/sub/cm.yaml":         {Data: []byte(configMapA)},
		"k/out.yaml":            link("/etc/cm.yaml"),
		"ki/kustomization.yaml": {Data: []byte("resources:\n  - in.yaml\n")},
		"ki/in.yaml":            link("../common/cm.yaml"),
		"kb/kustomization.yaml": {Data: []byte("resources:\n  - base\n")},
		"kb/base":               link("/srv/base"),
	}
	tests := []struct {
		dir      string
		objects  []Object
		problems []Problem
	}{
		{"plain", []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "plain/in.yaml", Line: 1}}, []Problem{
			{ID: diag.IO, File: "plain/dangling.yaml", Msg: "cannot read the file: file does not exist: fix or remove it"},
			{ID: diag.Path, File: "plain/out.yaml", Msg: `is a symbolic link to "../../../etc/cm.yaml", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		}},
		{"linked", nil, []Problem{
			{ID: diag.Path, File: "linked", Msg: `"linked" is a symbolic link to "/srv/manifests", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		}},
		{"k", nil, []Problem{
			{ID: diag.Path, File: "k/out.yaml", Msg: `is a symbolic link to "/etc/cm.yaml", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		}},
		// As kustomize on disk, which evaluates the links of a path
		// before it checks that a file is in or below the
		// kustomization's folder.
		{"ki", nil, []Problem{
			{ID: diag.Kustomize, File: "ki/kustomization.yaml", Msg: "kustomize build fails: accumulating resources: accumulation err='accumulating resources from 'in.yaml': security; file 'ki/in.yaml' is not in or below 'ki'': must build at directory: 'ki/in.yaml': file is not directory: fix the kustomization"},
		}},
		{"kb", nil, []Problem{
			{ID: diag.Path, File: "kb/base", Msg: `is a symbolic link to "/srv/base", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it`},
		}},
	}
	for _, tt := range tests {
		for _, cache := range []memcache.Cache{nil, &cachetest.Memory{}} {
			objects, problems := Build(fsys, tt.dir, cache)
			if diff := cmp.Diff(tt.objects, objects); diff != "" {
				t.Errorf("%s: objects (-want +got):\n%s", tt.dir, diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("%s: problems (-want +got):\n%s", tt.dir, diff)
			}
		}
	}
}

// TestCacheFollowsLinks checks that a cached outcome is built again when a
// link changes its target, even to a file of the same content.
func TestCacheFollowsLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"common/cm.yaml": {Data: []byte(configMapA)},
		"app/cm.yaml":    link("../common/cm.yaml"),
	}
	cache := &cachetest.Memory{}
	if _, problems := Build(fsys, "app", cache); len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	fsys["app/cm.yaml"] = link("../../common/cm.yaml")
	if _, problems := Build(fsys, "app", cache); len(problems) != 1 {
		t.Errorf("after the link left the repository: problems %v, want the link's", problems)
	}
}
