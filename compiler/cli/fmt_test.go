package cli_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
)

// TestFmtKeepsMeaning: platc fmt formats every golden spec and the
// sample into the same value, field for field, as before.
func TestFmtKeepsMeaning(t *testing.T) {
	dirs, _ := filepath.Glob("../../golden/*/sources")
	dirs = append(dirs, "../../sources")
	formatted := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.cue"))
		if len(files) == 0 {
			continue
		}
		before, after := map[string][]byte{}, map[string][]byte{}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			before[f] = src
			out, err := format.Source(src)
			if err != nil {
				after = nil // a syntax error: fmt writes nothing
				break
			}
			if string(out) != string(src) {
				formatted++
			}
			after[f] = out
		}
		if after == nil {
			continue
		}
		if got, want := value(t, after), value(t, before); got != want {
			t.Errorf("%s: formatted, the spec means something else:\n%s\nbefore:\n%s", dir, got, want)
		}
	}
	t.Logf("%d specs, %d files changed by formatting", len(dirs), formatted)
	if len(dirs) < 10 {
		t.Fatalf("only %d specs found", len(dirs))
	}
}

// value is what CUE makes of files, one package: its fields, as text.
func value(t *testing.T, files map[string][]byte) string {
	t.Helper()
	inst := build.NewContext().NewInstance("", nil)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(name, files[name])
		if err != nil {
			t.Fatal(err)
		}
		if err := inst.AddSyntax(f); err != nil {
			t.Fatal(err)
		}
	}
	v := cuecontext.New().BuildInstance(inst)
	n := v.Syntax(cue.Docs(false), cue.Attributes(false), cue.Optional(true), cue.Definitions(true))
	out, err := format.Node(n.(ast.Node))
	if err != nil {
		return "format: " + err.Error()
	}
	ok := "valid"
	if err := v.Validate(); err != nil {
		ok = "invalid"
	}
	return ok + "\n" + string(out)
}
