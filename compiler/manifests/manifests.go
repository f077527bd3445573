// Package manifests builds the folder of a repo-path module offline, the way
// Argo CD would, and checks the Kubernetes objects it yields.
//
// A folder that holds a kustomization (kustomization.yaml, kustomization.yml
// or Kustomization) is built with kustomize's own library (krusty) and
// kustomize's default options, in memory, over the repository's fs.FS: no
// network, no plugins, no exec, and nothing outside the repository is read.
// Kustomize's messages are its own (the same as on disk, with paths relative
// to the repository root), made one line. Any other folder is read as Argo
// CD's directory source without recurse: the *.yaml, *.yml and *.json files
// at its top level.
//
// BuildRead reports what would make Argo CD fail (a kustomization that does not
// build, a file that is not YAML or JSON), and what it would sync as something
// else than a Kubernetes object, with the file and, where known, the line to
// blame. It is stricter than Argo CD in one way: Argo CD silently ignores a
// YAML file whose first document is not an object unless the file looks like a
// manifest, where BuildRead reports it. Check compares the objects of one
// Application with its destination namespace and with each other.
//
// It does not fetch remote kustomize bases or files (it reports them: the
// build must be reproducible offline), does not evaluate Jsonnet or render
// Helm charts (a folder Argo CD would treat so is reported), does not apply
// an Application's kustomize or directory options (images, name prefix,
// include and exclude globs, recurse), and does not validate objects against
// their schemas.
//
// Kustomize keeps process-wide state, so builds of kustomizations run one at a
// time, each starting from kustomize's default OpenAPI schema, as a fresh
// `kustomize build` would. BuildRead is safe for concurrent use.
package manifests

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/internal/cache"
)

// Object is one Kubernetes object a folder yields.
type Object struct {
	// APIVersion, Kind, Name and Namespace are the object's apiVersion,
	// kind, metadata.name and metadata.namespace (empty when not set).
	APIVersion, Kind, Name, Namespace string
	// File is the slash path, relative to the repository root, of the file
	// that declares the object: for a kustomization, the resource file it
	// came from (or the kustomization that generated it) when kustomize
	// tells us, else the kustomization file itself.
	File string
	// Line is the 1-based line of the object's first key in File, or 0 when
	// unknown (objects built by kustomize).
	Line int
}

// Where is the object's file, and its line where known: "file:line" or
// "file".
func (o Object) Where() string {
	return diag.Pos{File: o.File, Line: o.Line}.String()
}

// Problem is one finding about a folder.
type Problem struct {
	// ID is what kind of problem it is.
	ID diag.ID
	// File is the slash path, relative to the repository root, of the file
	// to blame; the folder itself when no file is.
	File string
	// Line is the 1-based line in File, or 0 when unknown.
	Line int
	// Col is the 1-based column in Line, or 0 when unknown.
	Col int
	// Msg says what is wrong and what to do: lower-case, no trailing
	// period.
	Msg string
}

// kustomizationNames are the file names that make a folder a kustomization,
// for Argo CD and for kustomize alike.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomization reports whether a file name (not a path) is one that
// makes a folder a kustomization: kustomization.yaml, kustomization.yml or
// Kustomization.
func IsKustomization(name string) bool {
	return slices.Contains(kustomizationNames, name)
}

// skipMarker is the text that makes Argo CD's directory source skip a file.
const skipMarker = "+argocd:skip-file-rendering"

// Built is what building a folder gave.
type Built struct {
	Objects  []Object
	Problems []Problem
	// Folders are the folders of the repository whose files the build
	// read or listed, from its root, sorted, none inside another: a commit
	// that changes no file under them builds the same. Nil where that is
	// not known: the build had problems, or read in a way it does not
	// record.
	Folders []string
}

// BuildRead builds the folder dir (a slash path from the root of fsys) the
// way Argo CD would, with kustomize or as a directory source (see the
// package comment).
//
// It returns the objects, sorted by file, line, kind and name, the problems,
// sorted, and the folders the build read (Built). The problems are: a
// kustomization that does not build (kustomize's own message, made one
// line), a kustomization that names a remote base or file, a file that is
// not valid YAML or JSON, a document that is not an object with apiVersion,
// kind and metadata.name. A List (any object whose items is a sequence, as
// Argo CD reads it) is expanded into its items; empty documents are skipped,
// and so are files holding Argo CD's "+argocd:skip-file-rendering" marker. A
// folder Argo CD would render as a Helm chart (a top-level file named
// *Chart.yaml) or that holds Jsonnet is a problem, since platc builds
// neither.
//
// cache, if not nil, keeps each folder's outcome for the next call, in this
// process or another, with what building it read (see Cache); it must serve
// fsys alone.
func BuildRead(fsys fs.FS, dir string, cache cache.Cache) Built {
	var b builder
	var reads []read
	known := false
	if e, ok := cached(cache, fsys, dir); ok {
		b.objects, b.problems, reads, known = e.Objects, e.Problems, e.Reads, true
	} else {
		rec := &recordingFS{fsys: fsys, seen: map[read]bool{}}
		b.build(rec, dir)
		reads, known = rec.Reads(), !rec.unsound
		if cache != nil && known {
			store(cache, dir, reads, b.objects, b.problems)
		}
	}
	slices.SortFunc(b.objects, compareObjects)
	slices.SortFunc(b.problems, compareProblems)
	out := Built{Objects: b.objects, Problems: slices.Compact(b.problems)}
	if known && !slices.ContainsFunc(out.Problems, func(p Problem) bool { return p.ID.Info().Severity == diag.Error }) {
		out.Folders = readFolders(reads)
	}
	return out
}

