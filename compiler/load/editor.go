package load

import (
	"bytes"
	"io/fs"
	"path"
	"strconv"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/schemas"
)

// SchemaImport is the import path of platc's schema in the CUE module
// platc editor writes into the spec folder (cue.mod/pkg): CUE's own
// tools (cue lsp, cue vet) read the schema from there.
const SchemaImport = "github.com/platc/platc/schemas"

// EditorFile is the name of the spec file platc editor writes: the file
// that applies platc's schema to the spec for CUE's tools.
const EditorFile = "schema.cue"

// SchemaCopy is where platc editor writes platc's schema in the spec
// folder: the package SchemaImport of its CUE module.
const SchemaCopy = "cue.mod/pkg/" + SchemaImport + "/platform.cue"

// checkSchemaCopy warns where the spec folder dir has a file applying
// platc's schema (editor, its path) and its copy of the schema is not
// the one platc embeds: another platc's, or none.
func checkSchemaCopy(fsys fs.FS, dir, editor string, log *diag.Log) {
	file := path.Join(dir, SchemaCopy)
	data, err := fs.ReadFile(fsys, file)
	switch {
	case err != nil:
		log.Reportf(diag.EditorSchema, diag.Pos{File: editor}, "", "%s applies platc's schema, which %s does not hold: run platc editor to write it", editor, file)
	case !bytes.Equal(data, schemas.PlatformCUE):
		log.Reportf(diag.EditorSchema, diag.Pos{File: file}, "", "not the schema of this platc, which checks the spec by its own: an editor completes and documents the fields of another version; run platc editor to write this one")
	}
}

// withoutEditorFile leaves out of the spec files (names, and their
// bytes, sources) the file that applies platc's schema for CUE's tools
// (IsEditorFile): platc checks the spec against the schema it embeds,
// and reads the spec as it would without that file, so that the file
// changes nothing platc says.
func withoutEditorFile(names []string, sources [][]byte) (_ []string, _ [][]byte, dropped string) {
	quoted := []byte(strconv.Quote(SchemaImport))
	for i := 0; i < len(names); i++ {
		if !bytes.Contains(sources[i], quoted) {
			continue
		}
		f, err := parser.ParseFile(names[i], sources[i], parser.ParseComments)
		if err != nil || !IsEditorFile(f) {
			continue
		}
		dropped = names[i]
		names = append(names[:i:i], names[i+1:]...)
		sources = append(sources[:i:i], sources[i+1:]...)
		i--
	}
	return names, sources, dropped
}

// IsEditorFile reports whether f is a file that applies platc's schema
// and holds nothing else: it imports SchemaImport alone, and each of its
// declarations is a field whose value is one of the schema's definitions
// (schemas.#Module), a struct of such fields, or an error() call (the
// constraint that marks a field #Spec does not have), under any label.
// Nothing in such a file is data.
func IsEditorFile(f *ast.File) bool {
	imports := 0
	name := ""
	for spec := range f.ImportSpecs() {
		imports++
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || p != SchemaImport {
			return false
		}
		name = "schemas"
		if spec.Name != nil {
			name = spec.Name.Name
		}
	}
	if imports != 1 {
		return false
	}
	var ok func(decls []ast.Decl) bool
	value := func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.SelectorExpr:
			sel, _, _ := ast.LabelName(x.Sel)
			return isIdent(x.X, name) && len(sel) > 1 && sel[0] == '#'
		case *ast.StructLit:
			return ok(x.Elts)
		case *ast.CallExpr:
			if !isIdent(x.Fun, "error") || len(x.Args) != 1 {
				return false
			}
			_, isLit := x.Args[0].(*ast.BasicLit)
			return isLit
		}
		return false
	}
	ok = func(decls []ast.Decl) bool {
		for _, d := range decls {
			switch d := d.(type) {
			case *ast.Package, *ast.ImportDecl, *ast.CommentGroup:
			case *ast.Field:
				if !value(d.Value) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return ok(f.Decls)
}
