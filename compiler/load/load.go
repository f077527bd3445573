// Package load reads a platform spec: it reads the CUE files of the spec
// folder as plain data (straight from their bytes, or from their syntax
// as CUE parses it, where they are written as plain data, as most specs
// are, and through a CUE evaluation otherwise), and checks them against
// the embedded schema (schemas/platform.cue): first against the schema's
// shape (shape.go), which says only what CUE would, then, where that is
// not sure, by unifying them with it, reporting every syntax and schema
// problem with its file position.
//
// It does not interpret the spec: names, versions and references are checked
// by later stages on plain Go types. CUE values do not leave this package.
package load

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	cuebuild "cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/internal/cache"
	"github.com/platc/platc/schemas"
)

// MaxFileSize bounds a spec file. A spec is hand-written text; anything larger
// is almost certainly a mistake (a render or a binary in the wrong folder).
const MaxFileSize = 8 << 20

// Spec is a loaded platform spec.
type Spec struct {
	// Data is the spec as written when it fits the schema, and the spec
	// unified with #Spec when it does not: then the parts that do not fit
	// are not OK, and have been reported to the log. The schema
	// constrains and adds no value (it has no defaults: model applies
	// them), so a spec that fits it reads the same either way.
	Data *Value
	// Files are the spec files, slash-separated and relative to the
	// repository root, sorted.
	Files []string
	// Decls maps the spec path of each field written in the spec files
	// (such as modules.qdrant.values) to the position of its first label.
	// Once unified with the schema, CUE places a struct poorly; this is
	// where people wrote it.
	Decls map[string]diag.Pos
	// Literals are the string literals that hold a ${...} expression, by
	// spec path, for placing a problem inside one.
	Literals map[string]Literal

	check chan checked // the schema check Begin started, until Checked
	fits  bool         // what Checked said
}

// Load parses the .cue files directly in dir (slash-separated, relative to
// the root of fsys) and checks them against the spec schema. Problems go to
// log. It returns nil when the spec cannot be evaluated at all (no files,
// syntax errors); otherwise a Spec, whose Value may still hold schema errors.
func Load(fsys fs.FS, dir string, log *diag.Log) *Spec {
	s := Begin(fsys, dir, log)
	if s != nil {
		s.Checked()
	}
	return s
}

// Begin is Load, except that it returns as soon as the spec as written is
// read, and checks it against the schema on another goroutine: reading the
// spec and checking it run on two cores. The Spec's Data is the spec as
// written until Checked says it does not fit the schema.
func Begin(fsys fs.FS, dir string, log *diag.Log) *Spec {
	return BeginCached(fsys, dir, nil, log)
}

