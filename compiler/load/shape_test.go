package load

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/testkit/synth"
)

// cueFits is the verdict of CUE's own check (checkSchema, which the shape
// only ever spares) on the spec files src, by name.
func cueFits(t *testing.T, src map[string][]byte) bool {
	t.Helper()
	files := parseSources(t, src)
	_, idx, plain := readSyntax(files)
	if !plain {
		t.Fatal("not plain data")
	}
	decls, _ := indexDecls(files)
	return checkSchema("sources", files, idx.long, decls, &diag.Log{}).ok
}

func parseSources(t *testing.T, src map[string][]byte) []*ast.File {
	t.Helper()
	var names []string
	for name := range src {
		names = append(names, name)
	}
	slices.Sort(names)
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(name, src[name], parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

func parses(src map[string][]byte) bool {
	for name, data := range src {
		if _, err := parser.ParseFile(name, data); err != nil {
			return false
		}
	}
	return true
}

// shapeFits is the shape's verdict on the spec files src.
func shapeFits(t *testing.T, src map[string][]byte) bool {
	t.Helper()
	data, _, plain := readSyntax(parseSources(t, src))
	return plain && specShape().fits(data)
}

// specFolders are the spec folders of the repository: the sample's and
// every golden case's.
func specFolders(t *testing.T) []string {
	t.Helper()
	dirs := []string{"../../sources"}
	cases, err := filepath.Glob("../../golden/*/sources")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	return append(dirs, cases...)
}

func readFolder(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.cue"))
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src[filepath.Base(name)] = data
	}
	return src
}

// TestShapeFitsOnlyWhatCUEFits holds the shape to CUE on every spec of the
// repository (the golden cases include specs the schema refuses): where the
// shape says a spec fits, CUE must say so too. The sample, the benchmark's
// platform and most golden cases must fit the shape, or the check it
// spares would run anyway.
func TestShapeFitsOnlyWhatCUEFits(t *testing.T) {
	shapeOK, cueOK := 0, 0
	for _, dir := range specFolders(t) {
		src := readFolder(t, dir)
		if len(src) == 0 {
			continue
		}
		if !parses(src) {
			continue // a syntax error: the schema check never runs
		}
		files := parseSources(t, src)
		if _, _, plain := readSyntax(files); !plain {
			continue
		}
		s, c := shapeFits(t, src), cueFits(t, src)
		if s && !c {
			t.Errorf("%s: the shape says the spec fits, CUE says it does not", dir)
		}
		if c {
			cueOK++
		}
		if s {
			shapeOK++
		}
		if dir == "../../sources" && !s {
			t.Errorf("the sample does not fit the shape: CUE's check runs for it")
		}
	}
	t.Logf("shape %d cue %d", shapeOK, cueOK)
	if shapeOK < cueOK*3/4 {
		t.Errorf("the shape fits %d of the %d specs CUE fits: want most", shapeOK, cueOK)
	}
	for _, name := range []string{"10x100", "50x200x20"} {
		src := map[string][]byte{}
		for p, f := range synth.Platform(synth.Sizes[name]) {
			if dir, file := filepath.Split(p); dir == "sources/" && strings.HasSuffix(file, ".cue") {
				src[file] = f.Data
			}
		}
		if !shapeFits(t, src) {
			t.Errorf("the %s platform does not fit the shape", name)
		}
	}
}

// TestShapeRefusesWhatCUERefuses changes the sample's spec at random (a
// value of another kind, a field removed or added, a negative number, a
// list for a scalar) and holds the shape to CUE on every change: it may
// refuse more than CUE, never less.
func TestShapeRefusesWhatCUERefuses(t *testing.T) {
	src := readFolder(t, "../../sources")
	files := parseSources(t, src)
	data, _, plain := readSyntax(files)
	if !plain {
		t.Fatal("the sample is not plain data")
	}
	rng := rand.New(rand.NewSource(25))
	refused, agreed := 0, 0
	for i := range 150 {
		changed, what := mutate(rng, data)
		text := "package platform\n\n" + cueText(changed) + "\n"
		m := map[string][]byte{"spec.cue": []byte(text)}
		s, c := shapeFits(t, m), cueFits(t, m)
		if s && !c {
			t.Errorf("change %d (%s): the shape says the spec fits, CUE says it does not", i, what)
		}
		if !c {
			refused++
		}
		if s == c {
			agreed++
		}
	}
	t.Logf("refused %d agreed %d", refused, agreed)
	if refused < 50 {
		t.Errorf("CUE refused %d of 150 changes: the changes test little", refused)
	}
	if agreed < 100 {
		t.Errorf("the shape agreed with CUE on %d of 150 changes: want most", agreed)
	}
}

// mutate returns a copy of v with one random change, and says what.
func mutate(rng *rand.Rand, v *Value) (*Value, string) {
	c := clone(v)
	var nodes []*Value
	var paths []string
	var walk func(v *Value, p string)
	walk = func(v *Value, p string) {
		nodes, paths = append(nodes, v), append(paths, p)
		for _, f := range v.Fields {
			walk(f.Value, p+"."+f.Name)
		}
		for i, e := range v.Elems {
			walk(e, p+"["+strconv.Itoa(i)+"]")
		}
	}
	walk(c, "")
	i := 1 + rng.Intn(len(nodes)-1)
	n, p := nodes[i], paths[i]
	switch rng.Intn(6) {
	case 0:
		*n = Value{Kind: Int, OK: true, Int: 5}
		return c, p + " set to 5"
	case 1:
		*n = Value{Kind: String, OK: true, Str: "x"}
		return c, p + ` set to "x"`
	case 2:
		*n = Value{Kind: List, OK: true, Elems: []*Value{{Kind: Bool, OK: true, Bool: true}}}
		return c, p + " set to [true]"
	case 3:
		if n.Kind == Struct {
			n.Fields = append(n.Fields, Field{Name: "zzUnknown", Value: &Value{Kind: String, OK: true, Str: "x"}})
			return c, p + " given zzUnknown"
		}
		*n = Value{Kind: Int, OK: true, Int: -1}
		return c, p + " set to -1"
	case 4:
		if n.Kind == Struct && len(n.Fields) > 0 {
			j := rng.Intn(len(n.Fields))
			name := n.Fields[j].Name
			n.Fields = slices.Delete(n.Fields, j, j+1)
			return c, p + "." + name + " removed"
		}
		*n = Value{Kind: Null, OK: true}
		return c, p + " set to null"
	default:
		*n = Value{Kind: Struct, OK: true}
		return c, p + " set to {}"
	}
}

func clone(v *Value) *Value {
	c := *v
	c.Fields = nil
	for _, f := range v.Fields {
		c.Fields = append(c.Fields, Field{Name: f.Name, Value: clone(f.Value)})
	}
	c.Elems = nil
	for _, e := range v.Elems {
		c.Elems = append(c.Elems, clone(e))
	}
	return &c
}

// cueText writes plain data as CUE: the fields of the root without braces.
func cueText(v *Value) string {
	var b strings.Builder
	for _, f := range v.Fields {
		b.WriteString(strconv.Quote(f.Name) + ": " + cueValue(f.Value) + "\n")
	}
	return b.String()
}

func cueValue(v *Value) string {
	switch v.Kind {
	case Struct:
		var parts []string
		for _, f := range v.Fields {
			parts = append(parts, strconv.Quote(f.Name)+": "+cueValue(f.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case List:
		var parts []string
		for _, e := range v.Elems {
			parts = append(parts, cueValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case String:
		return strconv.Quote(v.Str)
	case Int:
		return strconv.FormatInt(v.Int, 10)
	case Float:
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case Bool:
		return strconv.FormatBool(v.Bool)
	case Null:
		return "null"
	}
	return "_|_"
}

// TestShapeOfAnEvaluatedSpec: a spec that is not plain data (the
// benchmark's platform as a CUE user writes it: hidden tables,
// comprehensions, a pattern's default) fits the shape once evaluated, as
// it fits CUE; one whose hidden table holds an error, or that declares an
// optional field, is left to CUE, which reports the error.
func TestShapeOfAnEvaluatedSpec(t *testing.T) {
	src := map[string][]byte{}
	for p, f := range synth.Idiomatic(synth.Sizes["10x100"]) {
		if dir, file := filepath.Split(p); dir == "sources/" && strings.HasSuffix(file, ".cue") {
			src[file] = f.Data
		}
	}
	files := parseSources(t, src)
	if _, _, plain := readSyntax(files); plain {
		t.Fatal("the idiomatic spec reads as plain data")
	}
	ctx := cuecontext.New()
	value, err := build(ctx, "sources", files)
	if err != nil {
		t.Fatal(err)
	}
	decls, _ := indexDecls(files)
	data := fromCUE(value, true, decls)
	if !onlyRegularFields(files) || value.Validate() != nil || !specShape().fits(data) {
		t.Errorf("the idiomatic spec does not fit the shape (regular fields %v, errors %v)", onlyRegularFields(files), value.Validate())
	}
	if !checkBuilt(ctx, value, files, decls, &diag.Log{}).ok {
		t.Errorf("the idiomatic spec does not fit CUE's check")
	}

	for _, tt := range []struct{ name, src, want string }{
		{"an error in a hidden table", "_ports: {web: 80 & 81}\n", "sources/a.cue:5:20: _ports.web: conflicting values 81 and 80 (written at sources/a.cue:5:15 and sources/a.cue:5:20): a field written in several places must agree; change one, or keep one [cue]\n"},
		{"an optional field", "modules?: {}\nmodules: zz: {chart: \"c\", namespace: \"zz\", bogus: 1}\n", "sources/a.cue:6:44: modules.zz.bogus: unknown field \"bogus\": remove it or check its spelling (`platc schema` lists the fields) [unknown-field]\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, got := loadSpec(t, map[string]string{"a.cue": header + tt.src})
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
