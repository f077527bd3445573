package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/upstream"
	"github.com/platc/platc/compiler/validate"
	"github.com/platc/platc/schemas"
	"github.com/platc/platc/testkit/crdsubset"
)

// argoCDCRDs are the CRDs of the Application and the AppProject as Argo CD
// ships them (manifests/crds of its module, at the version platc targets),
// by file name. The module's folder comes from the go command, which
// downloads the module if its cache lacks it.
var argoCDCRDs = sync.OnceValues(func() (map[string][]byte, error) {
	mod := "github.com/argoproj/argo-cd/v3@" + upstream.ArgoCD
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", mod, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	if m.Dir == "" {
		return nil, fmt.Errorf("downloading %s: %s", mod, m.Error)
	}
	files := map[string][]byte{}
	for _, name := range []string{"application-crd.yaml", "appproject-crd.yaml"} {
		data, err := os.ReadFile(filepath.Join(m.Dir, "manifests", "crds", name))
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
})

// TestEmbeddedCRDsAreSubsets checks that the CRDs of the Application and
// the AppProject that platc embeds (schemas/crds) are subsets of Argo
// CD's: everything platc accepts, Argo CD's API server accepts (CEL rules
// aside). conformance/kro compares the ResourceGraphDefinition's.
func TestEmbeddedCRDsAreSubsets(t *testing.T) {
	up, err := argoCDCRDs()
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := crdsubset.Compare(schemas.CRDs(), up, "argoproj.io/Application", "argoproj.io/AppProject")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// TestRenderedMatchesCRDs checks every Application and AppProject platc
// renders, for the sample platform and every golden case, against Argo
// CD's CRD of its kind with platc's validator, strictly (a field the CRD
// does not declare is an error), as platc vet -crds does with a cluster's
// CRDs. conformance/kro's TestRendered admits the ResourceGraphDefinitions
// and stack instances with kro's.
func TestRenderedMatchesCRDs(t *testing.T) {
	files, err := argoCDCRDs()
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.FromCRDs(files)
	if err != nil {
		t.Fatal(err)
	}
	objects := 0
	for _, repo := range repos(t) {
		res := compiler.Compile(os.DirFS(repo), compiler.Options{})
		for _, o := range res.Outputs {
			if !strings.HasSuffix(o.Path, ".yaml") || strings.Contains(o.Path, "/direct-apply/") || strings.Contains(o.Path, "/argocd-values") {
				continue // a plan, and Helm values: not Kubernetes objects
			}
			for i, doc := range bytes.Split(o.Data, []byte("\n---\n")) {
				var obj map[string]any
				if err := yaml.Unmarshal(doc, &obj); err != nil {
					t.Fatalf("%s: %s: document %d: %v", repo, o.Path, i+1, err)
				}
				apiVersion, _ := obj["apiVersion"].(string)
				if !strings.HasPrefix(apiVersion, "argoproj.io/") {
					continue // a file with no objects, or kro's
				}
				objects++
				problems, err := v.Validate(obj)
				if err != nil {
					t.Errorf("%s: %s: document %d: %v", repo, o.Path, i+1, err)
				}
				for _, p := range problems {
					t.Errorf("%s: %s: %s %v: %s", repo, o.Path, obj["kind"], obj["metadata"].(map[string]any)["name"], p)
				}
			}
		}
	}
	if objects < 50 {
		t.Errorf("validated %d objects; the sample and the golden cases render more", objects)
	}
	t.Logf("Argo CD's CRDs admit all %d Applications and AppProjects", objects)
}

// updateFields makes TestUpstreamFieldsAreArgoCDs write the list instead.
var updateFields = flag.Bool("update-fields", false, "rewrite schemas/upstream-fields.txt from Argo CD's CRDs")

// TestUpstreamFieldsAreArgoCDs checks that the fields platc knows Argo
// CD's CRDs declare (schemas/upstream-fields.txt, with which platc
// accepts a field its smaller CRDs lack in an Application or AppProject
// that a chart renders) are those of Argo CD's own CRDs at the version
// platc targets; -update-fields rewrites the file.
func TestUpstreamFieldsAreArgoCDs(t *testing.T) {
	up, err := argoCDCRDs()
	if err != nil {
		t.Fatal(err)
	}
	lines, err := crdsubset.Fields(up, "argoproj.io/Application", "argoproj.io/AppProject")
	if err != nil {
		t.Fatal(err)
	}
	// An Application's status and operation Argo CD writes itself: what
	// is below them is not judged (**), and the list keeps the fields
	// users write.
	var kept []string
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case f[2] == ".status" || f[2] == ".operation":
			kept = append(kept, l, l+".**")
		case strings.HasPrefix(f[2], ".status.") || strings.HasPrefix(f[2], ".operation."):
		default:
			kept = append(kept, l)
		}
	}
	want := schemas.UpstreamFieldsHeader(upstream.ArgoCD) + strings.Join(kept, "\n") + "\n"
	const file = "../../schemas/upstream-fields.txt"
	if *updateFields {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not the fields of Argo CD %s's CRDs: go test ./conformance/argocd -run TestUpstreamFieldsAreArgoCDs -update-fields (in conformance/argocd: go test -run TestUpstreamFieldsAreArgoCDs -update-fields) rewrites it", file, upstream.ArgoCD)
	}
}
