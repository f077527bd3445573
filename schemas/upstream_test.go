package schemas_test

import (
	"os"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/upstream"
	"github.com/platc/platc/schemas"
)

// TestUpstreamDeclares reads upstream-fields.txt as verify does: a field
// of Argo CD's CRD, at any list index or map key, and anything below
// what keeps unknown fields; not a field it lacks, nor a kind it does
// not list.
func TestUpstreamDeclares(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind, pointer string
		want                      bool
	}{
		{"argoproj.io/v1alpha1", "Application", "/spec/source/helm/values", true},
		{"argoproj.io/v1alpha1", "Application", "/spec/sources/2/helm/version", true},
		{"argoproj.io/v1alpha1", "Application", "/spec/source/helm/valuesObject/any/thing", true},
		{"argoproj.io/v1alpha1", "Application", "/status/anything/below", true},
		{"argoproj.io/v1alpha1", "Application", "/spec/source/helm/valuez", false},
		{"argoproj.io/v1alpha1", "Application", "/spec/sources/x/helm", false},
		{"argoproj.io/v1alpha1", "AppProject", "/spec/destinations/0/name", true},
		{"argoproj.io/v1alpha1", "AppProject", "/spec/sourceRepo", false},
		{"argoproj.io/v1alpha2", "Application", "/spec/project", false},
		{"v1", "ConfigMap", "/data", false},
	} {
		if got := schemas.UpstreamDeclares(c.apiVersion, c.kind, c.pointer); got != c.want {
			t.Errorf("UpstreamDeclares(%s, %s, %s) = %v, want %v", c.apiVersion, c.kind, c.pointer, got, c.want)
		}
	}
}

// TestUpstreamFieldsAreOfTheTarget holds upstream-fields.txt to the Argo
// CD platc targets (conformance/argocd compares its lines with that
// release's CRDs) and to its form.
func TestUpstreamFieldsAreOfTheTarget(t *testing.T) {
	data, err := os.ReadFile("upstream-fields.txt")
	if err != nil {
		t.Fatal(err)
	}
	header := schemas.UpstreamFieldsHeader(upstream.ArgoCD)
	if !strings.HasPrefix(string(data), header) {
		t.Errorf("upstream-fields.txt does not start with the header of Argo CD %s: in conformance/argocd, go test -run TestUpstreamFieldsAreArgoCDs -update-fields rewrites it", upstream.ArgoCD)
	}
	for i, line := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(data), header), "\n"), "\n") {
		if f := strings.Fields(line); len(f) != 3 || !strings.HasPrefix(f[2], ".") {
			t.Errorf("upstream-fields.txt: line %d after the header is %q, want group/Kind version .path", i+1, line)
		}
	}
}
