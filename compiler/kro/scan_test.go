package kro

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lit(s string) Segment  { return Segment{Text: s} }
func expr(s string) Segment { return Segment{Text: s, Expr: true} }

func TestScan(t *testing.T) {
	tests := []struct {
		in      string
		want    []Segment
		wantErr bool
	}{
		{"", []Segment{lit("")}, false},
		{"plain", []Segment{lit("plain")}, false},
		{"${a}", []Segment{expr("a")}, false},
		{"x-${a}-y", []Segment{lit("x-"), expr("a"), lit("-y")}, false},
		{"${a}${b}", []Segment{expr("a"), expr("b")}, false},
		{"${a}-${b.c}", []Segment{expr("a"), lit("-"), expr("b.c")}, false},
		{"$values/${schema.spec.values.prefix}/loki.yaml", []Segment{lit("$values/"), expr("schema.spec.values.prefix"), lit("/loki.yaml")}, false},
		{"$ {a} $a {b}", []Segment{lit("$ {a} $a {b}")}, false},
		// Braces inside expressions: map literals, and braces in string literals.
		{`${{"a": 1}}`, []Segment{expr(`{"a": 1}`)}, false},
		{`${{"a": {"b": 1}}.a}`, []Segment{expr(`{"a": {"b": 1}}.a`)}, false},
		{`${"}" + a}`, []Segment{expr(`"}" + a`)}, false},
		{`${"{" + a}`, []Segment{expr(`"{" + a`)}, false},
		// Escapes inside string literals.
		{`${"a\"}" + b}`, []Segment{expr(`"a\"}" + b`)}, false},
		{`${"a\\"}`, []Segment{expr(`"a\\"`)}, false},
		// Only double quotes delimit literals: a brace in single quotes counts.
		{`${'}'}`, []Segment{expr(`'`), lit(`'}`)}, false},
		// An escaped "${": an expression whose value is the text "${VAR}".
		{`${"${VAR}"}`, []Segment{expr(`"${VAR}"`)}, false},
		{`${outer("${inner}")}`, []Segment{expr(`outer("${inner}")`)}, false},
		// Unterminated "${" is literal text in kro v0.9.
		{"${a", []Segment{lit("${a")}, false},
		{"x ${a.b", []Segment{lit("x ${a.b")}, false},
		{`${"a}`, []Segment{lit(`${"a}`)}, false},
		{`${"abc ${x}`, []Segment{lit(`${"abc `), expr("x")}, false},
		{"${}", []Segment{expr("")}, false},
		// Nested "${" outside a string literal.
		{"${a + ${b}}", nil, true},
		{"${a ${b", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Scan(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Scan(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestIsStandalone(t *testing.T) {
	for in, want := range map[string]bool{
		"${a}": true, "${a} ": false, " ${a}": false, "${a}${b}": false, "a": false, "${a": false, "${a}\n": false,
	} {
		segs, err := Scan(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsStandalone(segs); got != want {
			t.Errorf("IsStandalone(Scan(%q)) = %v, want %v", in, got, want)
		}
	}
}

// FuzzScan checks that Scan never panics, that a string without "${" is one
// literal segment equal to it, and that the segments put back together give
// the input.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "plain", "${a}", "x-${a}-${b}", `${{"a": 1}}`, `${"${VAR}"}`, "${a", "${a + ${b}}", `${"a\"}"}`, "$${}}", "${'}'}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := Scan(s)
		if !strings.Contains(s, "${") {
			if err != nil || len(segs) != 1 || segs[0].Expr || segs[0].Text != s {
				t.Fatalf("Scan(%q) = %#v, %v; want one literal segment", s, segs, err)
			}
			return
		}
		if err != nil {
			return
		}
		var b strings.Builder
		for i, seg := range segs {
			if seg.Expr {
				b.WriteString("${" + seg.Text + "}")
			} else {
				if i > 0 && !segs[i-1].Expr {
					t.Fatalf("Scan(%q): adjacent literal segments", s)
				}
				b.WriteString(seg.Text)
			}
		}
		if b.String() != s {
			t.Fatalf("Scan(%q) does not put back together: %q", s, b.String())
		}
	})
}
