package schemas

import (
	"fmt"
	"regexp"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// SpecReference is docs/spec.md: the reference of the spec language, made
// from the doc comments of PlatformCUE and PrimitivesCUE, one section per
// definition, each field with its type as CUE writes it, whether it is
// required, and its comment. TestSpecReference compares it with
// docs/spec.md (go test ./schemas -update rewrites it).
func SpecReference() (string, error) {
	spec, err := parser.ParseFile(PlatformFile, PlatformCUE, parser.ParseComments)
	if err != nil {
		return "", err
	}
	primitivesCUE, err := PrimitivesCUE()
	if err != nil {
		return "", err
	}
	primitives, err := parser.ParseFile("primitives.cue", primitivesCUE, parser.ParseComments)
	if err != nil {
		return "", err
	}
	specDefs, primDefs := definitions(spec), definitions(primitives)
	known := map[string]bool{}
	for _, d := range append(specDefs, primDefs...) {
		known[d.name] = true
	}
	var b strings.Builder
	b.WriteString(`# The spec reference

<!-- Made by go test ./schemas -update from schemas/platform.cue and the
primitives' CRDs (schemas/crds/): edit those, not this page. -->

`)
	b.WriteString(markdownText(fileDoc(spec)))
	b.WriteString(`

On this page, a field marked **required** must be set (CUE writes it
` + "`name!: T`" + `), any other is optional (` + "`name?: T`" + `). A type
` + "`[string]: T`" + ` is any number of entries by name, ` + "`[...T]`" + ` a list,
` + "`{...}`" + ` a struct of any fields, ` + "`int & >=0`" + ` a number of at least 0.
A field that holds a struct lists that struct's fields below it.
` + "`platc schema`" + ` prints the schema itself, the primitives last.

`)
	b.WriteString("Definitions: ")
	for i, d := range specDefs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s](%s)", d.name, anchor(d.name))
	}
	b.WriteString(".\n\nPrimitives: ")
	for i, d := range primDefs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s](%s)", d.name, anchor(d.name))
	}
	b.WriteString(".\n")
	for _, d := range specDefs {
		d.write(&b, "##", known)
	}
	b.WriteString("\n## Primitives\n\n")
	b.WriteString(markdownText(fileDoc(primitives)))
	b.WriteString("\n")
	for _, d := range primDefs {
		d.write(&b, "###", known)
	}
	return b.String(), nil
}

// definition is a top-level definition of a CUE file.
type definition struct {
	name  string
	doc   string
	value ast.Expr
}

func definitions(f *ast.File) []definition {
	var defs []definition
	for _, decl := range f.Decls {
		field, ok := decl.(*ast.Field)
		if !ok {
			continue
		}
		name, _, _ := ast.LabelName(field.Label)
		defs = append(defs, definition{name: name, doc: docOf(field), value: field.Value})
	}
	return defs
}

// fileDoc is the comment of a file that is not a field's: its package
// doc, or the comment before its first definition that is separated from
// it.
func fileDoc(f *ast.File) string {
	for _, cg := range ast.Comments(f) {
		return commentText(cg)
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.Package:
			for _, cg := range ast.Comments(d) {
				if cg.Doc {
					return commentText(cg)
				}
			}
		case *ast.CommentGroup:
			return commentText(d)
		}
	}
	return ""
}

// docOf is the doc comment of a field: the comments before its label.
func docOf(n ast.Node) string {
	var parts []string
	for _, cg := range ast.Comments(n) {
		if cg.Position == 0 && !cg.Line {
			parts = append(parts, commentText(cg))
		}
	}
	return strings.Join(parts, "\n\n")
}

