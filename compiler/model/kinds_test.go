package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/platc/platc/schemas"
)

// TestEveryKindIsDescribed requires a full row of KindInfos for every
// module kind but KindInvalid, a field of its own, and that field and its
// options in #Module of the spec language: the stages read the row, so a
// kind without one would fall to their loud defaults.
//
// A full row is one that writes every column (the test reads the source of
// KindInfos), so that a new column is answered for each kind, and where
// zero is no answer (a string, an enum counted from 1) is not zero. For a
// bool or a list, false and nil are answers as good as any: only their
// being written in the row says that they were chosen, and not left at
// the zero value a new column gives every row.
func TestEveryKindIsDescribed(t *testing.T) {
	module := regexp.MustCompile(`(?s)#Module: \{(.*?)\n\}`).FindSubmatch(schemas.PlatformCUE)
	if module == nil {
		t.Fatal("no #Module in the schema")
	}
	inModule := func(field string) bool {
		return regexp.MustCompile(`\n\t` + regexp.QuoteMeta(field) + `\?:`).Match(module[1])
	}
	files := parseModel(t)
	names := kindNames(t, files)
	rows := kindRows(t, files)
	columns := reflect.TypeFor[KindInfo]()
	seen := map[string]bool{}
	for k := ModuleKind(0); k < kindCount; k++ {
		if !k.Valid() {
			continue
		}
		written, ok := rows[names[k]]
		if !ok {
			t.Errorf("%s has no row in KindInfos: add one", names[k])
			continue
		}
		info := k.Info()
		row := reflect.ValueOf(info)
		for i := range columns.NumField() {
			col := columns.Field(i)
			if !slices.Contains(written, col.Name) {
				t.Errorf("the row of %s in KindInfos does not write %s: write it, false or nil included, so that it is chosen for the kind", names[k], col.Name)
			}
			switch col.Type.Kind() {
			case reflect.Bool, reflect.Slice:
				// false and nil are answers; the row writes them.
			default:
				if row.Field(i).IsZero() {
					t.Errorf("%s is not fully described: its %s is zero", names[k], col.Name)
				}
			}
		}
		if seen[info.Field] {
			t.Errorf("field %q sets two kinds, or is another kind's option", info.Field)
		}
		seen[info.Field] = true
		for _, f := range append([]string{info.Field}, info.Options...) {
			if !inModule(f) {
				t.Errorf("%s's field %s?: is not in #Module", names[k], f)
			}
		}
		for _, o := range info.Options {
			if slices.Contains(Kinds, o) {
				t.Errorf("%s's option %s sets a kind", names[k], o)
			}
		}
		if Kinds[k] != info.Field {
			t.Errorf("Kinds[%d] = %q, want %q", k, Kinds[k], info.Field)
		}
	}
	if KindInvalid.Valid() || !reflect.ValueOf(KindInvalid.Info()).IsZero() {
		t.Errorf("KindInvalid is described: %+v", KindInvalid.Info())
	}
}

// TestLintsAreTheAllowedIDs keeps the lint names of the spec those of the
// message ids an allow field may silence.
func TestLintsAreTheAllowedIDs(t *testing.T) {
	want := []string{LintLiteralSecret, LintWildcard}
	if !slices.Equal(Lints, want) {
		t.Errorf("Lints = %v, want %v (the ids marked Allow in diag.Messages)", Lints, want)
	}
	allow := regexp.MustCompile(`(?s)// #Allow lists (.*?)#Allow:`).FindSubmatch(schemas.PlatformCUE)
	for _, l := range Lints {
		if allow == nil || !strings.Contains(string(allow[1]), `"`+l+`"`) {
			t.Errorf("lint %q is not named by #Allow's comment in the schema", l)
		}
	}
}

// TestKindsOnlyInTheTable requires that no Go file of the repository
// outside this package names a ModuleKind constant: what differs by kind is
// a column of KindInfos or a method here, and a new kind is a row of the
// table and nothing else. Tests may name kinds, to build modules of each.
func TestKindsOnlyInTheTable(t *testing.T) {
	const modelPath = "github.com/platc/platc/compiler/model"
	kinds := kindNames(t, parseModel(t))
	root := filepath.Join("..", "..")
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	importers := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			abs, _ := filepath.Abs(p)
			if abs == self || d.Name() == "testdata" || p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == modelPath {
				name = "model"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		switch name {
		case "", "_":
			return nil
		case ".":
			t.Errorf("%s imports %s with a dot, which hides the kinds it names", p, modelPath)
			return nil
		}
		importers++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(kinds, sel.Sel.Name) {
					pos := fset.Position(sel.Pos())
					pos.Filename, _ = filepath.Rel(root, pos.Filename)
					t.Errorf("%s: %s.%s outside compiler/model: read a column of model.KindInfos or a method of ModuleKind instead (add one where none says it), so that a new kind is a row of the table alone", pos, name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if importers == 0 {
		t.Fatalf("no Go file under %s imports %s: the test reads the wrong folder", root, modelPath)
	}
}

// parseModel parses the package's non-test files.
func parseModel(t *testing.T) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// kindNames returns the names of the ModuleKind constants, by value: the
// const block that declares KindInvalid, up to kindCount.
func kindNames(t *testing.T, files []*ast.File) []string {
	t.Helper()
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST && slices.ContainsFunc(g.Specs, func(s ast.Spec) bool {
				return slices.ContainsFunc(s.(*ast.ValueSpec).Names, func(n *ast.Ident) bool { return n.Name == "KindInvalid" })
			}) {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.Name != "kindCount" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	if len(names) != int(kindCount) || names[KindInvalid] != "KindInvalid" {
		t.Fatalf("the ModuleKind constants read from the source are %v, not %d counted from KindInvalid", names, kindCount)
	}
	return names
}

// kindRows returns the columns each row of KindInfos writes, by the name
// of the row's kind.
func kindRows(t *testing.T, files []*ast.File) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := n.(*ast.ValueSpec)
			if !ok || len(s.Names) != 1 || s.Names[0].Name != "KindInfos" || len(s.Values) != 1 {
				return true
			}
			table, ok := s.Values[0].(*ast.CompositeLit)
			if !ok {
				t.Fatal("KindInfos is not a composite literal")
			}
			for _, e := range table.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					t.Fatal("a row of KindInfos is not keyed by its kind")
				}
				kind, row := kv.Key.(*ast.Ident), kv.Value.(*ast.CompositeLit)
				rows[kind.Name] = []string{}
				for _, c := range row.Elts {
					if c, ok := c.(*ast.KeyValueExpr); ok {
						rows[kind.Name] = append(rows[kind.Name], c.Key.(*ast.Ident).Name)
					}
				}
			}
			return false
		})
	}
	if len(rows) == 0 {
		t.Fatal("no KindInfos in the package's source")
	}
	return rows
}