// readFolders are the folders whose files reads read or listed, none
// inside another. A look at a folder itself (the path check of each of
// its parents) reads no file: Git holds files, and a folder changes only
// through them.
func readFolders(reads []read) []string {
	var dirs []string
	for _, r := range reads {
		switch {
		case r.Op == opReadDir:
			dirs = append(dirs, r.Name)
		case r.Op == opReadFile:
			dirs = append(dirs, path.Dir(r.Name))
		case strings.HasPrefix(r.Saw, "d"):
			// A folder, looked at.
		default:
			// A file looked at (or looked for: one made there later
			// may change the build).
			dirs = append(dirs, path.Dir(r.Name))
		}
	}
	// Shortest first, so that a folder's parents are seen before it.
	slices.SortFunc(dirs, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
	})
	kept := map[string]bool{}
	var out []string
	for _, d := range slices.Compact(dirs) {
		if inside(d, kept) {
			continue
		}
		kept[d] = true
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// inside reports whether dir is one of folders or inside one.
func inside(dir string, folders map[string]bool) bool {
	if folders["."] {
		return true
	}
	for d := dir; d != "."; d = path.Dir(d) {
		if folders[d] {
			return true
		}
	}
	return false
}

type builder struct {
	objects  []Object
	problems []Problem
}

func (b *builder) problem(id diag.ID, file string, line int, format string, args ...any) {
	b.problems = append(b.problems, Problem{ID: id, File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (b *builder) build(fsys fs.FS, dir string) {
	if dir == "" || !fs.ValidPath(dir) {
		b.problem(diag.Path, dir, 0, "%q is not a folder of the repository: write a slash path relative to its root, without . or .. elements", dir)
		return
	}
	if link, target, outside := OutsideLink(fsys, dir); outside {
		b.problem(diag.Path, dir, 0, "%q %s", link, OutsideMsg(target))
		return
	}
	info, err := fs.Stat(fsys, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b.problem(diag.Missing, dir, 0, "folder %q does not exist: create it or fix the path", dir)
		return
	case err != nil:
		b.problem(diag.IO, dir, 0, "cannot read folder %q: %v", dir, err)
		return
	case !info.IsDir():
		b.problem(diag.Missing, dir, 0, "%q is a file: name the folder that holds the manifests", dir)
		return
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		b.problem(diag.IO, dir, 0, "cannot read folder %q: %v", dir, err)
		return
	}
	chart, kustomization := sourceType(entries)
	switch {
	case chart != "":
		b.problem(diag.Manifest, path.Join(dir, chart), 0, "a file named *Chart.yaml makes Argo CD render the folder as a Helm chart, which platc does not build from repository folders: declare a chart module, or rename the file")
	case kustomization != "":
		b.kustomize(fsys, dir, kustomization)
	default:
		b.directory(fsys, dir, entries)
	}
}

// sourceType is Argo CD's source type discovery: it walks the folder in
// lexical order and lets the last top-level file that matches win: a name
// ending in Chart.yaml makes it Helm, a kustomization name makes it
// Kustomize.
func sourceType(entries []fs.DirEntry) (chart, kustomization string) {
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if strings.HasSuffix(e.Name(), "Chart.yaml") {
			chart, kustomization = e.Name(), ""
		}
		if IsKustomization(e.Name()) {
			chart, kustomization = "", e.Name()
		}
	}
	return chart, kustomization
}

// IsHelmFolder reports whether Argo CD renders the folder dir of fsys
// with Helm (sourceType): package charts renders it, not Build.
func IsHelmFolder(fsys fs.FS, dir string) bool {
	entries, err := fs.ReadDir(fsys, dir)
	chart, _ := sourceType(entries)
	return err == nil && chart != ""
}

// ChartLocalDependencies are the folders of the repository that the
// chart in folder dir names as dependencies (a file:// repository in
// its Chart.yaml or requirements.yaml, relative to dir), sorted: Argo
// CD's repo server packs them into the chart's charts/ when it builds
// its dependencies (helm dependency build), so they are part of what it
// renders. A folder outside the repository is left out.
func ChartLocalDependencies(fsys fs.FS, dir string) []string {
	var dirs []string
	for _, name := range []string{"Chart.yaml", "requirements.yaml"} {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			continue
		}
		var deps struct {
			Dependencies []struct {
				Repository string `yaml:"repository"`
			} `yaml:"dependencies"`
		}
		if yaml.Unmarshal(data, &deps) != nil {
			continue
		}
		for _, d := range deps.Dependencies {
			p, ok := strings.CutPrefix(d.Repository, "file://")
			if !ok || strings.HasPrefix(p, "/") {
				continue
			}
			if full := path.Join(dir, p); fs.ValidPath(full) && full != "." && !slices.Contains(dirs, full) {
				dirs = append(dirs, full)
			}
		}
	}
	slices.Sort(dirs)
	return dirs
}

// directory reads the folder as Argo CD's directory source does: regular
// files at the top level whose names end in .yaml, .yml or .json (case
// matters), in lexical order.
func (b *builder) directory(fsys fs.FS, dir string, entries []fs.DirEntry) {
	for _, e := range entries {
		name := e.Name()
		file := path.Join(dir, name)
		ext := path.Ext(name)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".jsonnet" {
			continue
		}
		// A symbolic link is followed, as Argo CD does, unless it leaves
		// the repository, which Argo CD refuses. Argo CD reads regular
		// files only.
		if e.Type()&fs.ModeSymlink != 0 {
			if link, target, outside := OutsideLink(fsys, file); outside {
				b.problem(diag.Path, file, 0, "%s%s", linkVia(file, link), OutsideMsg(target))
				continue
			}
		}
		info, err := fs.Stat(fsys, file)
		if err != nil {
			b.problem(diag.IO, file, 0, "cannot read the file: %v: fix or remove it", diag.PathCause(err))
			continue
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			b.problem(diag.IO, file, 0, "cannot read the file: %v", err)
			continue
		}
		data = utf8Text(data)
		if bytes.Contains(data, []byte(skipMarker)) {
			continue
		}
		switch ext {
		case ".jsonnet":
			b.problem(diag.Manifest, file, 0, "a Jsonnet file, which Argo CD would evaluate and platc does not: write the objects as YAML, or add the %q marker to the file", skipMarker)
		case ".json":
			b.jsonFile(file, data)
		default:
			b.yamlObjects(file, data)
		}
	}
}

// linkVia is how a message names the link on the way to file: "" when it
// is file itself.
func linkVia(file, link string) string {
	if link == file {
		return ""
	}
	return fmt.Sprintf("the way to it, %q, ", link)
}

// utf8Text decodes data as Argo CD reads manifest files: UTF-8, or UTF-16
// when a byte order mark says so, without the byte order mark.
func utf8Text(data []byte) []byte {
	out, _, err := transform.Bytes(unicode.BOMOverride(unicode.UTF8.NewDecoder()), data)
	if err != nil {
		return data
	}
	return out
}

// jsonFile reads a .json file as Argo CD does, with encoding/json: one
// value, and a second one is a problem. The value is made a yaml.Node, with
// the lines, and read like a YAML document.
func (b *builder) jsonFile(file string, data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := jsonNode(dec, data)
	if err != nil {
		line := lineAt(data, dec.InputOffset())
		if syn, ok := err.(*json.SyntaxError); ok {
			line = lineAt(data, syn.Offset)
		}
		msg := err.Error()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			msg = "unexpected end of file"
		}
		b.problem(diag.Manifest, file, line, "invalid JSON: %s: fix the syntax", msg)
		return
	}
	if dec.More() {
		next := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
		b.problem(diag.Manifest, file, lineAt(data, int64(len(data)-len(next))), "more than one JSON value: Argo CD reads one object from each .json file: split the file, or write a List")
		return
	}
	b.rootObjects(file, root)
}

// jsonNode reads the next JSON value of dec as a yaml.Node. Of keys given
// twice, the last wins, as in encoding/json.
func jsonNode(dec *json.Decoder, data []byte) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	line := lineAt(data, dec.InputOffset())
	scalar := func(tag, value string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line}
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		if t == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for dec.More() {
			var key *yaml.Node
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.(string), Line: lineAt(data, dec.InputOffset())}
			}
			v, err := jsonNode(dec, data)
			if err != nil {
				return nil, err
			}
			switch {
			case key == nil:
				n.Content = append(n.Content, v)
			case lookup(n, key.Value) != nil:
				for i := 0; i < len(n.Content); i += 2 {
					if n.Content[i].Value == key.Value {
						n.Content[i+1] = v
					}
				}
			default:
				n.Content = append(n.Content, key, v)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return scalar("!!str", t), nil
	case json.Number:
		if _, err := t.Int64(); err == nil {
			return scalar("!!int", t.String()), nil
		}
		return scalar("!!float", t.String()), nil
	case bool:
		return scalar("!!bool", strconv.FormatBool(t)), nil
	default:
		return scalar("!!null", "null"), nil
	}
}

