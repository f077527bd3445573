package compiler_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stages are the pipeline's stages in the order data flows through them
// (docs/architecture.md).
var stages = []string{"load", "model", "check", "rgd", "layers", "render", "verify", "emit"}

// helpers are the packages beside the stages, and the last stage each may
// import: they serve the stages, so they may not depend on a late one.
var helpers = map[string]string{
	"argocd":                 "model",
	"charts":                 "",
	"charts/internal/engine": "",
	"diag":                   "",
	"kro":                    "",
	"manifests":              "",
	"object":                 "",
	"upstream":               "",
	"validate":               "",
}

// commands are the packages above the pipeline, which a command runs: they
// may read every stage and helper, and nothing below them imports them.
// "." is package compiler itself, which runs the pipeline.
var commands = []string{".", "cli", "diff", "editor", "explain", "importer", "release", "report", "versions"}

// TestStagesImportOnlyEarlierStages reads the imports of every package
// under compiler/ (test files aside) and requires that no stage imports a
// later one, no helper a stage past the one it may use, and no stage or
// helper a command's package: data flows one way through the pipeline. A
// package the three lists do not name fails the test, so that a new one
// is placed on purpose.
func TestStagesImportOnlyEarlierStages(t *testing.T) {
	const module = "github.com/platc/platc/compiler"
	var pkgs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			if dir := filepath.ToSlash(filepath.Dir(path)); !slices.Contains(pkgs, dir) {
				pkgs = append(pkgs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		limit := len(stages)
		if i := slices.Index(stages, pkg); i >= 0 {
			limit = i
		} else if last, ok := helpers[pkg]; ok {
			limit = slices.Index(stages, last) + 1
		} else if !slices.Contains(commands, pkg) {
			t.Errorf("compiler/%s is neither a stage, a helper nor a command's package: add it to one of the lists of compiler/stages_test.go and to docs/architecture.md", pkg)
			continue
		}
		for _, imp := range imports(t, pkg) {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				if imp == module {
					dep = "."
				} else {
					continue
				}
			}
			switch {
			case dep == pkg:
			case slices.Contains(commands, dep) && !slices.Contains(commands, pkg):
				t.Errorf("compiler/%s imports compiler/%s, a command's package: what both need belongs in a stage or a helper", pkg, dep)
			case dep == "cli":
				t.Errorf("compiler/%s imports compiler/cli, the command line: only cmd/platc may", pkg)
			case slices.Index(stages, dep) >= limit:
				t.Errorf("compiler/%s imports compiler/%s, a later stage: move what it needs earlier, or the code that needs it later", pkg, dep)
			}
		}
	}
	// The test reads the packages it is about.
	for _, p := range slices.Concat(stages, slices.Collect(maps.Keys(helpers)), commands) {
		if !slices.Contains(pkgs, p) {
			t.Errorf("compiler/%s is listed in compiler/stages_test.go but has no package", p)
		}
	}
}

// imports returns what the non-test Go files of the folder dir import.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
