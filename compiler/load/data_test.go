package load

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/schemas"
	"github.com/platc/platc/testkit/synth"
)

// parseAll parses the spec files of dir in fsys, as Begin does.
func parseAll(t *testing.T, fsys fs.FS, dir string) []*ast.File {
	t.Helper()
	names, err := fs.Glob(fsys, dir+"/*.cue")
	if err != nil || len(names) == 0 {
		t.Fatalf("no spec files in %s: %v", dir, err)
	}
	slices.Sort(names)
	var files []*ast.File
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(name, data, parser.ParseComments)
		if err != nil {
			t.Logf("not valid CUE, not compared: %v", err)
			return nil
		}
		files = append(files, f)
	}
	return files
}

// fromSyntax is readSyntax without its index.
func fromSyntax(files []*ast.File) (*Value, bool) {
	root, _, ok := readSyntax(files)
	return root, ok
}

// evaluated is the spec of files as CUE evaluates it, read with fromCUE.
func evaluated(t *testing.T, files []*ast.File) *Value {
	t.Helper()
	v, err := build(cuecontext.New(), "sources", files)
	if err != nil {
		t.Fatalf("building: %v", err)
	}
	return fromCUE(v, true, declsOf(files))
}

// specRepos are the repositories whose specs the tests read: the sample
// platform and every golden case, by name.
func specRepos(t *testing.T) map[string]fs.FS {
	t.Helper()
	repos := map[string]fs.FS{"sample": os.DirFS("../..")}
	cases, err := filepath.Glob("../../golden/*/sources")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		repos["golden/"+filepath.Base(filepath.Dir(c))] = os.DirFS(filepath.Dir(c))
	}
	return repos
}

// TestSyntaxReadsAsCUEEvaluates checks what Begin relies on when it reads a
// plain-data spec from its syntax: the result is the Value that evaluating
// the spec gives, positions and field order included. It reads the sample
// platform, every golden case, and generated platforms.
func TestSyntaxReadsAsCUEEvaluates(t *testing.T) {
	repos := specRepos(t)
	for _, size := range []string{"sample", "10x100"} {
		repos["synth/"+size] = synth.Platform(synth.Sizes[size])
	}
	plain := 0
	for name, fsys := range repos {
		t.Run(name, func(t *testing.T) {
			files := parseAll(t, fsys, "sources")
			if files == nil {
				return
			}
			fromSyntax, ok := fromSyntax(files)
			if !ok {
				t.Log("not plain data: read by evaluating, not compared") // counted below
				return
			}
			plain++
			// The root's position is no field's: the model never reads it.
			if diff := cmp.Diff(evaluated(t, files).Fields, fromSyntax.Fields); diff != "" {
				t.Errorf("read from the syntax (+) differs from the evaluated spec (-):\n%s", diff)
			}
		})
	}
	if plain < len(repos)/2 {
		t.Fatalf("only %d of %d specs are plain data; the test compares too little", plain, len(repos))
	}
}

// TestSchemaAddsNothingToRead checks what Load relies on when it hands over
// the spec as written instead of the spec unified with the schema: the two
// read the same, but for positions (the unified spec places a field of the
// schema's at the schema). It reads the sample platform and every golden
// case that fits the schema.
func TestSchemaAddsNothingToRead(t *testing.T) {
	repos := specRepos(t)
	compared := 0
	for name, fsys := range repos {
		t.Run(name, func(t *testing.T) {
			files := parseAll(t, fsys, "sources")
			if files == nil {
				return
			}
			v, err := build(cuecontext.New(), "sources", files)
			if err != nil {
				t.Logf("does not build, not compared: %v", err)
				return
			}
			schema := v.Context().CompileBytes(schemas.PlatformCUE, cue.Filename(schemas.PlatformFile)).LookupPath(cue.MakePath(cue.Def("Spec")))
			unified := v.Unify(schema)
			if err := unified.Validate(cue.Concrete(true)); err != nil {
				t.Logf("does not fit the schema, not compared: %v", err)
				return
			}
			compared++
			decls := declsOf(files)
			if diff := cmp.Diff(fromCUE(unified, false, decls), fromCUE(v, true, decls), cmpopts.IgnoreTypes(diag.Pos{})); diff != "" {
				t.Errorf("the spec as written (+) reads differently from the unified spec (-):\n%s", diff)
			}
		})
	}
	if compared < 5 {
		t.Fatalf("only %d specs fit the schema; the test compares too little", compared)
	}
}