// BeginCached is Begin with a cache of the readings of specs that fit the
// schema: a spec whose files, folder and schema are those of the last
// spec of its folder the check found to fit (byte for byte) is not read,
// parsed, evaluated or checked again, and fits (storeReading). cache may
// be nil.
func BeginCached(fsys fs.FS, dir string, cache cache.Cache, log *diag.Log) *Spec {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		log.Reportf(diag.IO, diag.Pos{File: dir}, "", "reading the spec folder: %v: run platc in the repository root or pass -C", diag.PathCause(err))
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".cue") {
			names = append(names, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		log.Reportf(diag.SpecFiles, diag.Pos{File: dir}, "", "no .cue files: write the platform spec here (`platc schema` prints the spec language)")
		return nil
	}

	sources := make([][]byte, 0, len(names))
	ok := true
	for _, name := range names {
		data, good := readFile(fsys, name, log)
		ok = ok && good
		sources = append(sources, data)
	}
	if !ok {
		return nil
	}
	// The file that applies platc's schema for CUE's tools is no part
	// of the spec platc reads.
	names, sources, editor := withoutEditorFile(names, sources)
	if len(names) == 0 {
		log.Reportf(diag.SpecFiles, diag.Pos{File: dir}, "", "no .cue files but %s, which applies platc's schema for the editor: write the platform spec beside it (`platc schema` prints the spec language)", EditorFile)
		return nil
	}
	if editor != "" {
		checkSchemaCopy(fsys, dir, editor, log)
	}

	// A spec written as plain data is read straight from its bytes
	// where it is written in the common form (readPlain), and otherwise
	// from its syntax tree, which then goes to the schema check; any
	// other is built into a CUE value here, read, and then unified with
	// the schema on another goroutine, in the same context (one build; a
	// context is used by one goroutine at a time). Where an earlier run
	// kept the spec's reading (storeReading), that is read instead.
	check := make(chan checked, 1)
	var digest string
	if cache != nil {
		digest = readingDigest(dir, names, sources)
		if data, decls, lits, ok := cachedReading(cache, dir, digest); ok {
			check <- checked{ok: true}
			return &Spec{Data: data, Files: names, Decls: decls, Literals: lits, check: check}
		}
	}
	data, decls, lits, plain := readPlain(names, sources)
	var files []*ast.File // parsed, where readPlain did not read the spec
	var long []longList
	if !plain {
		if files, ok = parseFiles(names, sources, log); !ok || !checkPackages(files, log) {
			return nil
		}
		decls, lits = indexDecls(files)
		if traps(files, log).found > 0 {
			// Its warnings come from the syntax, which a cached
			// reading skips: a spec with a trap is not kept.
			cache = nil
		}
		var idx *index
		data, idx, plain = readSyntax(files)
		long = idx.long
		if !plain {
			cutConflicts(idx.cuts)
		}
	}
	// Data is read by the goroutines below while later stages read it
	// too: nothing changes a Value once read. The spec's reading is kept
	// when the check says the spec fits (then it has reported nothing),
	// before the verdict is sent: Checked waits for it, so that the run
	// does not end while it is written.
	verdict := func(c checked) checked {
		if c.ok && cache != nil {
			storeReading(cache, dir, digest, data, decls, lits)
		}
		return c
	}
	if plain {
		go func() {
			if specShape().fits(data) {
				check <- verdict(checked{ok: true})
				return
			}
			files, long := files, long
			if files == nil {
				// Read by readPlain: parsed for CUE's check now.
				var ok bool
				if files, ok = parseFiles(names, sources, log); !ok {
					check <- checked{}
					return
				}
				if hasLongList(data) {
					_, idx, _ := readSyntax(files)
					long = idx.long
				}
			}
			check <- verdict(checkSchema(dir, files, long, decls, log))
		}()
		return &Spec{Data: data, Files: names, Decls: decls, Literals: lits, check: check}
	}
	ctx := cuecontext.New()
	value, err := build(ctx, dir, files)
	if err != nil {
		// Reported as the check reports it.
		found := &diag.Log{}
		newReporter(ctx, found, decls, files).report(err)
		addCauses(log, found)
		return nil
	}
	data = fromCUE(value, true, decls)
	// The check unifies the value built here, in its context, once the
	// data is read from it: the spec is built once. The data is all the
	// schema sees of a spec whose fields are regular or hidden or
	// definitions, free of errors (see onlyRegularFields), which the
	// shape's check may then pass without CUE's unification.
	regular := onlyRegularFields(files)
	go func() {
		if AfterEvaluation != nil {
			defer AfterEvaluation()
		}
		if regular && value.Validate(cue.Concrete(true)) == nil && specShape().fits(data) {
			check <- verdict(checked{ok: true})
			return
		}
		check <- verdict(checkBuilt(ctx, value, files, decls, log))
	}()
	return &Spec{Data: data, Files: names, Decls: decls, Literals: lits, check: check}
}

// AfterEvaluation, when set, is called once the data of a spec that CUE
// evaluated is read and checked, when the evaluation's garbage (most of
// what the run had allocated by then) is dead: off the stages' path, on a
// goroutine of its own or at the end of the schema check's. cmd/platc
// sets it to gcpace.Collect; the stage itself never collects.
var AfterEvaluation func()

// Checked waits for the schema check that Begin started and says whether
// the spec fits the schema. If it does not, the problems have been
// reported, and Data becomes the spec unified with the schema. Later calls
// say the same again.
func (s *Spec) Checked() bool {
	if s.check != nil {
		c := <-s.check
		s.check = nil
		s.fits = c.ok
		if !c.ok && c.unified != nil {
			s.Data = c.unified
		}
	}
	return s.fits
}

// checked is the outcome of checkSchema.
type checked struct {
	ok      bool
	unified *Value // the spec unified with the schema, when not ok
}

