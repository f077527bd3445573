package editor

import (
	"strings"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue/parser"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
)

// TestApply writes the file that applies the schema: every field of
// #Spec with its definitions from the imported package, the error for
// any other field, and each entry of the spec with its definition,
// nested ones too; load reads it as a file that holds nothing else.
func TestApply(t *testing.T) {
	spec := fstest.MapFS{"sources/platform.cue": {Data: []byte(`package shop

platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
modules: web: {path: "sources/web", namespace: "shop"}
modules: "api-gw": {path: "sources/api", namespace: "shop"}
environments: dev: {revision: "HEAD", modules: web: enabled: false}
`)}}
	s := load.Load(spec, "sources", &diag.Log{})
	if s == nil {
		t.Fatal("the spec does not load")
	}
	out, err := Apply("shop", s.Data)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"package shop\n",
		`import "github.com/platc/platc/schemas"`,
		"\nplatform!: schemas.#Platform\n",
		"\nmodules?: [string]: ",
		`[!~"^(platform|charts|modules|environments|stacks|clients)$"]: error(`,
		"\nmodules: web?: ",
		"\nmodules: \"api-gw\"?: ",
		"\nenvironments: dev?: modules: web?: schemas.#ModuleSettings\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	f, err := parser.ParseFile(ApplyFile, out, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if !load.IsEditorFile(f) {
		t.Errorf("load does not take it for the file that applies the schema:\n%s", text)
	}
	// Without the spec's data: the fields of #Spec alone.
	bare, err := Apply("platform", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(bare), "The entries") || !strings.Contains(string(bare), "\nplatform!: schemas.#Platform\n") {
		t.Errorf("entries without a spec:\n%s", bare)
	}
}

// TestModule asks for the CUE language platc reads the spec with.
func TestModule(t *testing.T) {
	if m := string(Module()); !strings.Contains(m, "module: \"platform.local/spec@v0\"\n") || !strings.Contains(m, "language: version: \"v0.") {
		t.Errorf("module file:\n%s", m)
	}
}
