package check

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
)

// TestEmptyFolderWithAllowEmpty: a path module's folder that holds no
// manifests is what the spec means where the module's Application has
// allowEmpty in every environment that deploys it (Argo CD syncs an empty
// folder); elsewhere it is a warning (Argo CD accepts it, and it is
// likely a mistake), with allowEmpty as a way out.
func TestEmptyFolderWithAllowEmpty(t *testing.T) {
	const refused = `sources/platform.cue:3:24: warning: modules.later.path: folder "manifests/later" holds no manifests (.yaml, .yml or .json): Argo CD would sync nothing; add them, or set modules.later.syncPolicy.allowEmpty: true where the folder is empty on purpose [empty-folder]`
	tests := []struct {
		name, module, environments string
		want                       string
	}{
		{"no allowEmpty", ``, `dev: revision: "HEAD"`, refused},
		{"the module's", `, syncPolicy: allowEmpty: true`, `dev: revision: "HEAD"`, ""},
		{"every environment's", ``, `dev: {revision: "HEAD", syncPolicy: allowEmpty: true}, prod: {revision: "HEAD", modules: later: syncPolicy: allowEmpty: true}`, ""},
		{"one environment takes it back", `, syncPolicy: allowEmpty: true`, `dev: revision: "HEAD", prod: {revision: "HEAD", modules: later: syncPolicy: allowEmpty: false}`,
			`sources/platform.cue:3:24: warning: modules.later.path: folder "manifests/later" holds no manifests (.yaml, .yml or .json), and environment prod sets allowEmpty: false for it: Argo CD would sync nothing there; add them, or remove that allowEmpty [empty-folder]`},
		{"disabled where it is not set", ``, `dev: {revision: "HEAD", syncPolicy: allowEmpty: true}, prod: {revision: "HEAD", modules: later: enabled: false}`, ""},
		{"deployed nowhere", `, syncPolicy: allowEmpty: true`, `dev: {revision: "HEAD", modules: later: enabled: false}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
modules: later: {path: "manifests/later", namespace: "later"` + tt.module + `}
environments: {` + tt.environments + `}
`
			fsys := fstest.MapFS{
				"sources/platform.cue":      {Data: []byte(spec)},
				"manifests/later/README.md": {Data: []byte("empty on purpose\n")},
			}
			log := &diag.Log{}
			loaded := load.Load(fsys, "sources", log)
			if loaded == nil {
				t.Fatalf("the test spec does not load:\n%s", log)
			}
			Check(model.Decode(loaded), fsys, log)
			var got []string
			for _, p := range log.Problems() {
				if p.ID == diag.EmptyFolder {
					got = append(got, p.String())
				}
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s\nall:\n%s", strings.Join(got, "\n"), tt.want, log)
			}
		})
	}
}
