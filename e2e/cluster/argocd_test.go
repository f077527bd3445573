package cluster

import (
	"strings"
	"testing"

	"github.com/platc/platc/compiler/upstream"
)

// TestChartDefaults: the delivery test's Argo CD runs with the values of
// the argo-cd chart that make bootstrap-argocd installs, and the values
// platc renders over them.
func TestChartDefaults(t *testing.T) {
	if want := "argo-cd\n# chart " + upstream.ArgoCDChart + ", "; !strings.Contains(string(chartDefaults), want) {
		t.Errorf("argo-cd-chart.yaml does not name %q: copy configs.cm and configs.params again from the values.yaml of the chart compiler/upstream names", want)
	}
	d, err := ChartDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"timeout.reconciliation": "120s",
		"exec.enabled":           "false",
		"admin.enabled":          "true",
	} {
		if d.CM[k] != want {
			t.Errorf("the chart's argocd-cm %s = %q, want %q", k, d.CM[k], want)
		}
	}
	if !strings.Contains(d.CM["resource.exclusions"], "kyverno.io") || len(d.Params) != 0 {
		t.Errorf("the chart's defaults: %d of argocd-cm (resource.exclusions %q), %d of argocd-cmd-params-cm", len(d.CM), d.CM["resource.exclusions"], len(d.Params))
	}
	a, err := ChartValues([]byte("configs:\n  params:\n    application.namespaces: observability\n  cm:\n    timeout.reconciliation: 60s\n    statusbadge.enabled: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Params["application.namespaces"] != "observability" || a.CM["timeout.reconciliation"] != "60s" || a.CM["admin.enabled"] != "true" {
		t.Errorf("platc's values over the chart's: %v %v", a.Params, a.CM)
	}
	if _, ok := a.CM["statusbadge.enabled"]; ok {
		t.Errorf("an empty value is in argocd-cm: the chart leaves it out")
	}
	if _, err := ChartValues([]byte("server: {}\n")); err == nil {
		t.Errorf("a value the harness does not install is accepted")
	}
}
