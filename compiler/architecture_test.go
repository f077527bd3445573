package compiler_test

// This test lives beside compiler/stages_test.go, not beside the docs
// harness of compiler/cli: the harness (TestDocs) runs the code blocks of
// every page, where this test reads one page as a claim about the code, and
// the claim it checks first is the import graph, whose rule stages_test.go
// enforces and whose list of stages it shares.

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	architecturePage = "../docs/architecture.md"
	repoRoot         = ".."
	modulePath       = "github.com/platc/platc"
	// architectureMax is the page's budget in bytes: a map is read whole.
	architectureMax = 15000
)

// TestArchitectureIsTrue holds docs/architecture.md to the code: its size,
// every repository path and test it names, its list of packages (every
// folder of Go files, nested modules included), its import graph of
// compiler/ (exactly the imports), and its recipes (each switch over module
// kinds or rendered kinds is named by the recipe of a new one).
func TestArchitectureIsTrue(t *testing.T) {
	data, err := os.ReadFile(architecturePage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if len(data) > architectureMax {
		t.Errorf("docs/architecture.md is %d bytes, over its budget of %d: say less", len(data), architectureMax)
	}
	goFiles := repoGoFiles(t)
	t.Run("paths", func(t *testing.T) { checkPaths(t, page) })
	t.Run("tests", func(t *testing.T) { checkTestNames(t, page, goFiles) })
	t.Run("packages", func(t *testing.T) { checkPackageList(t, page, goFiles) })
	t.Run("imports", func(t *testing.T) { checkImportGraph(t, page) })
	t.Run("kinds", func(t *testing.T) { checkKindSwitches(t, page, goFiles) })
}

// repoGoFiles lists the Go files of the repository, test files included,
// relative to its root and slash-separated: testdata and hidden folders
// aside, nested modules included.
func repoGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != repoRoot && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files: the walk missed the repository", len(files))
	}
	return files
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	pathLike = regexp.MustCompile(`^[\w.<>*-]+(/[\w.<>*-]*)+$`)
	mdLink   = regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`)
	testName = regexp.MustCompile(`^Test[A-Z]\w*$`)
)

// checkPaths requires every repository path the page names in a code span
// (a placeholder such as <command> matches anything) and every page it
// links to to exist. A span is a path when it has a slash and starts with
// an entry of the repository's root.
func checkPaths(t *testing.T, page string) {
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	for _, e := range entries {
		top[e.Name()] = true
	}
	placeholder := regexp.MustCompile(`<[^>]*>`)
	checked := 0
	for _, m := range codeSpan.FindAllStringSubmatch(page, -1) {
		p := m[1]
		first, _, _ := strings.Cut(p, "/")
		if !pathLike.MatchString(p) || !top[first] {
			continue
		}
		checked++
		pattern := filepath.Join(repoRoot, filepath.FromSlash(placeholder.ReplaceAllString(p, "*")))
		if found, _ := filepath.Glob(pattern); len(found) == 0 {
			t.Errorf("docs/architecture.md names %s, which the repository does not hold", p)
		}
	}
	if checked < 20 {
		t.Errorf("only %d paths checked: the page's paths are not read", checked)
	}
	for _, m := range mdLink.FindAllStringSubmatch(page, -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, "docs", filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("docs/architecture.md links to %s: %v", m[1], err)
		}
	}
}

// checkTestNames requires every test the page names to be a test function
// of the repository.
func checkTestNames(t *testing.T, page string, goFiles []string) {
	tests := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	for _, f := range goFiles {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllSubmatch(data, -1) {
			tests[string(m[1])] = true
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatch(page, -1) {
		if testName.MatchString(m[1]) && !tests[m[1]] {
			t.Errorf("docs/architecture.md names %s, which is no test of the repository", m[1])
		}
	}
}

// section returns the lines of the page under the heading title (of any
// level), up to the next heading of the same level or higher.
func section(t *testing.T, page, title string) []string {
	t.Helper()
	lines := strings.Split(page, "\n")
	for i, l := range lines {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || strings.TrimSpace(l[level:]) != title {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if lv := len(lines[j]) - len(strings.TrimLeft(lines[j], "#")); lv > 0 && lv <= level && strings.HasPrefix(lines[j][lv:], " ") {
				end = j
				break
			}
		}
		return lines[i+1 : end]
	}
	t.Fatalf("docs/architecture.md has no section %q", title)
	return nil
}

// checkPackageList requires a line of the Packages section for every
// folder of the repository that holds Go files, and none for another.
func checkPackageList(t *testing.T, page string, goFiles []string) {
	have := map[string]bool{}
	for _, f := range goFiles {
		have[filepath.ToSlash(filepath.Dir(filepath.FromSlash(f)))] = true
	}
	item := regexp.MustCompile("^- `([^`]+)`: ")
	listed := map[string]bool{}
	for _, l := range section(t, page, "Packages") {
		m := item.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if listed[m[1]] {
			t.Errorf("docs/architecture.md lists %s twice", m[1])
		}
		listed[m[1]] = true
		if !have[m[1]] {
			t.Errorf("docs/architecture.md lists the package %s, which the repository does not hold", m[1])
		}
	}
	for _, dir := range slices.Sorted(mapKeys(have)) {
		if dir == "." {
			t.Errorf("the repository's root holds Go files; docs/architecture.md has no line for them")
		} else if !listed[dir] {
			t.Errorf("%s has no line in docs/architecture.md's list of packages: say what it does and what it does not", dir)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkImportGraph compares the page's graph, the code block after the
// marker that names this file, with what each package under compiler/
// imports of the others (test files aside), edge for edge; and the page's
// line of stages with the order of stages_test.go.
func checkImportGraph(t *testing.T, page string) {
	if want := strings.Join(stages, " → "); !strings.Contains(page, "\n"+want+"\n") {
		t.Errorf("docs/architecture.md does not show the stages as the line %q", want)
	}
	lines := strings.Split(page, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "<!-- doc:") && strings.Contains(l, "compiler/architecture_test.go") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "```") {
			start = i + 2
			break
		}
	}
	if start < 0 {
		t.Fatal("docs/architecture.md has no import graph: a code block after a marker that names compiler/architecture_test.go")
	}
	drawn := map[string][]string{}
	for _, l := range lines[start:] {
		if strings.HasPrefix(l, "```") {
			break
		}
		from, to, ok := strings.Cut(l, "->")
		from = strings.TrimSpace(from)
		if !ok || from == "" {
			t.Errorf("docs/architecture.md: %q in the import graph is not a line \"a -> b c\"", l)
			continue
		}
		if _, dup := drawn[from]; dup {
			t.Errorf("docs/architecture.md draws %s's imports twice", from)
		}
		drawn[from] = strings.Fields(to)
	}

	actual := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(p, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		name := graphName(filepath.ToSlash(p))
		actual[name] = []string{}
		for _, imp := range pkg.Imports {
			if imp == modulePath+"/compiler" || strings.HasPrefix(imp, modulePath+"/compiler/") {
				actual[name] = append(actual[name], graphName(strings.TrimPrefix(strings.TrimPrefix(imp, modulePath+"/compiler"), "/")))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(actual) < 10 {
		t.Fatalf("read %d packages under compiler/: the walk missed them", len(actual))
	}
	for _, pkg := range slices.Sorted(mapKeys(actual)) {
		imports, ok := drawn[pkg]
		if !ok {
			t.Errorf("the import graph of docs/architecture.md has no line for %s: add \"%s -> %s\"", pkg, pkg, strings.Join(actual[pkg], " "))
			continue
		}
		for _, imp := range actual[pkg] {
			if !slices.Contains(imports, imp) {
				t.Errorf("the import graph of docs/architecture.md misses %s -> %s, which the code has", pkg, imp)
			}
		}
		for _, imp := range imports {
			if !slices.Contains(actual[pkg], imp) {
				t.Errorf("the import graph of docs/architecture.md draws %s -> %s, which the code does not have", pkg, imp)
			}
		}
	}
	for pkg := range drawn {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("the import graph of docs/architecture.md draws %s, which is no package under compiler/", pkg)
		}
	}
}

// graphName is a package's name in the graph: its path under compiler/, or
// "compiler" for the root package.
func graphName(rel string) string {
	if rel == "" || rel == "." {
		return "compiler"
	}
	return rel
}

// A kindSwitch is a switch over kinds, placed by its file and function.
type kindSwitch struct{ file, fn string }

// checkKindSwitches requires each switch over the kind table's columns
// (cases naming two or more constants of model.Syncs, Deploys,
// DirectApply or any other column of an enum type), outside compiler/model,
// which holds the table, to be named by the recipe of a new module kind;
// and each switch or list over two or more kinds of object platc renders
// (the literal kinds render, rgd and argocd set) to be named by the recipe
// of a new output kind. A recipe
// names one as a line with its file and its function, and each
// "`file.go`: `function`" it names must be a function of that file.
func checkKindSwitches(t *testing.T, page string, goFiles []string) {
	columns := kindColumnConstants(t)
	outputs := renderedKinds(t, goFiles)
	var moduleSwitches, outputSwitches []kindSwitch
	fset := token.NewFileSet()
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(repoRoot, filepath.FromSlash(f)), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		model := importName(file, modulePath+"/compiler/model", "model")
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SwitchStmt:
					// The values its cases name: two or more make a switch
					// over kinds, one a test of one kind among others.
					column, output := map[string]bool{}, map[string]bool{}
					for _, c := range n.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							ast.Inspect(e, func(x ast.Node) bool {
								switch x := x.(type) {
								case *ast.SelectorExpr:
									if id, ok := x.X.(*ast.Ident); ok && model != "" && id.Name == model && columns[x.Sel.Name] {
										column[x.Sel.Name] = true
									}
								case *ast.BasicLit:
									if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && outputs[s] {
										output[s] = true
									}
								}
								return true
							})
						}
					}
					if len(column) >= 2 && !strings.HasPrefix(f, "compiler/model/") {
						moduleSwitches = append(moduleSwitches, kindSwitch{f, fn.Name.Name})
					}
					if len(output) >= 2 {
						outputSwitches = append(outputSwitches, kindSwitch{f, fn.Name.Name})
					}
				case *ast.CompositeLit:
					if arr, ok := n.Type.(*ast.ArrayType); ok {
						if id, ok := arr.Elt.(*ast.Ident); ok && id.Name == "string" {
							named := 0
							for _, e := range n.Elts {
								if lit, ok := e.(*ast.BasicLit); ok {
									if s, err := strconv.Unquote(lit.Value); err == nil && outputs[s] {
										named++
									}
								}
							}
							if named >= 2 {
								outputSwitches = append(outputSwitches, kindSwitch{f, fn.Name.Name})
							}
						}
					}
				}
				return true
			})
		}
	}
	if len(moduleSwitches) == 0 || len(outputSwitches) == 0 {
		t.Fatalf("found %d switches over module kinds and %d over rendered kinds: the test reads the wrong files", len(moduleSwitches), len(outputSwitches))
	}
	checkRecipe(t, section(t, page, "A new module kind"), "module kind", moduleSwitches)
	checkRecipe(t, section(t, page, "A new output kind (an object platc renders)"), "output kind", outputSwitches)
}

