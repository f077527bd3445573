package explain_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/explain"
)

// TestUnknownApplicationListsOnlyWhatExists asks for an Application the
// sample's local environment does not have: the message lists the ones it
// has, and not those of a stack module whose includeWhen is false for the
// client (research turns Loki off; search gets no Grafana database).
func TestUnknownApplicationListsOnlyWhatExists(t *testing.T) {
	res := compiler.Compile(os.DirFS("../.."), compiler.Options{})
	if res.Log.HasErrors() {
		t.Fatalf("the sample does not compile:\n%s", res.Log)
	}
	_, err := explain.Explain(res.Spec, res.Info, res.Stacks, res.Layers, os.DirFS("../.."), "local", "nope")
	if err == nil {
		t.Fatal("explain of an unknown Application succeeds")
	}
	_, list, ok := strings.Cut(err.Error(), "; the Applications are ")
	if !ok {
		t.Fatalf("the message lists no Applications: %v", err)
	}
	apps := strings.Split(list, ", ")
	for _, want := range []string{"research-mimir", "search-loki", "qdrant-vector-store"} {
		if !slices.Contains(apps, want) {
			t.Errorf("the list lacks %s: %v", want, err)
		}
	}
	for _, absent := range []string{"research-loki", "search-grafana"} {
		if slices.Contains(apps, absent) {
			t.Errorf("the list has %s, which kro does not create: %v", absent, err)
		}
		if _, err := explain.Explain(res.Spec, res.Info, res.Stacks, res.Layers, os.DirFS("../.."), "local", absent); err == nil {
			t.Errorf("explain of %s, which kro does not create, succeeds", absent)
		}
	}
}