// checkSchema builds the parsed files in a CUE context of its own, unifies
// them with #Spec and reports what does not fit, or why the spec does not
// build. long are the long lists of scalars of a plain-data spec (see
// shrinkLists).
func checkSchema(dir string, files []*ast.File, long []longList, decls map[string]diag.Pos, log *diag.Log) checked {
	ctx := cuecontext.New()
	found := &diag.Log{}
	defer addCauses(log, found)
	r := newReporter(ctx, found, decls, files)
	lists, misfits := r.shrinkLists(files, long)
	value, err := build(ctx, dir, files)
	if err != nil {
		r.report(err)
		return checked{}
	}
	return r.check(value, lists, misfits)
}

// checkBuilt is checkSchema of a spec built already, in ctx, from files:
// value is unified with #Spec in the same context, so that the spec is
// built once. ctx is the caller's no more.
func checkBuilt(ctx *cue.Context, value cue.Value, files []*ast.File, decls map[string]diag.Pos, log *diag.Log) checked {
	found := &diag.Log{}
	defer addCauses(log, found)
	return newReporter(ctx, found, decls, files).check(value, nil, false)
}

// newReporter returns a reporter of the problems of files against #Spec,
// compiled in ctx, into log.
func newReporter(ctx *cue.Context, log *diag.Log, decls map[string]diag.Pos, files []*ast.File) *reporter {
	schema := ctx.CompileBytes(schemas.PlatformCUE, cue.Filename(schemas.PlatformFile))
	if err := schema.Err(); err != nil {
		// The schema is ours and tested; this is a bug, not a user error.
		panic(fmt.Sprintf("platc: embedded schema does not compile: %v", err))
	}
	return &reporter{log: log, schema: schema.LookupPath(cue.MakePath(cue.Def("Spec"))), decls: decls, files: files, memo: map[string]schemaInfo{}}
}

// check unifies the built spec value with #Spec and reports what does not
// fit (lists and misfits are shrinkLists').
func (r *reporter) check(value cue.Value, lists []shrunkList, misfits bool) checked {
	unified := value.Unify(r.schema)
	if validate(r, unified) || misfits {
		data := fromCUE(unified, false, r.decls)
		restore(data, lists)
		return checked{unified: data}
	}
	return checked{ok: true}
}

// addCauses adds the schema's problems to log, but for those that follow
// from another: a required field reported missing beside an unknown
// field that is its misspelling (hots where host is required) is the
// same mistake, told once. The field meant is covered (diag.Log.Cover)
// whether the schema requires it or not: what later stages find wrong
// there (a module's namespace missing, a chart without a version) follows
// from the misspelling too, and is folded.
func addCauses(log, found *diag.Log) {
	misspelled := map[string]bool{} // spec paths of the fields meant
	for _, p := range found.Problems() {
		if _, rest, ok := strings.Cut(p.Msg, ": did you mean "); ok && p.ID == diag.UnknownField {
			if meant, err := strconv.Unquote(strings.TrimSuffix(rest, "?")); err == nil {
				misspelled[diag.JoinPath(diag.ParentPath(p.Path), meant)] = true
				log.Cover(diag.JoinPath(diag.ParentPath(p.Path), meant))
			}
		}
	}
	for _, p := range found.Problems() {
		if misspelled[p.Path] && p.ID == diag.RequiredField {
			continue
		}
		log.Add(p)
	}
}

// build builds the parsed files of the spec folder dir into a value of
// the CUE context ctx.
func build(ctx *cue.Context, dir string, files []*ast.File) (cue.Value, error) {
	inst := cuebuild.NewContext().NewInstance(dir, nil)
	for _, f := range files {
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, err
		}
	}
	value := ctx.BuildInstance(inst)
	if err := value.Err(); err != nil && !value.Exists() {
		return cue.Value{}, err
	}
	return value, nil
}

// readFile reads a spec file, reporting why it cannot.
func readFile(fsys fs.FS, name string, log *diag.Log) ([]byte, bool) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		log.Reportf(diag.IO, diag.Pos{File: name}, "", "reading the spec: %v", diag.PathCause(err))
		return nil, false
	}
	if info.Size() > MaxFileSize {
		log.Reportf(diag.SpecFiles, diag.Pos{File: name}, "", "file is %d bytes, more than the %d a spec file may have: split it or move it out of the spec folder", info.Size(), MaxFileSize)
		return nil, false
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		log.Reportf(diag.IO, diag.Pos{File: name}, "", "reading the spec: %v", diag.PathCause(err))
		return nil, false
	}
	return data, true
}