// checkRecipe requires each switch to be named on a line of the recipe
// (its file and its function as code spans), and each function the recipe
// names after a file to be declared there.
func checkRecipe(t *testing.T, recipe []string, what string, switches []kindSwitch) {
	for _, s := range switches {
		if !slices.ContainsFunc(recipe, func(l string) bool {
			return strings.Contains(l, "`"+s.file+"`") && strings.Contains(l, "`"+s.fn+"`")
		}) {
			t.Errorf("%s: %s switches over kinds, and the recipe of a new %s in docs/architecture.md does not name it: add \"`%s`: `%s`\"", s.file, s.fn, what, s.file, s.fn)
		}
	}
	named := regexp.MustCompile("`([\\w/.-]+\\.go)`: `(\\w+)`")
	for _, l := range recipe {
		for _, m := range named.FindAllStringSubmatch(l, -1) {
			data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(m[1])))
			if err != nil {
				continue // checkPaths reports it
			}
			if !regexp.MustCompile(`(?m)^func (\([^)]*\) )?` + m[2] + `[\[(]`).Match(data) {
				t.Errorf("the recipe of a new %s in docs/architecture.md names %s in %s, which declares no such function", what, m[2], m[1])
			}
		}
	}
}

// importName is the name file gives the package path, or "" where it does
// not import it.
func importName(file *ast.File, path, name string) string {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return name
		}
	}
	return ""
}

