package compiler_test

import (
	"go/parser"
	"go/token"
	"os"
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
	"argocd":    "model",
	"diag":      "",
	"kro":       "",
	"manifests": "",
	"object":    "",
	"upstream":  "",
	"validate":  "",
}

// TestStagesImportOnlyEarlierStages reads the imports of every stage and
// helper package (test files aside) and requires that no stage imports a
// later one, and no helper a stage past the one it may use: data flows one
// way through the pipeline.
func TestStagesImportOnlyEarlierStages(t *testing.T) {
	const module = "github.com/platc/platc/compiler/"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		pkg := e.Name()
		limit := len(stages)
		if i := slices.Index(stages, pkg); i >= 0 {
			limit = i
		} else if last, ok := helpers[pkg]; ok {
			limit = slices.Index(stages, last) + 1
		} else {
			continue // a command's package (cli, diff, explain, release): it may read every stage
		}
		for _, imp := range imports(t, pkg) {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if j := slices.Index(stages, dep); j >= limit && dep != pkg {
				t.Errorf("compiler/%s imports compiler/%s, a later stage: move what it needs earlier, or the code that needs it later", pkg, dep)
			}
		}
	}
	// The test reads the packages it is about.
	for _, s := range stages {
		if _, err := os.Stat(s); err != nil {
			t.Errorf("stage %s has no package: %v", s, err)
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
