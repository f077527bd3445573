package load

import (
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/testkit/synth"
)

// parsedReading is what Begin reads from files it parses with CUE: the
// reading readPlain must give whenever it gives one.
type parsedReading struct {
	data  *Value
	decls map[string]diag.Pos
	lits  map[string]Literal
	long  []longList
	plain bool // the files parse, have one package and no import, and are plain data
}

func readParsed(names []string, sources [][]byte) parsedReading {
	log := &diag.Log{}
	files, ok := parseFiles(names, sources, log)
	if !ok || !checkPackages(files, log) {
		return parsedReading{}
	}
	decls, lits := indexDecls(files)
	data, idx, plain := readSyntax(files)
	return parsedReading{data, decls, lits, idx.long, plain}
}

// samePlainReading fails t if readPlain reads the files otherwise than
// parsing them does, and says whether readPlain read them.
func samePlainReading(t *testing.T, names []string, sources [][]byte) bool {
	t.Helper()
	data, decls, lits, ok := readPlain(names, sources)
	if !ok {
		return false
	}
	want := parsedReading{}
	// CUE's parser panics on none of these, but a fuzzed input that made
	// it do so is not readPlain's to judge.
	func() {
		defer func() { _ = recover() }()
		want = readParsed(names, sources)
	}()
	if !want.plain {
		t.Fatalf("readPlain reads files that CUE does not parse as plain data:\n%s", excerpt(names, sources))
	}
	// The first difference of each, told in a line: a diff of two
	// large specs that differ everywhere takes minutes to make.
	if d := valueDiff("", want.data, data); d != "" {
		t.Errorf("readPlain's data differs from the parsed files': %s\n%s", d, excerpt(names, sources))
	}
	if d := mapDiff(want.decls, decls); d != "" {
		t.Errorf("readPlain's declarations differ from the parsed files': %s\n%s", d, excerpt(names, sources))
	}
	if d := mapDiff(want.lits, lits); d != "" {
		t.Errorf("readPlain's literals differ from the parsed files': %s\n%s", d, excerpt(names, sources))
	}
	// The schema check reads the syntax again for its long lists only
	// where readPlain's reading has one.
	if hasLongList(data) != (len(want.long) > 0) {
		t.Errorf("hasLongList says %t of readPlain's data; the parsed files have %d long lists\n%s", hasLongList(data), len(want.long), excerpt(names, sources))
	}
	return true
}

// excerpt is the start of each file, to show with a failure.
func excerpt(names []string, sources [][]byte) string {
	var b strings.Builder
	for i, name := range names {
		src := sources[i]
		if len(src) > 2000 {
			src = src[:2000]
		}
		fmt.Fprintf(&b, "-- %s --\n%s\n", name, src)
	}
	return b.String()
}

// valueDiff describes the first difference of two Values at path p, or
// says "".
func valueDiff(p string, want, got *Value) string {
	switch {
	case want == nil || got == nil:
		if want != got {
			return fmt.Sprintf("%s: want %v, got %v", p, want, got)
		}
		return ""
	case want.Kind != got.Kind || want.Pos != got.Pos || want.OK != got.OK || want.Str != got.Str || want.Int != got.Int ||
		math.Float64bits(want.Float) != math.Float64bits(got.Float) || want.Bool != got.Bool ||
		len(want.Fields) != len(got.Fields) || len(want.Elems) != len(got.Elems) || (want.Elems == nil) != (got.Elems == nil):
		w, g := *want, *got
		w.Fields, w.Elems, g.Fields, g.Elems = nil, nil, nil, nil
		return fmt.Sprintf("%s: want %+v (%d fields, %d elements), got %+v (%d fields, %d elements)", p, w, len(want.Fields), len(want.Elems), g, len(got.Fields), len(got.Elems))
	}
	for i, f := range want.Fields {
		if f.Name != got.Fields[i].Name {
			return fmt.Sprintf("%s: field %d is %q, want %q", p, i, got.Fields[i].Name, f.Name)
		}
		if d := valueDiff(p+"."+f.Name, f.Value, got.Fields[i].Value); d != "" {
			return d
		}
	}
	for i, e := range want.Elems {
		if d := valueDiff(fmt.Sprintf("%s[%d]", p, i), e, got.Elems[i]); d != "" {
			return d
		}
	}
	return ""
}

// mapDiff describes the first key, in order, whose values differ, or
// says "".
func mapDiff[V comparable](want, got map[string]V) string {
	keys := slices.Sorted(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		w, inWant := want[k]
		g, inGot := got[k]
		if w != g || inWant != inGot {
			return fmt.Sprintf("%s: want %+v (%t), got %+v (%t)", k, w, inWant, g, inGot)
		}
	}
	return ""
}

// specSources are the spec files of fsys's sources folder, as Begin reads
// them.
func specSources(t *testing.T, fsys fs.FS) ([]string, [][]byte) {
	t.Helper()
	names, err := fs.Glob(fsys, "sources/*.cue")
	if err != nil || len(names) == 0 {
		t.Fatalf("no spec files: %v", err)
	}
	slices.Sort(names)
	var sources [][]byte
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, data)
	}
	return names, sources
}

