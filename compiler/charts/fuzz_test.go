package charts

import (
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"sigs.k8s.io/yaml"
)

// The readers of what platc takes from others: the lock (charts.lock,
// which a pull request may change), a chart's archive (a chart
// repository's), a chart's values.schema.json. make test runs their seeds
// (testdata/fuzz); go test -fuzz runs them longer (docs/guide.md, Tests).

// FuzzParseLock: a lock is read, or refused, without a panic; one read
// is written again as the same lock.
func FuzzParseLock(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock(data)
		if err != nil {
			return
		}
		again, err := ParseLock(l.Marshal())
		if err != nil {
			t.Fatalf("the lock written does not read: %v\n%s", err, l.Marshal())
		}
		if len(l.Charts) != len(again.Charts) {
			t.Fatalf("%d entries written, %d read", len(l.Charts), len(again.Charts))
		}
	})
}

// FuzzLoadArchive: an archive is loaded, or refused, without a panic, and
// a chart loaded renders (or fails) within a small budget.
func FuzzLoadArchive(f *testing.F) {
	old := renderBudget
	renderBudget.Depth, renderBudget.Output, renderBudget.Time = 100, 1<<20, 5*time.Second
	f.Cleanup(func() { renderBudget = old })
	f.Fuzz(func(t *testing.T, data []byte) {
		ch, err := LoadArchive(data)
		if err != nil {
			return
		}
		Render(ch, Request{Release: "r", Namespace: "ns"})
	})
}

// FuzzValuesSchema: a schema checks values, or is not checked, without a
// panic; the values the schema refuses are where the values are.
func FuzzValuesSchema(f *testing.F) {
	f.Fuzz(func(t *testing.T, schema, values []byte) {
		var vals map[string]any
		if yaml.Unmarshal(values, &vals) != nil {
			return
		}
		problems, _, err := validateSingle(common.Values(vals), schema)
		if err != nil {
			return
		}
		for _, p := range problems {
			if p.Message == "" {
				t.Fatalf("a problem without a message: %+v", p)
			}
		}
	})
}
