package report

import (
	"fmt"
	"io/fs"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/explain"
	"github.com/platc/platc/compiler/model"
)

// envValues are the Helm values an environment sets over the platform's,
// module by module.
type envValues struct {
	Env    string
	Values []envValue
}

// envValue is one value an environment sets for a module's chart, where,
// and whether Helm gets it.
type envValue struct {
	Module, Path, Value, Pos string
	// Replaced says what a later layer sets instead; "" where Helm gets
	// the environment's value.
	Replaced string
}

// overrides is what explain says of the values each of envs sets for
// the Helm modules it delivers (environments.<env>.modules.<m>.values).
func overrides(res *compiler.Result, repo fs.FS, envs []*model.Environment) ([]envValues, error) {
	var out []envValues
	for _, env := range envs {
		ev := envValues{Env: env.Name}
		for _, m := range res.Spec.Modules {
			s := env.Settings[m.Name]
			if s == nil || len(s.Values) == 0 || !m.Kind.TakesValues(res.Info.Charts[m.Name]) || !check.Delivered(env, m.Name, res.Info.Parent) {
				continue
			}
			ex, err := explain.Explain(res.Spec, res.Info, res.Stacks, res.Layers, repo, env.Name, m.Name)
			if err != nil {
				return nil, err
			}
			for i, l := range ex.Layers {
				if l.Source != s.FieldPath("values") {
					continue
				}
				for _, st := range l.Settings {
					v := envValue{Module: m.Name, Path: st.Path, Value: show(st.Value), Pos: st.Pos}
					if w, win, ok := ex.Winner(st.Path); ok && w != i {
						v.Replaced = fmt.Sprintf("%s sets %s (%s)", layerName(ex, w), show(win.Value), win.Pos)
					}
					ev.Values = append(ev.Values, v)
				}
			}
		}
		if len(ev.Values) > 0 {
			out = append(out, ev)
		}
	}
	return out, nil
}