// TestReadPlainReadsAsParsed holds readPlain to what parsing the files
// gives, on the sample platform, every golden case and generated
// platforms; and it must read every one of them that is plain data in the
// form specs are written in: the sample, the generated platforms, and all
// golden cases but those that write what it leaves to CUE.
func TestReadPlainReadsAsParsed(t *testing.T) {
	repos := specRepos(t)
	for _, size := range []string{"10x100", "10x100-nostck", "50x200x20"} {
		s, ok := synth.Sizes[size]
		if !ok {
			t.Fatalf("no size %s in synth.Sizes", size)
		}
		repos["synth/"+size] = synth.Platform(s)
	}
	repos["synth/idiomatic"] = synth.Idiomatic(synth.Sizes["10x100"])
	// What the specs that readPlain leaves to CUE write, although they
	// are plain data.
	leftToCUE := map[string]string{
		"golden/error-stack-cel-fields": "a raw string",
		"golden/error-stack-clients":    "an empty label",
	}
	for name, fsys := range repos {
		t.Run(name, func(t *testing.T) {
			names, sources := specSources(t, fsys)
			read := samePlainReading(t, names, sources)
			parsed := readParsed(names, sources)
			switch why, left := leftToCUE[name]; {
			case read && left:
				t.Errorf("readPlain reads it, but the test says it leaves it to CUE (%s)", why)
			case !read && parsed.plain && !left:
				t.Errorf("plain data that readPlain leaves to CUE")
			}
			if !read && (name == "sample" || strings.HasPrefix(name, "synth/") && name != "synth/idiomatic") {
				t.Errorf("readPlain leaves it to CUE")
			}
			if name == "synth/idiomatic" && read {
				t.Errorf("readPlain reads a spec of comprehensions and references")
			}
		})
	}
}

// TestReadPlainLeavesToCUE lists what readPlain leaves to CUE's parser,
// each a spec CUE reads (or refuses) its own way.
func TestReadPlainLeavesToCUE(t *testing.T) {
	for _, src := range []string{
		"a: b",                              // a reference
		"a: 1 + 1",                          // an operator
		"a: 1 | 2",                          // a disjunction
		`a: *"x" | string`,                  // a default
		"a: >=1",                            // a bound
		"a: int",                            // a type
		`a: "\(b)"`,                         // an interpolation
		"a: 0x10",                           // a number CUE writes its own way
		"a: 1_000",                          //
		"a: 1Ki",                            //
		"a: .5",                             //
		"a: 01",                             //
		"a: - 1",                            // a sign apart from its number
		"a?: 1",                             // an optional field
		"a!: 1",                             // a required field
		"#A: 1",                             // a definition
		"_a: 1",                             // a hidden field
		"$a: 1",                             // a name CUE reads with a $
		"a: 1 @attr()",                      // an attribute
		"a=b: 1",                            // an alias
		"a: [...]",                          // an ellipsis
		"a: [for x in [1] {x}]",             // a comprehension
		"a: {if true {b: 1}}",               // a conditional field
		"a: 1\na: 1",                        // a scalar declared twice
		"a: {b: 1}\na: [1]",                 //
		"a: 1 b: 2",                         // fields not separated
		"a: 1,\n,b: 2",                      //
		"a: 'bytes'",                        // bytes
		`a: #"raw"#`,                        // a raw string
		"a: \"tab\there\"",                  // a control character in a string
		"a: \"\"\"\n\tx \"\"\" y\n\t\"\"\"", // quotes inside a multi-line string
		"import \"strings\"\na: 1",          // an import
		"a: 1; b: 2",                        // a semicolon
		"true: 1",                           // a keyword as a label
		`"": 1`,                             // an empty label
		"a: /b",                             // a slash that starts no comment
		"\uFEFFa: 1",                        // a byte order mark
		"a: \"\xff\"",                       // not UTF-8
	} {
		names, sources := []string{"sources/a.cue"}, [][]byte{[]byte(src)}
		if samePlainReading(t, names, sources) {
			t.Errorf("readPlain reads %q, which it should leave to CUE", src)
		}
	}
}

