package kro

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubernetes-sigs/kro/pkg/graph/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/upstream"
)

// strs are strings with and without ${...}, closed and not, in literals
// of both kinds of quotes, nested.
var strs = []string{
	"", "plain", "${a}", "x-${a}-y", "${a}${b}", "${a", "x ${a", "${a} ${b", "${a ${b}", "${{'k': 1}}",
	"${{", `${"}"}`, `${"${a}"}`, `${"${a"}`, `${'}'}`, `${'{'}`, `${"{"}`, `${'a' + "}"`, `${"\"}"}`,
	`${'\'}'}`, "$${a}", "${}", "${a}}", "{${a}}", "${a} and ${", `echo "${"${USER}"}"`, `${"a" ${b}`,
	"${x.map(e, {'k': e})}", "$ {a", "${'", `${"`, "${a\n", "${ '{' }", "${ \"{\" }",
}

// TestTargetExpressions holds the port of the target's extractExpressions
// to kro's own: the same expressions, the same refusals.
func TestTargetExpressions(t *testing.T) {
	for _, s := range strs {
		want, wantErr := parser.ExtractExpressions(s)
		spans, err := targetExpressions(s)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, kro's %v", s, err, wantErr)
			continue
		}
		var got []string
		for _, sp := range spans {
			got = append(got, s[sp[0]+2:sp[1]-1])
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: expressions %q, kro's %q", s, got, want)
		}
	}
}

func TestUnterminated(t *testing.T) {
	for s, want := range map[string]int{
		"${a":              0,
		"x ${a":            2,
		"${a} ${b":         5,
		"${a} and ${":      9,
		"${{":              0,
		`${"${a"}`:         -1, // a literal ${ inside a closed expression
		`${"}"}`:           -1,
		"${a}":             -1,
		"plain":            -1,
		"$${a}":            -1,
		"${a ${b}":         -1, // kro's parser refuses it today
		`${'{'}`:           -1, // kro v0.10 reads a complete expression
		"${ '{' }":         -1,
		"${'":              0,
		"${a\n":            0,
		`${"a" + 'b'`:      0,
		`echo "${USER"`:    6,
		`${"${"}${"}"}x${`: 14,
	} {
		at, ok := Unterminated(s)
		if !ok {
			at = -1
		}
		if at != want {
			t.Errorf("Unterminated(%q) = %d, want %d", s, at, want)
		}
	}
	// Every string: one with an unterminated ${ is one the target passes
	// through with that ${ as text.
	for _, s := range strs {
		at, ok := Unterminated(s)
		if !ok {
			continue
		}
		exprs, err := parser.ExtractExpressions(s)
		if err != nil {
			t.Errorf("%q: kro's parser refuses it (%v), and Unterminated reports it", s, err)
		}
		for _, e := range exprs {
			if i := strings.Index(s, "${"+e+"}"); i <= at && at < i+len(e)+3 {
				t.Errorf("%q: the ${ at %d is inside kro's expression %q", s, at, e)
			}
		}
	}
}

func TestAhead(t *testing.T) {
	r := validRGD()
	r.Resources[1].Template["data"] = map[string]any{"script": "echo ${HOME", "ok": `echo ${"${HOME}"}`}
	r.Resources = append(r.Resources, bucket("graphengine", "${schema.spec.region}"))
	r.Resources[0].ForEach = []Dimension{{Name: "graphengine", Expr: "${schema.spec.regions}"}}
	r.Status["broken"] = "${schema.spec.team"
	var got []string
	for _, p := range Ahead(r) {
		got = append(got, fmt.Sprintf("%s %s|%s|%q@%d", p.ID, p.Resource, p.Path, p.Str, p.Offset))
	}
	want := []string{
		`kro-reserved-id lokiBucket|forEach[0]|""@0`,
		`kro-unterminated loki|template.data.script|"echo ${HOME"@5`,
		`kro-reserved-id graphengine|id|""@0`,
		`kro-unterminated |status.broken|"${schema.spec.team"@0`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Ahead:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range Ahead(r) {
		if p.ID.Info().Severity != diag.Warning || p.ID.Info().ErrorFrom == "" {
			t.Errorf("%s: not a warning that a release makes an error", p.ID)
		}
	}
	if probs := Ahead(validRGD()); len(probs) > 0 {
		t.Errorf("problems in a valid RGD: %v", probs)
	}
}

// TestAheadRetires: once platc targets kro Next, kro's own builder
// enforces what Ahead checks, and Ahead (with reservedNext, Unterminated
// and its tests) is to go; the RBAC check of verify stays.
func TestAheadRetires(t *testing.T) {
	if Enforces("") {
		t.Errorf("upstream.Kro is %s, which enforces kro %s's rules itself: delete Ahead and what only it uses (compiler/kro/next.go), and the ids kro-unterminated and kro-reserved-id become kro's own errors (docs/upstream.md)", upstream.Kro, Next)
	}
	for v, want := range map[string]bool{"v0.10": true, "0.10.2": true, "v0.11.0": true, "v1.0": true, "v0.9": false, "v0.9.4": false, "": false, "x": false} {
		if got := Enforces(v); got != want {
			t.Errorf("Enforces(%q) = %t, want %t", v, got, want)
		}
	}
}