// kindColumnConstants returns the constants of the enum types of
// model.KindInfo's columns, read from compiler/model's source.
func kindColumnConstants(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "model", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range pkgs {
		for _, f := range p.Files {
			files = append(files, f)
		}
	}
	enums := map[string]bool{} // the named types of the columns
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "KindInfo" {
				for _, fld := range ts.Type.(*ast.StructType).Fields.List {
					if id, ok := fld.Type.(*ast.Ident); ok && id.Name != "string" && id.Name != "bool" {
						enums[id.Name] = true
					}
				}
			}
			return true
		})
	}
	consts := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			typ := ""
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				} else if vs.Type != nil || len(vs.Values) > 0 {
					typ = ""
				}
				if enums[typ] {
					for _, n := range vs.Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	if len(enums) < 3 || len(consts) < 10 {
		t.Fatalf("read %d enum columns of KindInfo and %d constants: the test reads the wrong source", len(enums), len(consts))
	}
	return consts
}

// renderedKinds returns the kinds of object platc renders by name: the
// literals of Set("kind", "...") in render, rgd and argocd.
func renderedKinds(t *testing.T, goFiles []string) map[string]bool {
	t.Helper()
	set := regexp.MustCompile(`Set\("kind", "(\w+)"\)`)
	kinds := map[string]bool{}
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") || !(strings.HasPrefix(f, "compiler/render/") || strings.HasPrefix(f, "compiler/rgd/") || strings.HasPrefix(f, "compiler/argocd/")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range set.FindAllSubmatch(data, -1) {
			kinds[string(m[1])] = true
		}
	}
	for _, k := range []string{"Application", "AppProject", "ResourceGraphDefinition"} {
		if !kinds[k] {
			t.Fatalf("render, rgd and argocd set no kind %q: the test reads the wrong source", k)
		}
	}
	return kinds
}
