package compiler_test

import (
	"os"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
)

// TestSampleRendersItsChart: the sample's RAG service is a chart of this
// repository, which platc renders offline in every environment, as Argo
// CD's repo server would; the upstream charts, which the sample does not
// lock, are named in a note.
func TestSampleRendersItsChart(t *testing.T) {
	res := compiler.Compile(os.DirFS(".."), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the sample platform does not compile:\n%s", res.Log)
	}
	envs := map[string]bool{}
	for _, a := range res.Charts.Apps() {
		if a.Name != "rag-service" {
			continue
		}
		if a.Outcome.Error != "" {
			t.Errorf("%s: %s", a.Env, a.Outcome.Error)
		}
		var kinds []string
		for _, o := range a.Outcome.Objects {
			kinds = append(kinds, o.Object["kind"].(string))
		}
		if got, want := strings.Join(kinds, ","), "ConfigMap,Service,Deployment"; got != want {
			t.Errorf("%s: rag-service renders %s, want %s", a.Env, got, want)
		}
		envs[a.Env] = true
	}
	if !envs["local"] || !envs["customer"] {
		t.Errorf("rag-service is rendered in %v, want local and customer", envs)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "qdrant") || !strings.Contains(res.Notes[0], "platc charts pull") {
		t.Errorf("notes = %q", res.Notes)
	}
}
