package compiler_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/rgd"
)

// TestRenderedRGDsCheck reads every ResourceGraphDefinition platc renders
// (for the sample and the golden cases) back from its bytes and checks it
// with kro's offline checks: every CEL expression in the files compiles and
// type-checks, the graph has no cycle, the schema parses.
func TestRenderedRGDsCheck(t *testing.T) {
	checked := 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		for _, o := range res.Outputs {
			if !strings.Contains(o.Path, "/stacks/") {
				continue
			}
			var obj map[string]any
			if err := yaml.Unmarshal(bytes.TrimSpace(o.Data), &obj); err != nil {
				t.Fatalf("%s: %v", o.Path, err)
			}
			if obj["kind"] != "ResourceGraphDefinition" {
				t.Fatalf("%s: kind %v", o.Path, obj["kind"])
			}
			g, err := rgd.FromObject(obj)
			if err != nil {
				t.Fatalf("%s: %v", o.Path, err)
			}
			_, problems := kro.Check(g)
			for _, p := range problems {
				t.Errorf("%s: %s: resource %q %s: %s", repo, o.Path, p.Resource, p.Path, p.Msg)
			}
			checked++
		}
	}
	if checked < 4 {
		t.Errorf("checked %d ResourceGraphDefinitions; the sample and the golden cases render more", checked)
	}
}