// TestReadPlainNestsToItsDepth: readPlain reads structs, lists and
// chains nested maxPlainDepth deep, and leaves deeper ones to CUE, which
// refuses those past its own limit at once (BenchmarkBadInput's
// nested-lists case: each level's path holds its parent's).
func TestReadPlainNestsToItsDepth(t *testing.T) {
	nested := map[string]func(n int) string{
		"structs": func(n int) string { return "a: " + strings.Repeat("{b: ", n-1) + "{}" + strings.Repeat("}", n-1) },
		"lists":   func(n int) string { return "a: " + strings.Repeat("[", n) + strings.Repeat("]", n) },
		"chains":  func(n int) string { return "a: " + strings.Repeat("b: ", n) + "1" },
		"mixed":   func(n int) string { return "a: " + strings.Repeat("[{b: ", n/2) + "1" + strings.Repeat("}]", n/2) },
	}
	for name, src := range nested {
		names := []string{"sources/a.cue"}
		if !samePlainReading(t, names, [][]byte{[]byte(src(maxPlainDepth))}) {
			t.Errorf("%s %d deep: readPlain leaves them to CUE; it reads them", name, maxPlainDepth)
		}
		if samePlainReading(t, names, [][]byte{[]byte(src(maxPlainDepth + 2))}) {
			t.Errorf("%s %d deep: readPlain reads them; it leaves them to CUE", name, maxPlainDepth+2)
		}
	}
}

// TestHasLongListAsReadSyntax: a spec read by readPlain has a long list
// (hasLongList) where readSyntax keeps one for the schema check, and
// nowhere else.
func TestHasLongListAsReadSyntax(t *testing.T) {
	list := func(n int, last string) string {
		return "[" + strings.Repeat(`"x", `, n-1) + last + "]"
	}
	for _, c := range []struct {
		src  string
		long bool
	}{
		{"a: " + list(longListLen, `"x"`), false},
		{"a: " + list(longListLen+1, `"x"`), true},
		{"a: " + list(longListLen+1, "{}"), false},
		{"a: b: [1, " + list(longListLen+1, "2") + "]", true},
		{"a: [{b: " + list(longListLen+1, "true") + "}]", true},
	} {
		names, sources := []string{"sources/a.cue"}, [][]byte{[]byte(c.src)}
		if !samePlainReading(t, names, sources) {
			t.Fatalf("readPlain leaves %.40q... to CUE", c.src)
		}
		data, _, _, _ := readPlain(names, sources)
		if got := hasLongList(data); got != c.long {
			t.Errorf("hasLongList(%.40q...) = %t, want %t", c.src, got, c.long)
		}
	}
}

// FuzzReadPlain holds readPlain to the reading of the parsed files on any
// input it reads.
func FuzzReadPlain(f *testing.F) {
	for _, src := range []string{
		"package p\n\na: 1\nb: \"x\"\nc: [1, 2, {d: true}]\n",
		"a: b: c: 1\na: b: d: 2\na: {e: null}\n",
		"x: -1.5e3\ny: +2\nz: 123456789012345678901234\n",
		"s: \"\"\"\n\tline one\n\t  two ${x}\n\t\"\"\"\n",
		"\"quoted label\": {\"a.b\": \"${c}\"}\n",
		"l: [\n\t\"a\",\n\t\"b\"\n]\n// comment\nm: {} // end\n",
		"a: {\n\tb: 1, c: 2,\n}\n",
		"a: [1, [2, [3]], {}]\n",
	} {
		f.Add(src, "b: 1\n")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		samePlainReading(t, []string{"sources/a.cue", "sources/b.cue"}, [][]byte{[]byte(a), []byte(b)})
	})
}

// TestDeclPathsAreBounded reads a spec with a label longer than
// maxDeclPath over fields, list elements and a ${...} literal: read whole,
// by readPlain as by CUE's parser, with no declaration or literal kept by
// a path longer than maxDeclPath, and those beside it kept.
func TestDeclPathsAreBounded(t *testing.T) {
	long := strings.Repeat("x", maxDeclPath)
	src := "package platform\nmodules: m: values: {\n\t\"" + long + "\": {a: 1, b: [1, 2], c: {d: \"${x}\"}}\n\tshort: {d: 1, e: \"${y}\"}\n}\n"
	names, sources := []string{"sources/a.cue"}, [][]byte{[]byte(src)}
	if !samePlainReading(t, names, sources) {
		t.Fatal("readPlain does not read the spec")
	}
	data, decls, lits, _ := readPlain(names, sources)
	for p := range decls {
		if len(p) > maxDeclPath {
			t.Errorf("a declaration is kept by a path of %d bytes", len(p))
		}
	}
	for p := range lits {
		if len(p) > maxDeclPath {
			t.Errorf("a literal is kept by a path of %d bytes", len(p))
		}
	}
	under := data.Lookup("modules").Lookup("m").Lookup("values").Lookup(long)
	if a := under.Lookup("a"); a == nil || a.Kind != Int || a.Int != 1 {
		t.Errorf("the field below the long label reads %+v, want 1", a)
	}
	if b := under.Lookup("b"); b == nil || len(b.Elems) != 2 {
		t.Errorf("the list below the long label reads %+v, want two elements", b)
	}
	if _, ok := decls["modules.m.values.short.d"]; !ok {
		t.Error("the field beside the long label has no declaration")
	}
	if _, ok := lits["modules.m.values.short.e"]; !ok {
		t.Error("the literal beside the long label is not kept")
	}
	if _, ok := decls["modules.m.values"]; !ok {
		t.Error("the struct above the long label has no declaration")
	}
}