// lineAt is the 1-based line of byte offset in data.
func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// Documents yields the documents of a YAML stream in order; at a syntax
// error it yields the error (diag.YAMLSyntax places it) and stops.
func Documents(data []byte) iter.Seq2[*yaml.Node, error] {
	return func(yield func(*yaml.Node, error) bool) {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if err == io.EOF || !yield(&doc, err) || err != nil {
				return
			}
		}
	}
}

// yamlObjects reads the documents of a YAML stream as Argo CD does: empty
// documents are skipped, Lists are expanded. A document that is not an
// object is a problem; reading stops at the first syntax error.
func (b *builder) yamlObjects(file string, data []byte) {
	for doc, err := range Documents(data) {
		if err != nil {
			line, col, msg := diag.YAMLSyntax(err, data)
			b.problems = append(b.problems, Problem{ID: diag.Manifest, File: file, Line: line, Col: col, Msg: "invalid YAML: " + msg})
			break
		}
		// Argo CD reads a key set twice (sigs.k8s.io/yaml): the last
		// value wins.
		for _, d := range diag.DuplicateKeys(doc, true) {
			b.problems = append(b.problems, Problem{ID: diag.DuplicateKey, File: file, Line: d.Line, Col: d.Col, Msg: diag.DuplicateMsg(d, "Argo CD")})
		}
		root := doc
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) == 0 {
				continue
			}
			root = root.Content[0]
		}
		b.rootObjects(file, root)
	}
}

