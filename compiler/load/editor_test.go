package load

import (
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/schemas"
)

// TestEditorFile leaves out of the spec the file that applies platc's
// schema and holds nothing else, and refuses one that imports the schema
// and holds data too, saying why.
func TestEditorFile(t *testing.T) {
	const spec = "package p\n\nplatform: {name: \"shop\", repoURL: \"https://git.example.com/shop.git\"}\nenvironments: dev: revision: \"HEAD\"\n"
	const apply = "package p\n\nimport \"github.com/platc/platc/schemas\"\n\n// applied\nplatform!: schemas.#Platform\nmodules?: [string]: schemas.#Module\n[!~\"^(platform|modules)$\"]: error(\"not a field\")\nmodules: web?: schemas.#Module\nenvironments: dev?: modules: web?: schemas.#ModuleSettings\n"
	for _, tt := range []struct {
		name, src string
		editor    bool
	}{
		{"applies the schema", apply, true},
		{"named import", "package p\n\nimport s \"github.com/platc/platc/schemas\"\n\nplatform!: s.#Platform\n", true},
		{"data beside", apply + "modules: web: path: \"x\"\n", false},
		{"another import", "package p\n\nimport (\n\t\"github.com/platc/platc/schemas\"\n\t\"strings\"\n)\n\nplatform!: schemas.#Platform\n", false},
		{"not a definition", "package p\n\nimport \"github.com/platc/platc/schemas\"\n\nplatform!: schemas.Platform\n", false},
		{"no import", "package p\n\nplatform!: {}\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile("schema.cue", tt.src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if got := IsEditorFile(f); got != tt.editor {
				t.Errorf("IsEditorFile = %v, want %v", got, tt.editor)
			}
		})
	}

	copyOf := func(schema []byte) fstest.MapFS {
		return fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}, "sources/schema.cue": {Data: []byte(apply)}, "sources/" + SchemaCopy: {Data: schema}}
	}
	log := &diag.Log{}
	s := Load(copyOf(schemas.PlatformCUE), "sources", log)
	if s == nil || log.String() != "" {
		t.Fatalf("the spec with the file applying the schema: %v", log)
	}
	if len(s.Files) != 1 || s.Files[0] != "sources/platform.cue" {
		t.Errorf("files: %v, want the spec's alone", s.Files)
	}
	if s.Data.Lookup("modules") != nil {
		t.Errorf("read the file applying the schema as data: %v", s.Data.Lookup("modules"))
	}

	// Another platc's copy of the schema, or none.
	log = &diag.Log{}
	Load(copyOf(append([]byte("// an older platc's\n"), schemas.PlatformCUE...)), "sources", log)
	if want := "sources/cue.mod/pkg/github.com/platc/platc/schemas/platform.cue: warning: not the schema of this platc, which checks the spec by its own: an editor completes and documents the fields of another version; run platc editor to write this one [editor-schema]\n"; log.String() != want {
		t.Errorf("got  %s\nwant %s", log, want)
	}
	log = &diag.Log{}
	fsys := copyOf(nil)
	delete(fsys, "sources/"+SchemaCopy)
	Load(fsys, "sources", log)
	if want := "sources/schema.cue: warning: sources/schema.cue applies platc's schema, which sources/cue.mod/pkg/github.com/platc/platc/schemas/platform.cue does not hold: run platc editor to write it [editor-schema]\n"; log.String() != want {
		t.Errorf("got  %s\nwant %s", log, want)
	}

	log = &diag.Log{}
	Load(fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}, "sources/schema.cue": {Data: []byte(apply + "modules: web: path: \"x\"\n")}}, "sources", log)
	if want := "sources/schema.cue:3:8: import of platc's schema in a file that holds more than the schema's definitions: platc reads the schema only in a file that applies it and holds nothing else, as platc editor writes schema.cue; move the spec's fields to another file [spec-files]\n"; log.String() != want {
		t.Errorf("got  %s\nwant %s", log, want)
	}

	log = &diag.Log{}
	Load(fstest.MapFS{"sources/schema.cue": {Data: []byte(apply)}}, "sources", log)
	if want := "sources: no .cue files but schema.cue, which applies platc's schema for the editor: write the platform spec beside it (`platc schema` prints the spec language) [spec-files]\n"; log.String() != want {
		t.Errorf("got  %s\nwant %s", log, want)
	}
}
