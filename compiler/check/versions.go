package check

import (
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// environmentCharts checks an environment's own chart versions
// (environments.<env>.charts): each names a chart the platform declares,
// and pins an exact version, as the platform's pins do.
//
// Whether each version is locked (sources/charts.lock) is verify's, as
// for the platform's pins: model.Spec.PinnedVersions lists every chart at
// every version it runs, each placed at its pin, so that the lock holds
// one entry per repository, chart and version.
func (c *checker) environmentCharts(env *model.Environment) {
	for _, p := range env.Charts {
		if c.spec.Chart(p.Chart) == nil {
			c.log.Reportf(diag.UnknownName, p.Pos, p.Path, "unknown chart %q: an environment runs another version of a chart declared under charts%s", p.Chart, diag.DidYouMean(p.Chart, chartNames(c.spec)))
			continue
		}
		if p.OK("version") {
			if msg := PinProblem(p.Version); msg != "" {
				c.reportf(diag.Version, &p.Node, "version", "%s", msg)
			}
		}
	}
}
