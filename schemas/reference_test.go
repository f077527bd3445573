package schemas_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/schemas"
)

// specPage is the spec reference, made from the schema's comments.
const specPage = "../docs/spec.md"

// TestSpecReference fails when docs/spec.md is not what SpecReference
// makes of schemas/platform.cue and the primitives' CRDs; go test
// ./schemas -update rewrites it.
func TestSpecReference(t *testing.T) {
	want, err := schemas.SpecReference()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(specPage, []byte(want), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(specPage)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s is not made from the schema (-want +got); go test ./schemas -update rewrites it:\n%s", specPage, diff)
	}
}
