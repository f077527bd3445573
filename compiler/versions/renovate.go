package versions

import (
	"strings"

	"github.com/platc/platc/compiler/model"
)

// Renovate names a chart as Renovate looks it up: the datasource, the
// package and, for a classic Helm repository, the registry.
type Renovate struct {
	Datasource  string // "helm", or "docker" for an OCI registry
	DepName     string // the chart; for OCI, registry/path/chart
	RegistryURL string // the Helm repository; "" for OCI
}

// RenovateOf is how Renovate looks up chart c, as its Helm managers do:
// the helm datasource for a classic repository, docker for OCI.
func RenovateOf(c *model.Chart) Renovate {
	if c.OCI() {
		return Renovate{Datasource: "docker", DepName: strings.TrimPrefix(c.OCIRef(), "oci://")}
	}
	return Renovate{Datasource: "helm", DepName: c.Chart, RegistryURL: c.RepoURL}
}

// Comment is the comment platc writes above an environment's own pin of
// a chart, which the custom manager of the Renovate configuration
// (renovate.json5) reads: an environment's pin names neither the
// repository nor the chart, so that they stay the platform's.
func (r Renovate) Comment() string {
	s := "// renovate: datasource=" + r.Datasource + " depName=" + r.DepName
	if r.RegistryURL != "" {
		s += " registryUrl=" + r.RegistryURL
	}
	return s
}
