package kro

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
)

// TestParseGivesFreshASTs checks that Parse returns what the environment's
// own parse does, each time an AST of its own: checking rewrites the AST
// it is given, and a shared one would carry one check into the next.
func TestParseGivesFreshASTs(t *testing.T) {
	env, err := cel.NewEnv(append(Libraries(), cel.Variable("schema", cel.MapType(cel.StringType, cel.DynType)))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`schema.spec.name + "-" + string(schema.spec.size)`,
		`schema.spec.?loki.orValue({}).enabled`,
		`cel.bind(x, schema.spec.items, x.all(i, v, i < 3 && v != ""))`,
		`strings.quote(schema.metadata.name)`,
	} {
		want, iss := env.Parse(src)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", src, iss.Err())
		}
		wantExpr, err := cel.AstToParsedExpr(want)
		if err != nil {
			t.Fatal(err)
		}
		first, iss := Parse(src)
		if iss.Err() != nil {
			t.Fatalf("Parse(%s): %v", src, iss.Err())
		}
		if _, iss := env.Check(first); iss.Err() != nil {
			t.Fatalf("checking %s: %v", src, iss.Err())
		}
		second, _ := Parse(src)
		if first == second || first.NativeRep() == second.NativeRep() {
			t.Errorf("Parse(%s) returned the same AST twice", src)
		}
		got, err := cel.AstToParsedExpr(second)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantExpr, got, protocmp.Transform()); diff != "" {
			t.Errorf("Parse(%s) after a check differs from a parse (-want +got):\n%s", src, diff)
		}
	}
}

func TestParseReportsErrors(t *testing.T) {
	for range 2 { // the second time from the cache
		ast, iss := Parse(`schema.spec.(`)
		if ast != nil || iss.Err() == nil {
			t.Fatalf("Parse of a syntax error = %v, %v; want no AST and the error", ast, iss)
		}
		if got := iss.Errors()[0].Location.Column(); got != 12 {
			t.Errorf("the error is at column %d, want 12", got)
		}
	}
}

// TestParsesRoundTrip checks that the parses WriteParses writes come back
// through ReadParses as Parse would make them.
func TestParsesRoundTrip(t *testing.T) {
	const src = `schema.spec.roundTrip.map(x, x + 1)`
	want, iss := Parse(src)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	data, changed := WriteParses()
	if !changed {
		t.Errorf("WriteParses says nothing is new after a parse")
	}
	if _, changed := WriteParses(); changed {
		t.Errorf("WriteParses says something is new twice")
	}
	parses.Delete(src)
	ReadParses([]byte("not json"))
	if _, ok := parses.Load(src); ok {
		t.Fatalf("ReadParses of garbage added %s", src)
	}
	ReadParses(data)
	if _, ok := parses.Load(src); !ok {
		t.Fatalf("ReadParses did not add %s", src)
	}
	got, iss := Parse(src)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	wantExpr, _ := cel.AstToParsedExpr(want)
	gotExpr, _ := cel.AstToParsedExpr(got)
	if diff := cmp.Diff(wantExpr, gotExpr, protocmp.Transform()); diff != "" {
		t.Errorf("a parse read back differs (-parsed +read):\n%s", diff)
	}
}
