package check

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
)

// TestOutDirMayNotShareAnInputFolder checks the output root against every
// folder platc reads: Git's, the spec's, the values folders of clients in
// this repository, the repo-path modules'.
func TestOutDirMayNotShareAnInputFolder(t *testing.T) {
	const tail = `: platc rewrites its output folder; use one of its own, such as "out" [out-dir]`
	tests := []struct {
		specDir, outDir string
		want            string // the message after the position and spec path, without tail; "" for none
	}{
		{"sources", ".git", `".git" is a Git folder`},
		{"sources", ".git/platc", `".git/platc" is inside the Git folder .git`},
		{"sources", ".GIT", `".GIT" is a Git folder`},
		{"sources", "vendor/lib/.git/out", `"vendor/lib/.git/out" is inside the Git folder vendor/lib/.git`},
		{"sources", ".github", ""},
		{"sources", "out.git", ""},
		{"sources", "sources", `"sources" is the spec's folder`},
		{"sources", "sources/out", `"sources/out" is inside the spec's folder (sources)`},
		{"platform/spec", "platform", `"platform" holds the spec's folder (platform/spec)`},
		{"platform/spec", "platform/out", ""},
		{"sources", "sourcesout", ""},
		{"sources", "clients", `"clients" holds the values folder of client team (clients/team)`},
		{"sources", "clients/team", `"clients/team" is the values folder of client team`},
		{"sources", "clients/team/rendered", `"clients/team/rendered" is inside the values folder of client team (clients/team)`},
		{"sources", "clients/other", ""},
		{"sources", "elsewhere/x", ""},
		{"sources", "manifests/web/out", `"manifests/web/out" is inside the folder of module web (manifests/web)`},
		{"sources", "out", ""},
	}
	for _, tt := range tests {
		t.Run(tt.specDir+" "+tt.outDir, func(t *testing.T) {
			spec := `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git", outDir: "` + tt.outDir + `"}
modules: {
	web: {path: "manifests/web", namespace: "web"}
	values: {stacks: ["s"], namespace: "s"}
}
environments: dev: revision: "HEAD"
clients: {
	team: {values: repoURL: "https://git.example.com/shop.git", stacks: s: environments: ["dev"]}
	other: {values: {repoURL: "https://git.example.com/other.git", prefix: "clients/other"}, stacks: s: environments: ["dev"]}
}
stacks: s: {kind: "S", group: "example.org", namespace: "s", spec: {}, primitives: {}, modules: {}}
`
			fsys := fstest.MapFS{
				tt.specDir + "/platform.cue":   {Data: []byte(spec)},
				"manifests/web/configmap.yaml": {Data: []byte("kind: ConfigMap\n")},
			}
			log := &diag.Log{}
			loaded := load.Load(fsys, tt.specDir, log)
			if loaded == nil {
				t.Fatalf("the test spec does not load:\n%s", log)
			}
			Check(model.Decode(loaded), fsys, log)
			var got []string
			for _, p := range log.Problems() {
				if p.Path == "platform.outDir" {
					got = append(got, p.String())
				}
			}
			want := []string{}
			if tt.want != "" {
				want = []string{tt.specDir + "/platform.cue:2:79: platform.outDir: " + tt.want + tail}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("problems of outDir:\n%s\nwant:\n%s\nall:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), log)
			}
		})
	}
}