// parseFiles parses the spec files names, whose bytes are sources,
// reporting the syntax errors of every one.
func parseFiles(names []string, sources [][]byte, log *diag.Log) ([]*ast.File, bool) {
	files := make([]*ast.File, 0, len(names))
	ok := true
	for i, name := range names {
		f, err := parser.ParseFile(name, sources[i], parser.ParseComments, parser.AllErrors)
		if err != nil {
			(&reporter{log: log}).report(err)
			ok = false
		}
		files = append(files, f)
	}
	return files, ok
}

// checkPackages requires one package name across the spec files, as CUE does
// for the files of one instance, and imports from the standard library only:
// platc loads a folder, not a CUE module.
func checkPackages(files []*ast.File, log *diag.Log) bool {
	ok := true
	first := files[0]
	for _, f := range files {
		if f.PackageName() != first.PackageName() {
			log.Reportf(diag.SpecFiles, cmp.Or(position(f.Pos()), diag.Pos{File: f.Filename}), "", "package %q differs from package %q in %s: give every spec file the same package clause", f.PackageName(), first.PackageName(), first.Filename)
			ok = false
		}
		for imp := range f.ImportSpecs() {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue // the parser has reported it
			}
			if p == SchemaImport {
				log.Reportf(diag.SpecFiles, position(imp.Pos()), "", "import of platc's schema in a file that holds more than the schema's definitions: platc reads the schema only in a file that applies it and holds nothing else, as platc editor writes %s; move the spec's fields to another file", EditorFile)
				ok = false
				continue
			}
			if elem, _, _ := strings.Cut(p, "/"); strings.Contains(elem, ".") {
				log.Reportf(diag.SpecFiles, position(imp.Pos()), "", "import %q is not in the CUE standard library: platc loads the spec folder alone, so keep the spec self-contained", p)
				ok = false
			}
		}
	}
	return ok
}

// maxDeclPath bounds the spec paths declarations are kept by: a field
// whose path is longer, and all below it, has no declaration (its
// problems are placed at its value, as those of a field a comprehension
// makes). Each path holds its parent's, so a long label over many fields
// made paths of the label's length times the fields (a spec's own paths
// are short); bounded, the paths of a spec take at most maxDeclPath bytes
// per field.
const maxDeclPath = 1024

// undeclared is the path childPath and elemPath give where a path would be
// longer than maxDeclPath, and below it: no spec path holds a NUL byte
// (JoinPath quotes a label that does).
const undeclared = "\x00"

// childPath is the spec path of the field label of the struct at path p,
// or undeclared.
func childPath(p, label string) string {
	if p == undeclared || len(p)+1+len(label) > maxDeclPath {
		return undeclared
	}
	if c := diag.JoinPath(p, label); len(c) <= maxDeclPath {
		return c
	}
	return undeclared
}

// elemPath is the spec path of the element i of the list at path p, or
// undeclared.
func elemPath(p string, i int) string {
	if p == undeclared {
		return undeclared
	}
	if e := p + "[" + strconv.Itoa(i) + "]"; len(e) <= maxDeclPath {
		return e
	}
	return undeclared
}

