package kro

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	celast "github.com/google/cel-go/common/ast"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// TestParsesAreTheCallers: what one Parses keeps, another does not see, and
// each Parse gives an AST of its own, so that compilations in one process
// (tests run in parallel) share nothing they did not share on purpose.
func TestParsesAreTheCallers(t *testing.T) {
	a, b := NewParses(), NewParses()
	if _, iss, err := a.Parse("schema.spec.x + 1"); err != nil || iss.Err() != nil {
		t.Fatalf("parse: %v %v", err, iss.Err())
	}
	if data, fresh := b.Write(); fresh || parsesIn(t, data) != 0 {
		t.Errorf("another Parses wrote %q (new: %v), want nothing", data, fresh)
	}
	if data, fresh := a.Write(); !fresh || parsesIn(t, data) != 1 {
		t.Errorf("the Parses that parsed wrote %q (new: %v), want its parse, new", data, fresh)
	}
	if _, fresh := a.Write(); fresh {
		t.Error("a second Write says the same parses are new")
	}
	x, _, _ := a.Parse("schema.spec.x + 1")
	y, _, _ := a.Parse("schema.spec.x + 1")
	if x == y || x.NativeRep() == y.NativeRep() {
		t.Error("two parses of one expression share their AST: checking one would rewrite the other")
	}
}

// TestParsesReadWrite: the parses Write gives, Read takes back in a later
// run, which then parses nothing new; data that does not decode only costs
// parses.
func TestParsesReadWrite(t *testing.T) {
	first := NewParses()
	srcs := []string{"schema.spec.a", "b.status.c == \"\"", "[1, 2].map(x, x * 2)"}
	for _, s := range srcs {
		first.Parse(s)
	}
	first.Parse("schema.spec.") // does not parse: not kept for later runs
	data, _ := first.Write()
	later := NewParses()
	later.Read(data)
	for _, s := range srcs {
		ast, iss, err := later.Parse(s)
		if err != nil || iss.Err() != nil || ast == nil {
			t.Fatalf("%s after Read: %v %v", s, err, iss.Err())
		}
	}
	if _, fresh := later.Write(); fresh {
		t.Error("a run that parsed only what Read gave says it has new parses")
	}
	_, iss, _ := later.Parse("schema.spec.")
	if iss.Err() == nil {
		t.Error("an expression that does not parse parsed")
	}
	notAParse := object.NewEncoder([]byte(cache.CELParses.Layout()))
	notAParse.Count(1, false)
	notAParse.Str("schema.spec.a")
	notAParse.Str("not a parse")
	broken := NewParses()
	broken.Read([]byte("not an entry"))
	broken.Read([]byte(`{"schema.spec.a": "bm90IGEgcGFyc2U="}`)) // the JSON of platc cel parses 1
	broken.Read(notAParse.B)
	if ast, iss, _ := broken.Parse("schema.spec.a"); ast == nil || iss.Err() != nil || ast.NativeRep().Expr().Kind() != celast.SelectKind {
		t.Errorf("a parse read from data that does not decode was used: %v", iss.Err())
	}
	// A cut or changed entry is not read, not even in part.
	for i := range data {
		cut := NewParses()
		cut.Read(data[:i])
		if got, _ := cut.Write(); parsesIn(t, got) != 0 {
			t.Fatalf("%d of %d bytes read as %d parses", i, len(data), parsesIn(t, got))
		}
	}
	changed := NewParses()
	changed.Read(append(slices.Clone(data), 0))
	if got, _ := changed.Write(); parsesIn(t, got) != 0 {
		t.Errorf("an entry with a byte more read as %d parses", parsesIn(t, got))
	}
	var none *Parses
	if ast, iss, err := none.Parse("schema.spec.a"); ast == nil || err != nil || iss.Err() != nil {
		t.Error("a nil Parses does not parse")
	}
	if data, fresh := none.Write(); fresh || parsesIn(t, data) != 0 {
		t.Errorf("a nil Parses wrote %q (new: %v)", data, fresh)
	}
}

// TestParsesConcurrent parses from many goroutines at once into one
// Parses, as the previews of one compilation do; run under -race.
func TestParsesConcurrent(t *testing.T) {
	ps := NewParses()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				src := fmt.Sprintf("schema.spec.f%d + %d", i%10, g%2)
				ast, iss, err := ps.Parse(src)
				if err != nil || iss.Err() != nil || ast == nil {
					t.Errorf("%s: %v %v", src, err, iss.Err())
					return
				}
			}
			ps.Write()
		}()
	}
	wg.Wait()
	data, _ := ps.Write()
	later := NewParses()
	later.Read(data)
	for i := range 10 {
		for g := range 2 {
			later.Parse(fmt.Sprintf("schema.spec.f%d + %d", i, g))
		}
	}
	if _, fresh := later.Write(); fresh {
		t.Error("some parses of the concurrent run were not written")
	}
}

// TestParsesReadAfterParse: an expression parsed before Read gives it (Read
// runs beside the compilation) is not new; one Read gives twice is not
// counted twice.
func TestParsesReadAfterParse(t *testing.T) {
	first := NewParses()
	first.Parse("schema.spec.a")
	first.Parse("schema.spec.b")
	data, _ := first.Write()
	later := NewParses()
	later.Parse("schema.spec.a")
	later.Read(data)
	later.Read(data)
	if _, fresh := later.Write(); fresh {
		t.Error("an expression parsed before Read gave it is said to be new")
	}
	later.Parse("schema.spec.c")
	if _, fresh := later.Write(); !fresh {
		t.Error("an expression parsed after Read and Write is not said to be new")
	}
}

// parsesIn is the number of parses data, what Write wrote, holds.
func parsesIn(t *testing.T, data []byte) int {
	t.Helper()
	d := object.NewEntryDecoder(cache.CELParses.Layout(), data)
	n, isNil := d.Count()
	if d.Err != nil || isNil {
		t.Fatalf("%q is not an entry of parses", data)
	}
	return n
}
