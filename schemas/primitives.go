package schemas

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	cueyaml "cuelang.org/go/encoding/yaml"
)

// PrimitivesCUE is the primitives a stack consumes (#Primitive's kinds),
// written as CUE definitions made from their embedded CRDs: one
// definition per kind, #<Kind>, with the fields of its schema in the
// CRD's order, each with the CRD's description as its doc comment and the
// file's leading comment as the definition's. `platc schema` prints it
// after PlatformCUE, and docs/spec.md documents it with the rest. The
// primitives are the CRDs of crds/ that are neither Argo CD's nor kro's.
var PrimitivesCUE = sync.OnceValues(func() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`// The primitives: the kinds a stack's primitives name (#Primitive's kind),
// made from their CustomResourceDefinitions (schemas/crds/). A primitive's
// spec takes the fields of its kind's spec; the stack reads its status in
// ${...} expressions. platc checks both against the CRD.

`)
	files := CRDs()
	ctx := cuecontext.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		f, err := cueyaml.Extract(name, data)
		if err != nil {
			return nil, err
		}
		crd := ctx.BuildFile(f)
		if err := crd.Err(); err != nil {
			return nil, err
		}
		group, _ := crd.LookupPath(cue.ParsePath("spec.group")).String()
		if group == "argoproj.io" || group == "kro.run" {
			continue
		}
		kind, err := crd.LookupPath(cue.ParsePath("spec.names.kind")).String()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		version, schema, err := storageVersion(crd)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		writeComment(&b, "", leadingComment(data))
		fmt.Fprintf(&b, "#%s: ", kind)
		w := &crdWriter{b: &b, apiVersion: group + "/" + version, kind: kind}
		if err := w.schema(schema, ""); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		b.WriteString("\n\n")
	}
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the primitives' CUE: %v", err)
	}
	// It must read as CUE that the schema's comments are read from.
	if _, err := parser.ParseFile("primitives.cue", out, parser.ParseComments); err != nil {
		return nil, err
	}
	return out, nil
})

// storageVersion returns the name and the schema of the version a CRD
// stores.
func storageVersion(crd cue.Value) (string, cue.Value, error) {
	versions, err := crd.LookupPath(cue.ParsePath("spec.versions")).List()
	if err != nil {
		return "", cue.Value{}, err
	}
	for versions.Next() {
		v := versions.Value()
		if storage, _ := v.LookupPath(cue.ParsePath("storage")).Bool(); storage {
			name, _ := v.LookupPath(cue.ParsePath("name")).String()
			return name, v.LookupPath(cue.ParsePath("schema.openAPIV3Schema")), nil
		}
	}
	return "", cue.Value{}, fmt.Errorf("no stored version")
}

// leadingComment is the text of the comment lines a YAML file starts
// with.
func leadingComment(data []byte) string {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		text, ok := strings.CutPrefix(l, "#")
		if !ok {
			break
		}
		lines = append(lines, strings.TrimSpace(text))
	}
	return strings.Join(lines, " ")
}

// writeComment writes text as a CUE comment, wrapped at 72 columns.
func writeComment(b *strings.Builder, indent, text string) {
	if text == "" {
		return
	}
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(indent)*4+len(line)+1+len(word) > 72 {
			fmt.Fprintf(b, "%s// %s\n", indent, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	fmt.Fprintf(b, "%s// %s\n", indent, line)
}

// crdWriter writes an OpenAPI v3 schema of a CRD as CUE.
type crdWriter struct {
	b                *strings.Builder
	apiVersion, kind string
}

// schema writes the CUE of the OpenAPI schema s, a field's value at path
// (dotted, "" for the object itself).
func (w *crdWriter) schema(s cue.Value, path string) error {
	str := func(field string) string {
		v, _ := s.LookupPath(cue.MakePath(cue.Str(field))).String()
		return v
	}
	switch path {
	case "apiVersion":
		w.b.WriteString(strconv.Quote(w.apiVersion))
		return nil
	case "kind":
		w.b.WriteString(strconv.Quote(w.kind))
		return nil
	}
	var bounds []string
	for _, c := range []struct{ key, op string }{{"minimum", ">="}, {"maximum", "<="}} {
		if v := s.LookupPath(cue.MakePath(cue.Str(c.key))); v.Exists() {
			bounds = append(bounds, fmt.Sprintf("%s%v", c.op, v))
		}
	}
	if enum := s.LookupPath(cue.MakePath(cue.Str("enum"))); enum.Exists() {
		var alts []string
		it, _ := enum.List()
		for it.Next() {
			alts = append(alts, fmt.Sprint(it.Value()))
		}
		w.b.WriteString(strings.Join(alts, " | "))
		return nil
	}
	typ := str("type")
	switch typ {
	case "string", "boolean", "integer", "number":
		t := map[string]string{"string": "string", "boolean": "bool", "integer": "int", "number": "number"}[typ]
		if p := str("pattern"); p != "" {
			bounds = append(bounds, "=~"+strconv.Quote(p))
		}
		w.b.WriteString(strings.Join(append([]string{t}, bounds...), " & "))
		return nil
	case "array":
		w.b.WriteString("[...")
		if err := w.schema(s.LookupPath(cue.MakePath(cue.Str("items"))), path+"[]"); err != nil {
			return err
		}
		w.b.WriteString("]")
		return nil
	case "object":
	default:
		return fmt.Errorf("%s: type %q", path, typ)
	}
	props := s.LookupPath(cue.MakePath(cue.Str("properties")))
	if !props.Exists() {
		if add := s.LookupPath(cue.MakePath(cue.Str("additionalProperties"))); add.Exists() {
			w.b.WriteString("[string]: ")
			return w.schema(add, path+".*")
		}
		w.b.WriteString("{...}")
		return nil
	}
	var required []string
	if r := s.LookupPath(cue.MakePath(cue.Str("required"))); r.Exists() {
		_ = r.Decode(&required)
	}
	w.b.WriteString("{\n")
	it, err := props.Fields()
	if err != nil {
		return err
	}
	for first := true; it.Next(); first = false {
		name := it.Selector().Unquoted()
		field := it.Value()
		desc, _ := field.LookupPath(cue.MakePath(cue.Str("description"))).String()
		if desc != "" && !first {
			w.b.WriteString("\n")
		}
		writeComment(w.b, "\t", desc)
		label := name
		if !isIdentifier(name) {
			label = strconv.Quote(name)
		}
		sub := strings.TrimPrefix(path+"."+name, ".")
		switch {
		case sub == "apiVersion" || sub == "kind":
			label += ": "
		case slices.Contains(required, name):
			label += "!: "
		default:
			label += "?: "
		}
		w.b.WriteString(label)
		if err := w.schema(field, sub); err != nil {
			return err
		}
		w.b.WriteString("\n")
	}
	if v, _ := s.LookupPath(cue.MakePath(cue.Str("x-kubernetes-preserve-unknown-fields"))).Bool(); v {
		w.b.WriteString("...\n")
	}
	w.b.WriteString("}")
	return nil
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
