package deliver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler/report"
)

// TestReportReadsAsRehearsal writes a report with every field set and
// reads it as platc report -rehearsal does, which refuses a field it does
// not know: a field added here must be added there.
func TestReportReadsAsRehearsal(t *testing.T) {
	r := &Report{Failures: []string{"customer: the control plane did not start"}}
	r.AddState("", &State{
		Apps:      []*App{{Env: "dev", Namespace: "argocd", Name: "web", Parent: "Application/ops", Wave: 2, Sync: "Synced", Health: "Healthy", Revision: "v1.0.0", Error: "e", Verdict: VerdictOK, Cause: "db", ByHand: "manual"}},
		RGDs:      []*RGD{{Env: "dev", Name: "site", State: "Active", CRD: "sites.kro.run", Established: true, Error: "e"}},
		Instances: []*Instance{{Env: "dev", Kind: "Site", Namespace: "sites", Name: "blue", State: "ACTIVE", Error: "e"}},
	})
	r.AddCheck(&Check{Name: "waves", Env: "dev", Pass: true, Detail: "d", Seconds: 3})
	file := filepath.Join(t.TempDir(), "report.json")
	if err := r.WriteJSON(file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := report.ReadRehearsal(data)
	if err != nil {
		t.Fatal(err)
	}
	a, g, i, c := got.Apps[0], got.RGDs[0], got.Instances[0], got.Checks[0]
	if a.Name != "web" || a.Parent != "Application/ops" || a.Wave != 2 || a.ByHand != "manual" || a.Cause != "db" || a.Revision != "v1.0.0" ||
		g.CRD != "sites.kro.run" || !g.Established || i.Kind != "Site" || i.State != "ACTIVE" ||
		c.Name != "waves" || !c.Pass || c.Seconds != 3 || len(got.Failures) != 1 {
		t.Errorf("read back %+v", got)
	}
}
