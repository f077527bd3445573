package rgd

import (
	"fmt"

	"github.com/platc/platc/compiler/model"
)

// chartVersionsField is the instance spec field platc adds to a stack one
// of whose charts some environment runs at a version of its own
// (environments.<env>.charts): the version of each such module's chart,
// by module id, defaulting to the platform's. A stack's RGD is one for
// every environment, so the version an environment runs reaches the
// Application kro creates through the instance, which platc makes per
// environment. Where no environment pins a stack's charts, the RGD has no
// such field and its Applications name the platform's version.
const chartVersionsField = "chartVersions"

// chartVersionsSchema is the SimpleSchema of chartVersionsField for the
// stack, or nil when no environment pins one of its charts.
func chartVersionsSchema(spec *model.Spec, st *model.Stack) map[string]any {
	var out map[string]any
	for _, m := range st.Modules {
		c := spec.Chart(m.Chart)
		if c == nil || !spec.PinnedSomewhere(m.Chart) {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[m.ID] = fmt.Sprintf("string | default=%q description=%q", c.Version, "version of chart "+c.Chart+" in this environment")
	}
	return out
}

// chartRevision is the targetRevision of a stack module's chart: the
// instance's field where some environment pins the chart, or "" for the
// platform's version, written in the RGD.
func chartRevision(spec *model.Spec, m *model.StackModule) string {
	if spec.Chart(m.Chart) == nil || !spec.PinnedSomewhere(m.Chart) {
		return ""
	}
	return "${schema.spec." + chartVersionsField + "." + m.ID + "}"
}

// chartVersions is the value of chartVersionsField in the instance of st
// in env: the versions env pins on its own, or nil (the RGD's defaults,
// the platform's versions).
func chartVersions(spec *model.Spec, env *model.Environment, st *model.Stack) map[string]any {
	if len(env.Charts) == 0 {
		return nil
	}
	var out map[string]any
	for _, m := range st.Modules {
		if p := env.Pin(m.Chart); p != nil && spec.Chart(m.Chart) != nil {
			if out == nil {
				out = map[string]any{}
			}
			out[m.ID] = p.Version
		}
	}
	return out
}