// commentText is a comment's text: its lines without //, a blank line
// between paragraphs.
func commentText(cg *ast.CommentGroup) string {
	var lines []string
	for _, c := range cg.List {
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// markdownText is a comment's text as Markdown: each paragraph on one
// line, a backslash and < written so that Markdown shows them.
func markdownText(text string) string {
	var paras []string
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.Join(strings.Fields(p), " ")
		paras = append(paras, strings.NewReplacer(`\`, `\\`, "<", "&lt;").Replace(p))
	}
	return strings.Join(paras, "\n\n")
}

// anchor is the link to the heading of definition name, as GitHub makes
// it.
func anchor(name string) string {
	return "#" + strings.ToLower(strings.TrimPrefix(name, "#"))
}

func (d definition) write(b *strings.Builder, heading string, known map[string]bool) {
	fmt.Fprintf(b, "\n%s %s\n\n", heading, d.name)
	if d.doc != "" {
		fmt.Fprintf(b, "%s\n\n", markdownText(d.doc))
	}
	typ, fields := describe(d.value)
	if fields == nil {
		fmt.Fprintf(b, "Type: `%s`%s.\n", typ, refs(typ, known, d.name))
		return
	}
	if strings.Contains(typ, "...") {
		b.WriteString("Open: it takes fields of any name besides these.\n\n")
	}
	writeFields(b, fields, "", known, d.name)
}

// refs links the definitions a type names.
func refs(typ string, known map[string]bool, self string) string {
	var links []string
	for _, name := range defRef.FindAllString(typ, -1) {
		if known[name] && name != self {
			links = append(links, fmt.Sprintf("[%s](%s)", name, anchor(name)))
		}
	}
	if len(links) == 0 {
		return ""
	}
	return " (" + strings.Join(links, ", ") + ")"
}

var defRef = regexp.MustCompile(`#[A-Za-z][A-Za-z0-9]*`)

// fieldDoc is a field of a struct, as the reference shows it.
type fieldDoc struct {
	name     string
	required bool
	typ      string
	doc      string
	fields   []fieldDoc // of a struct, or of a list of structs
}

func writeFields(b *strings.Builder, fields []fieldDoc, indent string, known map[string]bool, self string) {
	for _, f := range fields {
		req := "optional"
		if f.required {
			req = "**required**"
		}
		fmt.Fprintf(b, "%s- `%s` `%s`, %s%s", indent, f.name, f.typ, req, refs(f.typ, known, self))
		if f.doc != "" {
			fmt.Fprintf(b, ": %s", strings.ReplaceAll(markdownText(f.doc), "\n\n", "\n\n"+indent+"  "))
		}
		b.WriteString("\n")
		if f.fields != nil {
			writeFields(b, f.fields, indent+"  ", known, self)
		}
	}
}

// describe returns the type of a field's value as CUE writes it and, for
// a struct (or a list or map of them) with fields, those fields.
func describe(x ast.Expr) (string, []fieldDoc) {
	switch v := x.(type) {
	case *ast.StructLit:
		var fields []fieldDoc
		var labels []string
		open := false
		for _, elt := range v.Elts {
			switch e := elt.(type) {
			case *ast.Ellipsis:
				open = true
			case *ast.Field:
				if l, ok := e.Label.(*ast.ListLit); ok && len(v.Elts) == 1 {
					// [string]: T, a map.
					typ, sub := describe(e.Value)
					return "[" + node(l.Elts[0]) + "]: " + typ, sub
				}
				name, _, _ := ast.LabelName(e.Label)
				typ, sub := describe(e.Value)
				f := fieldDoc{name: name, typ: typ, doc: docOf(e), fields: sub}
				switch e.Constraint {
				case token.NOT:
					f.required = true
					labels = append(labels, name+"!")
				case token.OPTION:
					labels = append(labels, name+"?")
				default:
					// A field with a value (a primitive's apiVersion): set.
					f.required = true
					labels = append(labels, name)
				}
				fields = append(fields, f)
			}
		}
		if len(fields) == 0 {
			return node(v), nil
		}
		if open {
			labels = append(labels, "...")
		}
		return "{" + strings.Join(labels, ", ") + "}", fields
	case *ast.ListLit:
		if len(v.Elts) == 1 {
			if e, ok := v.Elts[0].(*ast.Ellipsis); ok && e.Type != nil {
				typ, sub := describe(e.Type)
				return "[..." + typ + "]", sub
			}
		}
	}
	return node(x), nil
}

// node is x as cue fmt writes it, on one line.
func node(x ast.Node) string {
	b, err := format.Node(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}
