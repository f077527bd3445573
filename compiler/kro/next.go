package kro

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/upstream"
)

// Next is the kro minor release whose new rules Ahead checks before platc
// targets it: v0.10.0-rc.0 is tagged but not on the module proxy, so its
// code cannot be linked. From its upgrade notes
// (website/docs/docs/upgrading/01-v0.10.0.md), platc checks offline:
//
//   - an unterminated ${ in a template string, a status field or an
//     externalRef's name is refused (kro v0.9 keeps it as text);
//   - the resource id graphengine is reserved (pkg/graph/validation.go,
//     kroReservedKeyWords, which forEach iterator names are held to too);
//   - instance status is written with server-side apply, so kro's RBAC
//     needs patch on <plural>/status of every generated kind (verify
//     checks the ClusterRoles of the kro chart the platform installs).
//
// Once upstream.Kro reaches Next, kro's builder enforces the first two and
// Ahead's rules are to be deleted (TestAheadRetires says so).
const Next = "v0.10"

// Enforces reports whether a kro release (a version or minor release an
// environment declares; "" for the one platc targets) enforces Next's
// rules. A version that does not read is taken as the target.
func Enforces(version string) bool {
	v := "v" + strings.TrimPrefix(cmp.Or(version, upstream.Kro), "v")
	if !semver.IsValid(v) {
		v = upstream.Kro
	}
	return semver.Compare(semver.MajorMinor(v), Next) >= 0
}

// reservedNext are the resource ids Next reserves beyond the target's:
// kroReservedKeyWords of pkg/graph/validation.go at v0.10.0-rc.0, less
// those of the target.
var reservedNext = []string{"graphengine"}

// Ahead returns what kro Next will refuse in rgd but the target accepts,
// as warnings (diag.KroUnterminated, diag.KroReservedID); the caller makes
// them errors for a kro that Enforces them. It reads only strings and ids,
// and returns nothing once upstream.Kro is Next.
func Ahead(rgd *RGD) []Problem {
	if Enforces("") {
		return nil
	}
	var out []Problem
	for _, r := range rgd.Resources {
		if slices.Contains(reservedNext, r.ID) {
			out = append(out, Problem{Resource: r.ID, Path: "id", ID: diag.KroReservedID,
				Msg: fmt.Sprintf("kro %s reserves the resource id %q and refuses an RGD that uses it (\"naming convention violation: id %s is a reserved keyword in KRO\"), which kro %s accepts: rename the resource", Next, r.ID, r.ID, upstream.Minor(upstream.Kro))})
		}
		for i, d := range r.ForEach {
			if slices.Contains(reservedNext, d.Name) {
				out = append(out, Problem{Resource: r.ID, Path: "forEach[" + strconv.Itoa(i) + "]", ID: diag.KroReservedID,
					Msg: fmt.Sprintf("kro %s reserves %q and refuses it as a forEach iterator (\"resource %q: forEach iterator name %q is a reserved keyword\"), which kro %s accepts: rename the iterator", Next, d.Name, r.ID, d.Name, upstream.Minor(upstream.Kro))})
			}
		}
		if e := r.ExternalRef; e != nil {
			out = appendUnterminated(out, r.ID, "externalRef.metadata.name", e.Name)
			out = appendUnterminated(out, r.ID, "externalRef.metadata.namespace", e.Namespace)
		}
		walkStrings(r.Template, "template", func(path, s string) { out = appendUnterminated(out, r.ID, path, s) })
	}
	walkStrings(rgd.Status, "status", func(path, s string) { out = appendUnterminated(out, "", path, s) })
	return out
}

// appendUnterminated adds the problem of s, the string at path of
// resource id, when it holds a ${ that kro Next refuses as unterminated.
func appendUnterminated(out []Problem, id, path, s string) []Problem {
	at, ok := Unterminated(s)
	if !ok {
		return out
	}
	return append(out, Problem{Resource: id, Path: path, ID: diag.KroUnterminated, Str: s, Offset: at,
		Msg: fmt.Sprintf("this ${ is never closed: kro %s keeps it as text, and kro %s refuses the RGD, which stays Inactive (its upgrade notes: \"a ${ that is never closed with } was previously passed through as literal text; it is now an error\"): close the expression with }, or write a literal ${ as ${\"${\"}", upstream.Minor(upstream.Kro), Next)})
}

// walkStrings calls f with every string of v (plain data) and its path,
// as kro writes paths (JoinPath; list elements [i]), in a fixed order.
func walkStrings(v any, path string, f func(path, s string)) {
	switch v := v.(type) {
	case string:
		f(path, v)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkStrings(v[k], JoinPath(path, k), f)
		}
	case []any:
		for i, e := range v {
			walkStrings(e, path+"["+strconv.Itoa(i)+"]", f)
		}
	case []string:
		for i, e := range v {
			f(path+"["+strconv.Itoa(i)+"]", e)
		}
	}
}

// Unterminated returns the offset of the first ${ of s that kro Next
// refuses as never closed: one that kro's parser at the target
// (pkg/graph/parser/cel.go, extractExpressions) passes through as text,
// because no } closes it, and that no } closes by Next's reading either,
// which also takes '...' for a CEL string literal. A string the target's
// parser refuses (a nested ${) is kro's to report, and has none.
func Unterminated(s string) (int, bool) {
	if !strings.Contains(s, "${") {
		return 0, false
	}
	spans, err := targetExpressions(s)
	if err != nil {
		return 0, false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			return 0, false
		}
		at := i + j
		inside := slices.ContainsFunc(spans, func(sp [2]int) bool { return at >= sp[0] && at < sp[1] })
		if !inside && closes(s, at, `"`) == -1 && closes(s, at, `"'`) == -1 {
			return at, true
		}
		i = at + 2
	}
}

// targetExpressions are the spans [start, end) of the expressions kro's
// parser at the target extracts from s (extractExpressions of
// pkg/graph/parser/cel.go, ported; TestTargetExpressions holds it to
// parser.ExtractExpressions): an unclosed ${ is skipped, and the search
// goes on from the byte after it.
func targetExpressions(s string) ([][2]int, error) {
	var spans [][2]int
	for start := 0; start < len(s); {
		i := strings.Index(s[start:], "${")
		if i < 0 {
			break
		}
		i += start
		end := closes(s, i, `"`)
		if end == nested {
			return nil, errNested
		}
		if end < 0 {
			start++
			continue
		}
		spans = append(spans, [2]int{i, end + 1})
		start = end + 1
	}
	return spans, nil
}

// nested is what closes returns for a ${ inside an expression that no
// quote escapes.
const nested = -2

var errNested = fmt.Errorf("nested expressions are not allowed unless inside string literals")

// closes returns the offset of the } that closes the ${ at i of s, -1
// when none does, or nested. quotes are the characters that open and
// close a string literal, inside which braces do not count and a
// backslash escapes the next byte: `"` as the target reads it, `"'` as
// Next does. A ${ outside a literal must follow a quote.
func closes(s string, i int, quotes string) int {
	depth := 1
	var quote byte // the open literal's quote, or 0
	escaped := false
	for j := i + 2; j < len(s); j++ {
		c := s[j]
		switch {
		case escaped:
			escaped = false
		case quote != 0 && c == '\\':
			escaped = true
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case strings.IndexByte(quotes, c) >= 0:
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return j
			}
		case c == '$' && j+1 < len(s) && s[j+1] == '{' && s[j-1] != '"':
			return nested
		}
	}
	return -1
}
