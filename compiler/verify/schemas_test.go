package verify

import (
	"testing"

	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
)

// TestEmbeddedSchemas compiles the schema of every kind the embedded CRDs
// define, as FromObjects does, checking each against the meta-schema:
// embedded, the validator every run uses, compiles only the kinds it
// meets and does not check them (validate.FromTrusted), so that no run
// would report a CRD of platc's that does not compile, nor miss a
// constraint of one that the library would ignore.
func TestEmbeddedSchemas(t *testing.T) {
	crds, err := schemas.CRDObjects()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := validate.FromObjects(crds); err != nil {
		t.Fatalf("the embedded CRDs do not compile: %v", err)
	}
}