func TestFromSyntax(t *testing.T) {
	tests := []struct {
		name string
		cue  string
		want any // of field x, as model.Value would give it
	}{
		{"int", `x: 42`, int64(42)},
		{"negative int", `x: -7`, int64(-7)},
		{"plus int", `x: +7`, int64(7)},
		{"int with separators", `x: 1_000_000`, int64(1000000)},
		{"hex, octal and binary ints", `x: [0x1f, 0o17, 0b101]`, []any{int64(31), int64(15), int64(5)}},
		{"int with a multiplier", `x: [1Ki, 2M, 1.5Ki]`, []any{int64(1024), int64(2000000), int64(1536)}},
		{"int too large for int64 becomes float64", `x: 9223372036854775808`, float64(9223372036854775808)},
		{"float with zero fraction stays float64", `x: 2.0`, float64(2)},
		{"float", `x: 0.5`, 0.5},
		{"negative float", `x: -0.25`, -0.25},
		{"exponent is a float", `x: 1e3`, float64(1000)},
		{"string", `x: "nvidia"`, "nvidia"},
		{"escapes", `x: "a\tb\u00e9\n"`, "a\tb\u00e9\n"},
		{"raw string", `x: #"a\tb"#`, `a\tb`},
		{"multi-line string", "x: \"\"\"\n\tline one\n\t  two\n\t\"\"\"", "line one\n  two"},
		{"bytes", `x: 'raw'`, "raw"},
		{"true and false", `x: [true, false]`, []any{true, false}},
		{"null", `x: null`, nil},
		{"empty list and struct", `x: [[], {}]`, []any{[]any{}, map[string]any{}}},
		{"quoted labels", `x: {"a.b": 1, "c-d": {e: 2}}`, map[string]any{"a.b": int64(1), "c-d": map[string]any{"e": int64(2)}}},
		{"shorthand", `x: a: b: 1`, map[string]any{"a": map[string]any{"b": int64(1)}}},
		{"a struct declared twice is merged", "x: a: {b: 1}\nx: a: c: 2\nx: {d: 3}", map[string]any{"a": map[string]any{"b": int64(1), "c": int64(2)}, "d": int64(3)}},
		{"comments are skipped", "x: {\n\t// one\n\ta: 1 // two\n}", map[string]any{"a": int64(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile("sources/x.cue", "package p\n"+tt.cue, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := fromSyntax([]*ast.File{f})
			if !ok {
				t.Fatalf("fromSyntax refuses %s", tt.cue)
			}
			if diff := cmp.Diff(tt.want, plainData(got.Lookup("x"))); diff != "" {
				t.Errorf("fromSyntax(%s) (-want +got):\n%s", tt.cue, diff)
			}
			if diff := cmp.Diff(evaluated(t, []*ast.File{f}).Fields, got.Fields); diff != "" {
				t.Errorf("fromSyntax(%s) (+) differs from the evaluated spec (-):\n%s", tt.cue, diff)
			}
		})
	}
}

// TestFromSyntaxRefusesWhatNeedsCUE lists what only CUE's evaluation can
// read; fromSyntax must say so rather than read it wrong.
func TestFromSyntaxRefusesWhatNeedsCUE(t *testing.T) {
	for _, src := range []string{
		`x: y, y: 1`,
		`x: [for i in [1] {i}]`,
		`x: *1 | int`,
		`x: "a\(1)"`,
		`#x: 1`,
		`_x: 1`,
		`x?: 1`,
		`x!: 1`,
		`x: 1, x: 1`,
		`x: [1], x: [1]`,
		`x: {a: 1}, x: 2`,
		`let y = 1, x: y`,
		`{x: 1}`,
		`x: int`,
		`x: 1 + 1`,
		`x: -"a"`,
		`x: (1)`,
		`x: [...int]`,
		`(y): 1, y: "x"`,
		`[string]: 1`,
		`x: 1 @attr()`,
		`X=x: 1`,
		`x: {if true {a: 1}}`,
		`x: close({a: 1})`,
	} {
		t.Run(src, func(t *testing.T) {
			f, err := parser.ParseFile("x.cue", "package p\n"+src)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := fromSyntax([]*ast.File{f}); ok {
				t.Errorf("fromSyntax reads %s; only CUE's evaluation can", src)
			}
		})
	}
	// A struct large enough to be searched with a map: a field declared
	// twice is found there too.
	var large strings.Builder
	for i := range 40 {
		fmt.Fprintf(&large, "x: f%d: 1\n", i)
	}
	large.WriteString("x: f7: 1\n")
	if f, err := parser.ParseFile("x.cue", "package p\n"+large.String()); err != nil {
		t.Fatal(err)
	} else if _, ok := fromSyntax([]*ast.File{f}); ok {
		t.Errorf("fromSyntax reads a scalar declared twice in a large struct; only CUE's evaluation can")
	}
	f, err := parser.ParseFile("x.cue", "package p\nimport \"strings\"\nx: strings.ToUpper(\"a\")")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fromSyntax([]*ast.File{f}); ok {
		t.Errorf("fromSyntax reads an import; only CUE's evaluation can")
	}
}

// TestBeginReadsEitherWay checks that a spec Begin reads from its syntax and
// one it evaluates give the same Data when they say the same.
func TestBeginReadsEitherWay(t *testing.T) {
	const spec = `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {chart: "redis", namespace: "web", values: replicas: 2}
environments: dev: revision: "HEAD"
`
	computed := strings.Replace(spec, "replicas: 2", "replicas: 1 + 1", 1)
	var got []*Value
	for _, src := range []string{spec, computed} {
		log := &diag.Log{}
		s := Load(fstest.MapFS{"sources/platform.cue": {Data: []byte(src)}}, "sources", log)
		if s == nil || log.HasErrors() || !s.Checked() {
			t.Fatalf("the spec does not load:\n%s", log)
		}
		got = append(got, s.Data)
	}
	if diff := cmp.Diff(got[0], got[1], cmpopts.IgnoreTypes(diag.Pos{})); diff != "" {
		t.Errorf("read from the syntax (-) and evaluated (+) differ:\n%s", diff)
	}
}

// plainData is model.Value, which this package cannot import.
func plainData(v *Value) any {
	switch v.Kind {
	case Struct:
		m := map[string]any{}
		for _, f := range v.Fields {
			m[f.Name] = plainData(f.Value)
		}
		return m
	case List:
		l := []any{}
		for _, x := range v.Elems {
			l = append(l, plainData(x))
		}
		return l
	case String, Bytes:
		return v.Str
	case Int:
		return v.Int
	case Float:
		return v.Float
	case Bool:
		return v.Bool
	}
	return nil
}

// declsOf is the declarations Begin indexes.
func declsOf(files []*ast.File) map[string]diag.Pos {
	decls, _ := indexDecls(files)
	return decls
}

// TestFromSyntaxMergesLargeStructs declares a large struct (searched with a
// map) in two places, a struct inside it in two more, and compares the
// reading with CUE's.
func TestFromSyntaxMergesLargeStructs(t *testing.T) {
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 40 {
		fmt.Fprintf(&src, "x: f%02d: {a: %d}\n", i, i)
	}
	src.WriteString("x: {f03: b: 2, g: 1}\nx: f39: c: 3\n")
	f, err := parser.ParseFile("sources/x.cue", src.String(), parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := fromSyntax([]*ast.File{f})
	if !ok {
		t.Fatal("fromSyntax refuses a plain spec")
	}
	if n := len(got.Lookup("x").Fields); n != 41 {
		t.Errorf("x has %d fields, want 41", n)
	}
	if diff := cmp.Diff(evaluated(t, []*ast.File{f}).Fields, got.Fields); diff != "" {
		t.Errorf("fromSyntax (+) differs from the evaluated spec (-):\n%s", diff)
	}
}

// FuzzFromSyntax checks, on any file that parses, that what fromSyntax
// reads is what CUE evaluates (positions and order included), and that it
// refuses rather than reads anything CUE rejects.
func FuzzFromSyntax(f *testing.F) {
	for _, seed := range []string{
		`x: 1`,
		`x: {a: "s", b: [1, 2.5, true, null]}`,
		"x: a: b: 1\nx: a: c: 'b'\ny: -3",
		`"a.b": {"c d": 0x10, e: 1e3, f: 1Ki}`,
		"x: \"\"\"\n\tmulti\n\t\"\"\"",
		`x: #"raw\n"#`,
		`x: [{a: 1}, {b: [[]]}]`,
		`x: {}, y: []`,
		`x: 1, x: 2`,
		`x: {a: 1}, x: {a: 1}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := parser.ParseFile("sources/x.cue", "package p\n"+src, parser.ParseComments)
		if err != nil {
			return
		}
		got, ok := fromSyntax([]*ast.File{file})
		if !ok {
			return
		}
		v, err := build(cuecontext.New(), "sources", []*ast.File{file})
		if err != nil {
			t.Fatalf("fromSyntax reads %q, which does not build: %v", src, err)
		}
		if err := v.Validate(cue.Concrete(true)); err != nil {
			t.Fatalf("fromSyntax reads %q, which CUE rejects: %v", src, err)
		}
		if diff := cmp.Diff(fromCUE(v, true, declsOf([]*ast.File{file})).Fields, got.Fields); diff != "" {
			t.Fatalf("fromSyntax(%q) (+) differs from the evaluated spec (-):\n%s", src, diff)
		}
	})
}
