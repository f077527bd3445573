package charts

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
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
func unknownKeys(c *Chart, user map[string]any) []UnknownKey {
	var out []UnknownKey
	walkUnknown(c, c.helm, user, c.helm.Values, nil, c.readsOf(c.helm), &out)
	return out
}

// readsOf is readPaths of ch, a chart or a subchart of c, read once for
// every render of c: its templates do not change.
func (c *Chart) readsOf(ch *chart.Chart) *pathSet {
	if s, ok := c.reads.Load(ch); ok {
		return s.(*pathSet)
	}
	s, _ := c.reads.LoadOrStore(ch, readPaths(ch))
	return s.(*pathSet)
}

func walkUnknown(c *Chart, ch *chart.Chart, user, defaults map[string]any, at []string, reads *pathSet, out *[]UnknownKey) {
	for _, k := range slices.Sorted(maps.Keys(user)) {
		p := append(append([]string(nil), at...), k)
		if len(at) == 0 && (k == "global" || k == "tags" && hasTags(ch)) {
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
						known = object.Merge(sub.Values, pm)
					}
					// What the parent reads below the subchart's name
					// (its condition, minio.enabled) is read too.
					subReads := c.readsOf(sub).withBelow(reads, k)
					var subOut []UnknownKey
					walkUnknown(c, sub, m, known, nil, subReads, &subOut)
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
				// A map read as a whole is often handed to a helper
				// (loki's singleBinary, to its pod template), which
				// reads its keys by name: a key no template names
				// anywhere, next to a default key it misspells, is
				// a typo (replcas).
				if len(defaults) > 0 && !reads.fields[k] {
					if s := diag.Suggest(k, slices.Sorted(maps.Keys(defaults))); s != "" {
						*out = append(*out, UnknownKey{Path: p, Suggest: s})
					}
				}
				continue
			}
			if reads.extends(p) {
				// Templates read below it: its keys are judged by
				// what they read.
				if um, ok := user[k].(map[string]any); ok {
					walkUnknown(c, ch, um, nil, p, reads, out)
				}
				continue
			}
			*out = append(*out, UnknownKey{Path: p, Suggest: suggest(k, defaults, reads.children(at), ch, len(at) == 0)})
			continue
		}
		um, userMap := user[k].(map[string]any)
		dm, defMap := def.(map[string]any)
		if userMap && defMap && len(dm) > 0 {
			walkUnknown(c, ch, um, dm, p, reads, out)
		}
	}
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

// hasTags reports whether a dependency of ch is enabled by tags, which
// Helm reads from the top-level tags of the values.
func hasTags(ch *chart.Chart) bool {
	return slices.ContainsFunc(ch.Metadata.Dependencies, func(d *chart.Dependency) bool { return len(d.Tags) > 0 })
}

// valuesRef is a chain of fields after .Values in a template: .Values.a.b,
// $.Values.a, (.Values).a is not seen.
var valuesRef = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

// valuesIndex is an index of .Values by keys, which a key with a dot
// needs: index .Values "grafana.ini" "server".
var valuesIndex = regexp.MustCompile(`index\s+\$?\.Values((?:\s+"[^"\\]+")+)`)

var indexKey = regexp.MustCompile(`"([^"\\]+)"`)

// pathSet is the .Values paths a chart's templates name.
type pathSet struct {
	paths map[string]bool // joined with "\x00"
	// fields are the names templates read as a field of anything
	// ($component.replicas, .Values.image.tag).
	fields map[string]bool
}

// fieldRef is a field read in a template: .name after anything.
var fieldRef = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)`)

// readPaths are the paths the chart's templates read, those its string
// values read (templates rendered with tpl: tempo's config), and its
// dependencies' conditions.
func readPaths(ch *chart.Chart) *pathSet {
	s := &pathSet{paths: map[string]bool{}, fields: map[string]bool{}}
	for _, t := range ch.Templates {
		s.scan(string(t.Data))
		for _, m := range fieldRef.FindAllStringSubmatch(string(t.Data), -1) {
			s.fields[m[1]] = true
		}
	}
	s.scanValues(ch.Values, 0)
	for _, d := range ch.Metadata.Dependencies {
		for _, c := range strings.Split(d.Condition, ",") {
			if c = strings.TrimSpace(c); c != "" {
				s.paths[strings.ReplaceAll(c, ".", "\x00")] = true
			}
		}
	}
	return s
}

// scan adds the paths a template's text names.
func (s *pathSet) scan(text string) {
	if !strings.Contains(text, ".Values") {
		return
	}
	for _, m := range valuesRef.FindAllStringSubmatch(text, -1) {
		s.paths[strings.Join(strings.Split(m[1][1:], "."), "\x00")] = true
	}
	for _, m := range valuesIndex.FindAllStringSubmatch(text, -1) {
		var keys []string
		for _, k := range indexKey.FindAllStringSubmatch(m[1], -1) {
			keys = append(keys, k[1])
		}
		s.paths[strings.Join(keys, "\x00")] = true
	}
}

// maxValuesDepth bounds the walk of a chart's values.
const maxValuesDepth = 64

func (s *pathSet) scanValues(v any, depth int) {
	if depth > maxValuesDepth {
		return
	}
	switch v := v.(type) {
	case string:
		s.scan(v)
	case map[string]any:
		for _, x := range v {
			s.scanValues(x, depth+1)
		}
	case []any:
		for _, x := range v {
			s.scanValues(x, depth+1)
		}
	}
}

// withBelow is s with the paths of parent below key k, without k: a
// new set where there are any, s itself (shared, not changed) otherwise.
func (s *pathSet) withBelow(parent *pathSet, k string) *pathSet {
	prefix := k + "\x00"
	var below []string
	for p := range parent.paths {
		if rest, ok := strings.CutPrefix(p, prefix); ok && !s.paths[rest] {
			below = append(below, rest)
		}
	}
	if len(below) == 0 {
		return s
	}
	out := &pathSet{paths: maps.Clone(s.paths), fields: s.fields}
	for _, p := range below {
		out.paths[p] = true
	}
	return out
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
	keys := map[string]bool{}
	for p := range s.paths {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			k, _, _ := strings.Cut(rest, "\x00")
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}
