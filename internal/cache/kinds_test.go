package cache

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestKindsAreTrue checks the table of kinds: names and keys apart, each
// row said in full, each codec a function of the repository, and every
// entry written and read with a kind's layout (the first argument of
// object's Entry, ReadEntry and NewEntryDecoder is a Kind's Layout), so
// that no kind is kept outside the table.
func TestKindsAreTrue(t *testing.T) {
	names := map[string]bool{}
	for _, k := range Kinds {
		if names[k.Name] || k.Version < 1 || k.From == "" || len(k.Codec) == 0 {
			t.Errorf("kind %q: a name of its own, a version, what its key is made from and its codec, please", k.Name)
		}
		names[k.Name] = true
		if !strings.HasPrefix(k.Key("a"), k.Name+"-") || k.Key("a", "b") == k.Key("ab") || k.Key("a") == k.Key("b") {
			t.Errorf("kind %q: keys that do not tell their parts apart", k.Name)
		}
	}
	funcs := map[string]bool{}
	decoders := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir("../../compiler", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		pkg := filepath.Base(filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := pkg + "." + fn.Name.Name
			if fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = pkg + "." + id.Name + "." + fn.Name.Name
				}
			}
			funcs[name] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || pkg == "object" || sel.Sel.Name != "NewEntryDecoder" && sel.Sel.Name != "ReadEntry" && sel.Sel.Name != "Entry" {
				return true
			}
			decoders++
			if !isLayout(call.Args[0]) {
				t.Errorf("%s: an entry with a layout of no kind: add its kind to internal/cache's Kinds", fset.Position(call.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds {
		for _, c := range k.Codec {
			if !funcs[c] {
				t.Errorf("kind %q: its codec %s is no function of compiler/", k.Name, c)
			}
		}
	}
	if decoders < 5 {
		t.Fatalf("found %d reads of entries: the walk missed them", decoders)
	}
}

// isLayout reports whether x is cache.Kind.Layout().
func isLayout(x ast.Expr) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Layout" {
		return false
	}
	kind, ok := sel.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := kind.X.(*ast.Ident)
	return ok && (pkg.Name == "cache" || pkg.Name == "memcache")
}