// indexDecls returns the position of the first label of every field written
// in the files, by spec path (up to maxDeclPath), and the string literals that hold a ${...}
// expression, by the same paths. A field may be written in several places
// (a module in one file, its environment's settings in another): CUE
// unifies them, and so does platc; a real clash is CUE's conflict, reported
// with every position, and here the first place written wins. Fields made
// by comprehensions or embeddings are not written out and have no position
// here, nor literals in them.
func indexDecls(files []*ast.File) (map[string]diag.Pos, map[string]Literal) {
	decls := map[string]diag.Pos{}
	lits := map[string]Literal{}
	var walk func(prefix string, ds []ast.Decl)
	var walkList func(prefix string, l *ast.ListLit)
	// value goes into what is written at path p.
	value := func(p string, v ast.Expr) {
		switch v := v.(type) {
		case *ast.StructLit:
			walk(p, v.Elts)
		case *ast.ListLit:
			walkList(p, v)
		case *ast.BasicLit:
			if v.Kind != token.STRING || !strings.Contains(v.Value, "${") {
				return
			}
			if _, seen := lits[p]; !seen {
				lits[p] = Literal{Pos: position(v.ValuePos), Raw: v.Value}
			}
		}
	}
	walk = func(prefix string, ds []ast.Decl) {
		for _, d := range ds {
			field, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			name, ok := labelName(field.Label)
			if !ok {
				continue
			}
			p := childPath(prefix, name)
			if p == undeclared {
				continue
			}
			if _, seen := decls[p]; !seen {
				decls[p] = position(field.Label.Pos())
			}
			value(p, field.Value)
		}
	}
	// The elements of a list written in place, as "path[i]", up to the
	// first that is not one value (an ellipsis or a comprehension, after
	// which the indices are not known from the syntax).
	walkList = func(prefix string, l *ast.ListLit) {
		for i, e := range l.Elts {
			switch e.(type) {
			case *ast.Ellipsis, *ast.Comprehension:
				return
			}
			p := elemPath(prefix, i)
			if p == undeclared {
				return
			}
			if _, seen := decls[p]; !seen {
				decls[p] = position(e.Pos())
			}
			value(p, e)
		}
	}
	for _, f := range files {
		walk("", f.Decls)
	}
	return decls, lits
}

func labelName(l ast.Label) (string, bool) {
	name, _, err := ast.LabelName(l)
	return name, err == nil && name != ""
}

// validate reports the schema errors of v and says whether it found any. CUE
// stops at the first error in a struct, which hides problems elsewhere in it,
// so a struct with errors is searched field by field, and its own error is
// kept only where no field explains it.
//
// An error makes its value bottom, and every struct and list above it: a
// bottom struct is searched without asking CUE for its errors first, since
// CUE gathers the errors of a value in time quadratic in their number
// (cuelang.org/go v0.17.1, cue/errors.go, Value.toErr, and
// cue/errors/errors.go, appendToList: each error is compared with those
// before it), which a spec with 10,000 unknown fields would pay at every
// level above them. A value that is not bottom may still be incomplete (a
// required field missing), which only Validate finds; on a spec that fits,
// the one Validate of the whole spec says so.
func validate(r *reporter, v cue.Value) bool {
	var err error
	if v.IncompleteKind() != cue.BottomKind {
		if err = v.Validate(cue.Concrete(true)); err == nil {
			return false
		}
	}
	found := false
	// A struct with an error anywhere below has kind bottom, so look for
	// fields whatever the kind.
	if it, ferr := v.Fields(); ferr == nil {
		for it.Next() {
			found = validate(r, it.Value()) || found
		}
	}
	if !found {
		if err == nil {
			err = v.Validate(cue.Concrete(true))
		}
		if err == nil {
			return false
		}
		r.report(err)
	}
	return true
}

// reporter turns CUE errors into problems.
type reporter struct {
	log    *diag.Log
	schema cue.Value           // #Spec, for what the schema says at a path
	decls  map[string]diag.Pos // for positions
	files  []*ast.File         // the spec's files, for what is written where

	memo    map[string]schemaInfo // by schemaKey
	written map[diag.Pos]written  // see writtenAt
	// closedBy are the fields a definition closes (traps), read from
	// files when a field is refused.
	closedBy map[string]string
}

// report turns CUE errors into problems. Positions in the embedded schema
// mean nothing to a user, so an error with no position in a spec file is
// placed at the nearest enclosing field written in one.
func (r *reporter) report(err error) {
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		if strings.HasSuffix(format, "errors in empty disjunction:") {
			continue // the errors that follow say what is wrong
		}
		labels := e.Path()
		if p, ok := r.mismatch(e, labels); ok {
			r.log.Add(p)
			continue
		}
		msg := fmt.Sprintf(format, elide(args)...)
		if strings.HasPrefix(format, "conflicting values") {
			msg += conflictPlaces(e)
		}
		p := userPos(e)
		path := specPath(labels)
		if !p.IsValid() {
			p = diag.Nearest(r.decls, path)
		}
		if msg == "field not allowed" && len(labels) > 0 {
			if closed, ok := r.closedDefinition(labels); ok {
				r.log.Reportf(diag.ClosedDefinition, p, path, "%s", closed)
				continue
			}
		}
		id, msg := r.explain(msg, labels)
		r.log.Add(diag.Problem{ID: id, Pos: p, Path: path, Msg: msg})
	}
}

