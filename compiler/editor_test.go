package compiler_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"
	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/editor"
	"github.com/platc/platc/compiler/load"
)

// TestGoldenWithEditorFiles compiles every golden case again with the
// files platc editor writes into its spec folder (the schema's module in
// cue.mod/, schema.cue applying it): platc reads the spec without them,
// so every case gives what it gives without them, byte for byte, its
// problems included. A case whose spec folder has no .cue file is left
// out: there is no spec to apply the schema to.
func TestGoldenWithEditorFiles(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			spec := filepath.Join(tmp, "sources")
			names, _ := filepath.Glob(filepath.Join(spec, "*.cue"))
			if len(names) == 0 {
				t.Skip("no spec files")
			}
			pkg := "platform"
			for _, n := range names {
				data, err := os.ReadFile(n)
				if err != nil {
					t.Fatal(err)
				}
				if f, err := parser.ParseFile(n, data, parser.PackageClauseOnly); err == nil && f.PackageName() != "" {
					pkg = f.PackageName()
					break
				}
			}
			var data *load.Value
			if s := load.Load(os.DirFS(tmp), "sources", &diag.Log{}); s != nil {
				data = s.Data
			}
			apply, err := editor.Apply(pkg, data)
			if err != nil {
				t.Fatal(err)
			}
			for name, content := range map[string][]byte{editor.ModuleFile: editor.Module(), editor.SchemaFile: editor.Schema(), editor.ApplyFile: apply} {
				p := filepath.Join(spec, filepath.FromSlash(name))
				if _, err := os.Stat(p); err == nil {
					t.Fatalf("the case has %s already", path.Join("sources", name))
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := goldenResultWith(t, tmp, compiler.Options{})
			want := readExpectations(t, dir)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("golden case %s differs with platc editor's files (-without +with):\n%s", filepath.Base(dir), diff)
			}
			if !strings.Contains(string(apply), "schemas.#Spec") && !strings.Contains(string(apply), "schemas.#Platform") {
				t.Errorf("%s applies no definition of the schema:\n%s", editor.ApplyFile, apply)
			}
		})
	}
}

// TestSampleWithEditorFiles renders the sample (sources/, clients/,
// charts/ if any) with the files platc editor writes, and without them:
// the same files, byte for byte, and the same problems.
func TestSampleWithEditorFiles(t *testing.T) {
	tmp := t.TempDir()
	for _, d := range []string{"sources", "clients"} {
		sub, err := fs.Sub(os.DirFS(".."), d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(tmp, d), sub); err != nil {
			t.Fatal(err)
		}
	}
	without := compiler.Compile(os.DirFS(tmp), compiler.Options{})
	s := load.Load(os.DirFS(tmp), "sources", &diag.Log{})
	if s == nil {
		t.Fatal("the sample does not load")
	}
	apply, err := editor.Apply("platform", s.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\nmodules: "inference-gateway"\?: +schemas\.#Module\n`).Match(apply) {
		t.Errorf("%s does not name the sample's module inference-gateway:\n%s", editor.ApplyFile, apply)
	}
	for name, content := range map[string][]byte{editor.ModuleFile: editor.Module(), editor.SchemaFile: editor.Schema(), editor.ApplyFile: apply} {
		p := filepath.Join(tmp, "sources", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	with := compiler.Compile(os.DirFS(tmp), compiler.Options{})
	if diff := cmp.Diff(without.Log.String(), with.Log.String()); diff != "" {
		t.Errorf("problems (-without +with):\n%s", diff)
	}
	files := func(r *compiler.Result) map[string]string {
		m := map[string]string{}
		for _, o := range r.Outputs {
			m[o.Path] = string(o.Data)
		}
		return m
	}
	if len(without.Outputs) == 0 {
		t.Fatal("the sample renders nothing")
	}
	if diff := cmp.Diff(files(without), files(with)); diff != "" {
		t.Errorf("rendered files (-without +with):\n%s", diff)
	}
}