// rootObjects reads the objects of one document: none when it is empty,
// the items of a List, or the object it is.
func (b *builder) rootObjects(file string, root *yaml.Node) {
	root = resolve(root)
	if isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		b.problem(diag.Manifest, file, root.Line, "document is not a Kubernetes object: write a mapping with apiVersion, kind and metadata.name, or remove it")
		return
	}
	// Argo CD takes any object with a kind and a sequence of items for a
	// List, and skips one whose items are null (and that has no spec or
	// status).
	if items := lookup(root, "items"); items != nil && str(lookup(root, "kind")) != "" {
		switch {
		case items.Kind == yaml.SequenceNode:
			for _, item := range items.Content {
				b.object(file, item)
			}
			return
		case isNull(items) && lookup(root, "spec") == nil && lookup(root, "status") == nil:
			return
		}
	}
	b.object(file, root)
}

// object reads one Kubernetes object, or reports what it lacks.
func (b *builder) object(file string, n *yaml.Node) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		b.problem(diag.Manifest, file, n.Line, "list item is not a Kubernetes object: write a mapping with apiVersion, kind and metadata.name")
		return
	}
	meta := lookup(n, "metadata")
	o := Object{
		APIVersion: str(lookup(n, "apiVersion")),
		Kind:       str(lookup(n, "kind")),
		Name:       str(lookup(meta, "name")),
		Namespace:  str(lookup(meta, "namespace")),
		File:       file,
		Line:       n.Line,
	}
	if msg := missing(o); msg != "" {
		b.problem(diag.Manifest, file, n.Line, "%s", msg)
		return
	}
	b.objects = append(b.objects, o)
}

// missing says which of apiVersion, kind and metadata.name an object lacks,
// or "".
func missing(o Object) string {
	var lacks []string
	if o.APIVersion == "" {
		lacks = append(lacks, "apiVersion")
	}
	if o.Kind == "" {
		lacks = append(lacks, "kind")
	}
	if o.Name == "" {
		lacks = append(lacks, "metadata.name")
	}
	switch len(lacks) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("object has no %s: set it (every object needs apiVersion, kind and metadata.name)", lacks[0])
	}
	return fmt.Sprintf("object has no %s and %s: set them (every object needs apiVersion, kind and metadata.name)", strings.Join(lacks[:len(lacks)-1], ", "), lacks[len(lacks)-1])
}

// resolve follows an alias.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// lookup is the value of key in mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// str is the value of a string scalar, or "" for anything else: Kubernetes
// reads a number or a boolean where it wants a string as absent.
func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return ""
	}
	return n.Value
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func compareObjects(a, b Object) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.APIVersion, b.APIVersion),
	)
}

func compareProblems(a, b Problem) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		cmp.Compare(a.Msg, b.Msg),
	)
}