// closedDefinition explains a field CUE refuses that the schema has
// there, in a struct a definition of the spec closes (#web & {...}, then
// modules.docs: path: "docs" elsewhere): the definition refused it, and
// CUE's "field not allowed" does not say so.
func (r *reporter) closedDefinition(labels []string) (string, bool) {
	field := unquoted(labels[len(labels)-1])
	if !slices.Contains(r.schemaInfo(labels[:len(labels)-1]).allowed, field) {
		return "", false // the schema refuses it too: a misspelling
	}
	if r.closedBy == nil {
		r.closedBy = traps(r.files, nil).closedBy
	}
	for at := specPath(labels[:len(labels)-1]); at != ""; at = diag.ParentPath(at) {
		if def, ok := r.closedBy[at]; ok {
			return fmt.Sprintf("unknown field %q: %s closes %s (a definition takes only the fields it declares, even from a struct unified with it, and %s declares no %s): add ... to %s to open it, or declare it as a hidden field, _%s, which does not close", field, def, at, def, field, def, strings.TrimPrefix(def, "#")), true
		}
	}
	return "", false
}

// explain rewrites CUE's terse messages into ones that say what to do,
// and says what kind of problem each is.
func (r *reporter) explain(msg string, p []string) (diag.ID, string) {
	switch {
	case msg == "field not allowed":
		field := unquoted(p[len(p)-1])
		msg = fmt.Sprintf("unknown field %q", field)
		// The candidates are the fields the schema declares there, a
		// handful, not the fields written (thousands, in a bad spec).
		if s := diag.Suggest(field, r.schemaInfo(p[:len(p)-1]).allowed); s != "" {
			return diag.UnknownField, msg + fmt.Sprintf(": did you mean %q?", s)
		}
		return diag.UnknownField, msg + ": remove it or check its spelling (`platc schema` lists the fields)"
	case msg == "field is required but not present":
		return diag.RequiredField, fmt.Sprintf("required field %q is missing: add it", unquoted(p[len(p)-1]))
	case strings.HasPrefix(msg, "incomplete value "):
		return diag.Incomplete, incomplete(strings.TrimPrefix(msg, "incomplete value "))
	}
	return diag.CUE, msg
}

// incomplete says what to write where the spec leaves a value open: a
// type (string), a bound (>=1), or a choice with no default ("a" | "b"),
// which a platform's data cannot be.
func incomplete(v string) string {
	if first, _, choice := strings.Cut(v, " | "); choice {
		return fmt.Sprintf("%s is a choice of values with no default, not a value: keep the one meant, or mark it the default with * (*%s | ...)", v, first)
	}
	return fmt.Sprintf("%s is a constraint, not a value: write a value that meets it", v)
}

// conflictPlaces says where the values of a conflict are written, when
// they are written in the spec (two files, or two places of one), so that
// both can be found.
func conflictPlaces(e errors.Error) string {
	var places []string
	for _, p := range userPositions(e) {
		if s := p.String(); !slices.Contains(places, s) {
			places = append(places, s)
		}
	}
	if len(places) < 2 {
		return ""
	}
	slices.Sort(places)
	return " (written at " + strings.Join(places, " and ") + "): a field written in several places must agree; change one, or keep one"
}

func userPos(e errors.Error) diag.Pos {
	candidates := append([]token.Pos{e.Position()}, e.InputPositions()...)
	for _, p := range candidates {
		if p.IsValid() && p.Filename() != schemas.PlatformFile {
			return position(p)
		}
	}
	return diag.Pos{}
}

// Pos returns the position of v in a spec file, or the zero Pos where v comes
// from the schema alone (a default) or from nowhere.
func Pos(v cue.Value) diag.Pos {
	p := v.Pos()
	if f, ok := v.Source().(*ast.Field); ok && f.Value != nil {
		// Read from the spec as written, a value made by one field has
		// that field as its source: point at the value, as CUE does for
		// the spec unified with the schema.
		p = f.Value.Pos()
	}
	if !p.IsValid() || p.Filename() == schemas.PlatformFile {
		return diag.Pos{}
	}
	return position(p)
}

func position(p token.Pos) diag.Pos {
	if !p.IsValid() {
		return diag.Pos{}
	}
	return diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
}
