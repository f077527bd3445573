package conformance

import (
	"testing"

	"github.com/platc/platc/testkit/crdsubset"
)

// TestEmbeddedCRDsAreSubsets checks that the ResourceGraphDefinition CRD
// platc embeds (schemas/crds) is a subset of kro's: everything platc
// accepts, kro's CRD accepts (CEL rules aside). conformance/argocd
// compares the Application's and the AppProject's.
func TestEmbeddedCRDsAreSubsets(t *testing.T) {
	data, err := KroCRDFile()
	if err != nil {
		t.Fatal(err)
	}
	up := map[string][]byte{"kro.run_resourcegraphdefinitions.yaml": data}
	diffs, err := crdsubset.Compare(EmbeddedCRDs(), up, "kro.run/ResourceGraphDefinition")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}
