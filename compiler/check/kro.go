package check

import (
	"fmt"
	"maps"
	"slices"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/kro"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/upstream"
)

// kroGates checks platform.kro.featureGates against kro's own pkg/features,
// and, in each environment that delivers kro's chart, the gates its values
// set (config.featureGates, the kro chart's) against them: platc checks
// the stacks as a kro with the spec's gates would, so the kro the
// platform installs must run with the same.
func (c *checker) kroGates() {
	k := &c.spec.Platform.Kro
	// The gates kro knows: an unknown one is reported, and the others
	// compared with what the platform installs.
	gates := kro.Gates{}
	known := kro.KnownGates()
	for _, name := range slices.Sorted(maps.Keys(k.FeatureGates)) {
		if !slices.Contains(known, name) {
			p := diag.JoinPath(k.FieldPath("featureGates"), name)
			c.log.Reportf(diag.UnknownName, c.spec.PosOf(p), p, "unknown kro feature gate %q%s: kro %s's are %s", name, diag.DidYouMean(name, known), upstream.Kro, diag.List(known))
			continue
		}
		gates[name] = k.FeatureGates[name]
	}
	if err := gates.Check(); err != nil {
		c.reportf(diag.FeatureGate, &k.Node, "featureGates", "kro refuses these feature gates: %v", err)
		return
	}
	for _, m := range c.spec.Modules {
		ch := c.spec.Chart(m.Chart)
		if m.Kind.Info().Syncs != model.SyncsChart || ch == nil || ch.Chart != "kro" {
			continue
		}
		for _, env := range c.spec.Environments {
			if Enabled(env, m.Name) {
				c.kroModuleGates(env, m, gates)
			}
		}
	}
}

// kroModuleGates compares the gates the values of m, kro's chart, set in
// env (the module's values, then the environment's) with gates.
func (c *checker) kroModuleGates(env *model.Environment, m *model.Module, gates kro.Gates) {
	set := map[string]bool{}
	from := map[string]string{} // gate -> spec path of the value
	type layer struct {
		path   string
		values map[string]any
	}
	layers := []layer{{m.FieldPath("values"), m.Values}}
	if s := env.Settings[m.Name]; s != nil {
		layers = append(layers, layer{s.FieldPath("values"), s.Values})
	}
	for _, l := range layers {
		config, _ := l.values["config"].(map[string]any)
		fg, _ := config["featureGates"].(map[string]any)
		for name, v := range fg {
			on, ok := v.(bool)
			p := diag.JoinPath(l.path+".config.featureGates", name)
			if !ok {
				c.log.Reportf(diag.FeatureGate, c.spec.PosOf(p), p, "kro's chart passes config.featureGates to --feature-gates as name=value: write true or false")
				continue
			}
			set[name], from[name] = on, p
		}
	}
	// Every gate the values set, and every gate of kro's (those the
	// values leave at kro's default).
	names := append(slices.Collect(maps.Keys(set)), kro.KnownGates()...)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		want := gates.On(name)
		got, ok := set[name]
		if !ok {
			got = kro.Default(name)
		}
		if got == want {
			continue
		}
		spec := diag.JoinPath(c.spec.Platform.Kro.FieldPath("featureGates"), name)
		if p, ok := from[name]; ok {
			says := fmt.Sprintf("sets %s=%t", name, want)
			if _, named := c.spec.Platform.Kro.FeatureGates[name]; !named {
				says = fmt.Sprintf("leaves it at kro's default, %t", want)
			}
			c.log.Reportf(diag.FeatureGate, c.spec.PosOf(p), p, "module %s installs kro with feature gate %s=%t in environment %s, and platform.kro.featureGates %s: the stacks are checked as the spec's kro runs; set %s: %t, or change the value", m.Name, name, got, env.Name, says, spec, got)
		} else {
			c.log.Reportf(diag.FeatureGate, c.spec.PosOf(spec), spec, "platform.kro.featureGates sets %s=%t, and module %s installs kro with %s=%t (kro's default) in environment %s: set %s.config.featureGates.%s: %t, or remove the gate here", name, want, m.Name, name, got, env.Name, m.FieldPath("values"), name, want)
		}
	}
}
