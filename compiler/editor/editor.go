// Package editor writes what CUE's own tools need to know platc's spec
// language: platc's schema as a CUE package in the spec folder's module
// (cue.mod/pkg, where CUE finds a package no registry serves), and a
// spec file that applies it to the spec. An editor running cue lsp then
// completes platc's fields and shows their documentation, and cue vet
// marks a field platc does not have. platc itself reads the spec without
// that file (load.IsEditorFile) and checks it against the schema it
// embeds.
package editor

import (
	"bytes"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/ast/astutil"
	cueformat "cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/schemas"
)

// The files Files writes, by their slash path in the spec folder.
const (
	// ModuleFile makes the spec folder a CUE module, so that CUE's tools
	// find the schema in it. Written only where there is none.
	ModuleFile = "cue.mod/module.cue"
	// SchemaFile is platc's schema, schemas/platform.cue, as platc
	// embeds it: the package load.SchemaImport.
	SchemaFile = load.SchemaCopy
	// ApplyFile applies the schema to the spec (load.EditorFile).
	ApplyFile = load.EditorFile
)

// Module is the module file Files writes where the spec folder has none:
// a module of its own, of the CUE language version platc reads the spec
// with.
func Module() []byte {
	return fmt.Appendf(nil, "// The spec folder is a CUE module, so that CUE's tools (cue lsp, cue vet)\n// find platc's schema in cue.mod/pkg (platc editor).\nmodule: \"platform.local/spec@v0\"\nlanguage: version: %q\n", cue.LanguageVersion())
}

// Apply is the spec file that applies platc's schema to the spec, in the
// spec's package pkg: each field of #Spec is declared as #Spec declares
// it, with the schema's definitions (a field of any other name is an
// error), and each entry data has in a map of definitions (a module, an
// environment, an environment's module...) is named with its definition,
// as an optional field: cue lsp v0.17 does not apply a pattern
// constraint ([string]: #Module) to a field, so an entry the file does
// not name has no completion until platc editor runs again. data is the
// spec as platc reads it, or nil.
func Apply(pkg string, data *load.Value) ([]byte, error) {
	f, err := parser.ParseFile(schemas.PlatformFile, schemas.PlatformCUE)
	if err != nil {
		return nil, err
	}
	defs := map[string]ast.Expr{}
	for _, d := range f.Decls {
		if field, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(field.Label); err == nil && strings.HasPrefix(name, "#") {
				defs[name] = field.Value
			}
		}
	}
	spec, ok := defs["#Spec"].(*ast.StructLit)
	if !ok {
		return nil, fmt.Errorf("the schema has no #Spec struct")
	}
	// The entries first: qualify changes the schema's syntax.
	var entries []string
	w := walker{defs: defs, emit: func(path []string, def string) {
		entries = append(entries, strings.Join(path, ": ")+": schemas."+def)
	}}
	w.walk(data, spec, nil)
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "package %s\n\nimport %q\n\n", pkg, load.SchemaImport)
	var names []string
	for _, d := range spec.Elts {
		field, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, _, err := ast.LabelName(field.Label)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		value, err := short(qualify(field.Value).(ast.Expr))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s%s: %s\n", label(name), marker(field.Constraint), value)
	}
	fmt.Fprintf(&b, "[!~%q]: error(%q)\n", "^("+strings.Join(names, "|")+")$", "not a field of platc's spec, which has "+diag.List(names))
	if len(entries) > 0 {
		b.WriteString(entriesComment)
		for _, e := range entries {
			b.WriteString(e + "\n")
		}
	}
	return cueformat.Source(b.Bytes())
}

const header = `// This file applies platc's schema to the spec for CUE's own tools: an
// editor running cue lsp completes platc's fields and shows their
// documentation, and cue vet marks a field platc does not have. platc
// editor writes it, and the schema in cue.mod/; run it again after
// updating platc, or to name new entries below. platc checks the spec
// against the schema it embeds, and reads the spec without this file.
`

const entriesComment = `
// The entries of the spec when platc editor ran, each with its
// definition: cue lsp completes the fields of an entry named here
// (it does not apply a pattern such as [string]: #Module to one).
`

// qualify is x with each reference to a definition of the schema (#X)
// made a reference to the imported package's (schemas.#X), and without
// comments.
func qualify(x ast.Expr) ast.Node {
	return astutil.Apply(x, func(c astutil.Cursor) bool {
		ast.SetComments(c.Node(), nil)
		if id, ok := c.Node().(*ast.Ident); ok && strings.HasPrefix(id.Name, "#") {
			c.Replace(ast.NewSel(ast.NewIdent("schemas"), id.Name))
			return false
		}
		return true
	}, nil)
}

// short is x formatted, a struct of one field on one line as the schema
// writes it ([string]: schemas.#Chart).
func short(x ast.Expr) (string, error) {
	if st, ok := x.(*ast.StructLit); ok && len(st.Elts) == 1 {
		if field, ok := st.Elts[0].(*ast.Field); ok {
			l, err := cueformat.Node(field.Label)
			if err != nil {
				return "", err
			}
			v, err := short(field.Value)
			return string(l) + marker(field.Constraint) + ": " + v, err
		}
	}
	b, err := cueformat.Node(x)
	return string(b), err
}

// walker finds the entries of a spec that a pattern of the schema gives
// a definition.
type walker struct {
	defs map[string]ast.Expr
	emit func(path []string, def string)
	seen int
}

// walk visits data, a value the schema's expression x constrains, at
// path (its labels, written as the file writes them).
func (w *walker) walk(data *load.Value, x ast.Expr, path []string) {
	if data == nil || data.Kind != load.Struct || w.seen > 10000 {
		return
	}
	w.seen++
	switch x := x.(type) {
	case *ast.Ident:
		if def, ok := w.defs[x.Name]; ok && len(path) < 32 {
			w.walk(data, def, path)
		}
	case *ast.BinaryExpr:
		if x.Op == token.AND {
			w.walk(data, x.X, path)
			w.walk(data, x.Y, path)
		}
	case *ast.StructLit:
		for _, d := range x.Elts {
			field, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			if pattern, ok := field.Label.(*ast.ListLit); ok && len(pattern.Elts) == 1 {
				def, isDef := field.Value.(*ast.Ident)
				for _, f := range data.Fields {
					p := append(path[:len(path):len(path)], label(f.Name)+"?")
					if isDef && strings.HasPrefix(def.Name, "#") {
						w.emit(p, def.Name)
					}
					w.walk(f.Value, field.Value, p)
				}
				continue
			}
			name, _, err := ast.LabelName(field.Label)
			if err != nil {
				continue
			}
			if v := data.Lookup(name); v != nil {
				w.walk(v, field.Value, append(path[:len(path):len(path)], label(name)))
			}
		}
	}
}

// marker is the mark of a field's constraint: ?, ! or nothing.
func marker(t token.Token) string {
	if t == token.OPTION || t == token.NOT {
		return t.String()
	}
	return ""
}

// label is name as a CUE label: an identifier, or a quoted string.
func label(name string) string {
	if ast.IsValidIdent(name) && !strings.HasPrefix(name, "#") && !strings.HasPrefix(name, "_") {
		return name
	}
	return literal.Label.Quote(name)
}

// Schema is platc's schema as SchemaFile holds it: the file platc embeds.
func Schema() []byte { return schemas.PlatformCUE }
