package conformance

import (
	"maps"
	"slices"
	"strings"
)

// inClass reports whether v is a disagreement of class.
func inClass(v Verdict, class string) bool {
	if v.Agree() {
		return false
	}
	if rest, ok := strings.CutPrefix(class, "platc accepts, kro refuses: "); ok {
		return v.Kro != nil && Normalize(v.Kro.Error()) == rest
	}
	rest, _ := strings.CutPrefix(class, "platc refuses, kro accepts: ")
	return v.Kro == nil && slices.ContainsFunc(v.Platc, func(p string) bool { return Normalize(p) == rest })
}

// shrinkBudget bounds the judgements one shrink makes.
const shrinkBudget = 400

// Shrink makes obj smaller while its verdict stays a disagreement of
// class: it drops map entries and list elements, and SimpleSchema
// markers, one at a time, keeping each drop that stays in the class, until
// none does (or the budget is spent).
func Shrink(obj map[string]any, class string, sides Sides) (map[string]any, Verdict) {
	cur, v := obj, sides.Judge(obj)
	budget := shrinkBudget
	for changed := true; changed; {
		changed = false
		cands := candidates(cur)
		for i := 0; i < len(cands); i++ {
			if budget == 0 {
				return cur, v
			}
			budget--
			if cv := sides.Judge(cands[i]); inClass(cv, class) {
				// Go on from the same place in the smaller object's
				// candidates: those before it were tried.
				cur, v, changed = cands[i], cv, true
				cands = candidates(cur)
				i--
			}
		}
	}
	return cur, v
}

// candidates are the objects one step smaller than obj.
func candidates(obj map[string]any) []map[string]any {
	var out []map[string]any
	var walk func(path []any, v any)
	walk = func(path []any, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				p := append(slices.Clone(path), k)
				out = append(out, edit(obj, p, nil, true))
				walk(p, v[k])
			}
		case []any:
			for i := range v {
				p := append(slices.Clone(path), i)
				out = append(out, edit(obj, p, nil, true))
				walk(p, v[i])
			}
		case string:
			for _, s := range fewerMarkers(v) {
				out = append(out, edit(obj, path, s, false))
			}
		}
	}
	walk(nil, obj)
	return out
}

// fewerMarkers returns the SimpleSchema field s without one of its
// markers, for each marker, and without all of them.
func fewerMarkers(s string) []string {
	typ, markers, ok := strings.Cut(s, "|")
	if !ok || strings.Contains(s, "${") {
		return nil
	}
	tokens := splitMarkers(markers)
	if len(tokens) == 0 {
		return nil
	}
	out := []string{strings.TrimSpace(typ)}
	if len(tokens) == 1 {
		return out
	}
	for i := range tokens {
		rest := slices.Delete(slices.Clone(tokens), i, i+1)
		out = append(out, strings.TrimSpace(typ)+" | "+strings.Join(rest, " "))
	}
	return out
}

// splitMarkers splits markers at the spaces outside quotes and brackets.
func splitMarkers(s string) []string {
	var out []string
	var cur strings.Builder
	inQuotes, escaped, depth := false, false, 0
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case inQuotes && r == '\\':
			escaped = true
		case r == '"':
			inQuotes = !inQuotes
		case !inQuotes && (r == '[' || r == '{'):
			depth++
		case !inQuotes && (r == ']' || r == '}'):
			depth--
		case !inQuotes && depth <= 0 && (r == ' ' || r == '\t'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// edit returns a copy of root with the value at path replaced by v, or
// deleted.
func edit(root map[string]any, path []any, v any, del bool) map[string]any {
	var rec func(cur any, path []any) any
	rec = func(cur any, path []any) any {
		switch k := path[0].(type) {
		case string:
			m := maps.Clone(cur.(map[string]any))
			if len(path) == 1 {
				if del {
					delete(m, k)
				} else {
					m[k] = v
				}
				return m
			}
			m[k] = rec(m[k], path[1:])
			return m
		case int:
			l := slices.Clone(cur.([]any))
			if len(path) == 1 {
				if del {
					return slices.Delete(l, k, k+1)
				}
				l[k] = v
				return l
			}
			l[k] = rec(l[k], path[1:])
			return l
		}
		panic("bad path")
	}
	return rec(root, path).(map[string]any)
}
