package charts

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/platc/platc/compiler/diag"
)

// unknownKeys lists the keys of the user's values that the chart does not
// know: not in its values.yaml (or a subchart's, below the subchart's
// name), where the default is not an empty map (free-form, such as
// podAnnotations: {}), and read by no template. A template reads a key
// when it names .Values down to it, or names one of its parents as a
// whole (toYaml .Values.resources, with .Values.image): then everything
// below is read. A key templates read below (.Values.extra.port) is known,
// and its keys are judged by what they read. global is Helm's, shared by every chart. Only the first
// unknown key of a path is listed.
func unknownKeys(ch *chart.Chart, user map[string]any) []UnknownKey {
	var out []UnknownKey
	walkUnknown(ch, user, ch.Values, nil, readPaths(ch), &out)
	return out
}

func walkUnknown(ch *chart.Chart, user, defaults map[string]any, at []string, reads *pathSet, out *[]UnknownKey) {
	for _, k := range slices.Sorted(maps.Keys(user)) {
		p := append(append([]string(nil), at...), k)
		if len(at) == 0 && k == "global" {
			continue
		}
		if len(at) == 0 {
			if sub := dependency(ch, k); sub != nil {
				if m, ok := user[k].(map[string]any); ok {
					// The subchart's values are its values.yaml under
					// the parent's for it, and Helm reads the
					// conditions of the parent's dependencies.
					known := sub.Values
					if pm, ok := defaults[k].(map[string]any); ok && len(pm) > 0 {
						known = unionValues(sub.Values, pm)
					}
					subReads := readPaths(sub)
					for _, d := range ch.Metadata.Dependencies {
						for _, c := range strings.Split(d.Condition, ",") {
							if rest, ok := strings.CutPrefix(strings.TrimSpace(c), k+"."); ok {
								subReads.paths[strings.ReplaceAll(rest, ".", "\x00")] = true
							}
						}
					}
					var subOut []UnknownKey
					walkUnknown(sub, m, known, nil, subReads, &subOut)
					for _, u := range subOut {
						*out = append(*out, UnknownKey{Path: append([]string{k}, u.Path...), Suggest: u.Suggest})
					}
				}
				continue
			}
		}
		def, inDefaults := defaults[k]
		if !inDefaults {
			if reads.reads(p) {
				continue
			}
			if reads.extends(p) {
				// Templates read below it: its keys are judged by
				// what they read.
				if um, ok := user[k].(map[string]any); ok {
					walkUnknown(ch, um, nil, p, reads, out)
				}
				continue
			}
			*out = append(*out, UnknownKey{Path: p, Suggest: suggest(k, defaults, reads.children(at), ch, len(at) == 0)})
			continue
		}
		um, userMap := user[k].(map[string]any)
		dm, defMap := def.(map[string]any)
		if userMap && defMap && len(dm) > 0 {
			walkUnknown(ch, um, dm, p, reads, out)
		}
	}
}

// unionValues has the keys of a and b (b's value where both have one
// that is not a map of both).
func unionValues(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	for k, bv := range b {
		am, aok := out[k].(map[string]any)
		bm, bok := bv.(map[string]any)
		if aok && bok {
			out[k] = unionValues(am, bm)
			continue
		}
		out[k] = bv
	}
	return out
}

// dependency is the subchart of ch named (or aliased) name, or nil.
func dependency(ch *chart.Chart, name string) *chart.Chart {
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return d
		}
	}
	for _, d := range ch.Metadata.Dependencies {
		if d.Alias == name {
			for _, sub := range ch.Dependencies() {
				if sub.Name() == d.Name {
					return sub
				}
			}
		}
	}
	return nil
}

func suggest(k string, defaults map[string]any, read []string, ch *chart.Chart, top bool) string {
	candidates := append(slices.Sorted(maps.Keys(defaults)), read...)
	if top {
		for _, d := range ch.Dependencies() {
			candidates = append(candidates, d.Name())
		}
	}
	return diag.Suggest(k, candidates)
}

// valuesRef is a chain of fields after .Values in a template: .Values.a.b,
// $.Values.a, (.Values).a is not seen.
var valuesRef = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

// pathSet is the .Values paths a chart's templates name.
type pathSet struct {
	paths map[string]bool // joined with "\x00"
}

func readPaths(ch *chart.Chart) *pathSet {
	s := &pathSet{paths: map[string]bool{}}
	for _, t := range ch.Templates {
		for _, m := range valuesRef.FindAllStringSubmatch(string(t.Data), -1) {
			s.paths[strings.Join(strings.Split(m[1][1:], "."), "\x00")] = true
		}
	}
	return s
}

// reads reports whether a template names p, or one of its parents as a
// whole.
func (s *pathSet) reads(p []string) bool {
	for i := 1; i <= len(p); i++ {
		if s.paths[strings.Join(p[:i], "\x00")] {
			return true
		}
	}
	return false
}

// extends reports whether a template names a path below p.
func (s *pathSet) extends(p []string) bool {
	prefix := strings.Join(p, "\x00") + "\x00"
	for q := range s.paths {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

// children are the keys templates read right below at.
func (s *pathSet) children(at []string) []string {
	prefix := strings.Join(at, "\x00")
	if len(at) > 0 {
		prefix += "\x00"
	}
	seen := map[string]bool{}
	var out []string
	for p := range s.paths {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		k, _, _ := strings.Cut(rest, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
