package synth

import (
	"testing"

	"github.com/platc/platc/compiler"
)

// TestPlatformsCompile requires every generated platform to compile without
// a problem: a benchmark of a platform with errors measures nothing.
func TestPlatformsCompile(t *testing.T) {
	for _, s := range []Size{{Environments: 3, Modules: 30, Clients: 3}, Sizes["10x100"], Sizes["10x100-nostck"]} {
		res := compiler.Compile(Platform(s), compiler.Options{})
		if problems := res.Log.String(); problems != "" {
			t.Errorf("%v:\n%s", s, problems)
		}
	}
}
