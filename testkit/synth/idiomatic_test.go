package synth

import (
	"testing"

	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
)

// TestIdiomaticIsThePlatform requires the idiomatic spelling of a
// generated platform to evaluate to the same values as the generator's
// (hidden fields aside, as cue export leaves them), and platc to render
// the same files from both, without a problem: the comparison of the two
// in make bench-compare measures the spelling and nothing else.
func TestIdiomaticIsThePlatform(t *testing.T) {
	for _, s := range []Size{{Environments: 3, Modules: 30, Clients: 3}, {Environments: 4, Modules: 24}} {
		t.Run(s.String(), func(t *testing.T) {
			plain, idiomatic := Platform(s), Idiomatic(s)
			ctx := cuecontext.New()
			export := func(src []byte) any {
				t.Helper()
				v := ctx.CompileBytes(src)
				if err := v.Err(); err != nil {
					t.Fatalf("does not build: %v", err)
				}
				var out any
				if err := v.Decode(&out); err != nil {
					t.Fatalf("does not export: %v", err)
				}
				return out
			}
			if diff := cmp.Diff(export(plain["sources/platform.cue"].Data), export(idiomatic["sources/platform.cue"].Data)); diff != "" {
				t.Fatalf("the idiomatic spec evaluates otherwise (-plain +idiomatic):\n%s", diff)
			}
			want, got := compiler.Compile(plain, compiler.Options{}), compiler.Compile(idiomatic, compiler.Options{})
			for _, p := range got.Log.Problems() {
				if p.Severity != diag.Note {
					t.Errorf("idiomatic: %s", p)
				}
			}
			files := func(r *compiler.Result) map[string]string {
				out := map[string]string{}
				for _, f := range r.Outputs {
					out[f.Path] = string(f.Data)
				}
				return out
			}
			if len(want.Outputs) == 0 {
				t.Fatal("the plain platform renders nothing")
			}
			if diff := cmp.Diff(files(want), files(got)); diff != "" {
				t.Errorf("rendered files (-plain +idiomatic):\n%s", diff)
			}
		})
	}
}
