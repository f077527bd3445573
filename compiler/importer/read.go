// Package importer turns the Argo CD objects of an existing repository
// (Applications and AppProjects, as written by hand) into a platc spec,
// and compares what that spec renders with those objects as Argo CD reads
// them. It reads only through the fs.FS it is given and writes nothing:
// the CLI writes the spec and renders it (compiler.Compile), and this
// package says, object by object, what came out equal, what differs and
// what could not be imported, and why.
package importer

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/object"
)

// Limits bound the work any input can cause.
const (
	// MaxFileSize is the largest file read; a larger one is skipped.
	MaxFileSize = 4 << 20
	// MaxFiles is the most files read under the paths.
	MaxFiles = 20000
)

// Object is one Argo CD object read from the repository.
type Object struct {
	Kind, Name, Namespace string
	File                  string // slash path from the repository root
	Line                  int    // of the document's first key
	Env                   string // the environment it was read for
	Root                  string // the folder (Root.Path) it was read under
	Body                  map[string]any
	// GeneratedBy names the ApplicationSet that generates it, expanded
	// offline; "" for an object written in the repository.
	GeneratedBy string
	// Manifest: it is not an Argo CD object but another a folder holds
	// (a Namespace beside the Applications), with no Body.
	Manifest bool
}

// Where is the object's file, and its line where known (not for an
// object built by kustomize).
func (o *Object) Where() string {
	return diag.Pos{File: o.File, Line: o.Line}.String()
}

// Skip is a file or document that was not read as an Argo CD object, and
// why.
type Skip struct {
	Env    string // the environment it was read for
	File   string
	Line   int // 0 for the whole file
	Col    int // 0 when unknown
	Kind   string
	Name   string
	Reason string
}

// Where is the skipped file, and its line and column where known.
func (s Skip) Where() string {
	return diag.Pos{File: s.File, Line: s.Line, Col: s.Col}.String()
}

// Root is one folder or file to import, as one environment.
type Root struct {
	Env  string // the environment's name
	Path string // slash path from the repository root
	// Projects reads the AppProjects of the folder alone: its files
	// that name none are not parsed.
	Projects bool
}

// Read reads the Argo CD Applications and AppProjects under each root of
// the repository fsys (folders are walked, sub-folders included; files
// ending in .yaml, .yml or .json are read), in a stable order. Every
// document that is not a whole Application or AppProject is a Skip with
// its reason: a kro ResourceGraphDefinition (a stack, written by hand), a
// file that is a Helm or Go template, a partial object (a kustomize
// patch), a file too large, a link. Objects of other kinds are read as
// Manifest, not imported: manifests beside the Applications are not
// platc's to import.
func Read(fsys fs.FS, roots []Root) ([]*Object, []Skip, error) {
	var rd reading
	files := 0
	for _, r := range roots {
		if isKustomization(fsys, r.Path) {
			// Built as Argo CD builds it: the Applications an
			// app-of-apps of this folder would create.
			rd.kustomization(fsys, r)
			continue
		}
		err := fs.WalkDir(fsys, r.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == r.Path {
					return err
				}
				rd.skips = append(rd.skips, Skip{Env: r.Env, File: p, Reason: "cannot be read: " + diag.PathCause(err).Error()})
				return nil
			}
			if d.IsDir() {
				if p != r.Path && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			if !yamlFile(p) {
				return nil
			}
			if !d.Type().IsRegular() {
				rd.skips = append(rd.skips, Skip{Env: r.Env, File: p, Reason: notRegular})
				return nil
			}
			if files++; files > MaxFiles {
				return fmt.Errorf("more than %d files under %s: import a smaller folder", MaxFiles, r.Path)
			}
			rd.file(fsys, p, r)
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", r.Path, diag.PathCause(err))
		}
	}
	return rd.objs, rd.skips, nil
}

const notRegular = "not a regular file (a link, or a device): import reads only regular files"

// reading is what Read has read so far.
type reading struct {
	objs  []*Object
	skips []Skip
}

func yamlFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

// isKustomization reports whether dir is a folder that holds a
// kustomization.
func isKustomization(fsys fs.FS, dir string) bool {
	entries, err := fs.ReadDir(fsys, dir)
	return err == nil && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !e.IsDir() && manifests.IsKustomization(e.Name()) })
}

// kustomization reads the Argo CD objects the kustomization of a root
// yields.
func (rd *reading) kustomization(fsys fs.FS, r Root) {
	built, problem := manifests.Kustomize(fsys, r.Path)
	if problem != nil {
		// As it does not build offline (a Helm chart it inflates, a
		// remote base), its own files are read instead.
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: problem.File, Line: problem.Line, Reason: problem.Msg + "; its own files are read instead"})
		rd.folderFiles(fsys, r)
		return
	}
	for _, k := range built {
		rd.argoObject(k.Body, k.File, 0, r)
	}
}

// folderFiles reads the files of a root's folder, not of its
// sub-folders.
func (rd *reading) folderFiles(fsys fs.FS, r Root) {
	entries, err := fs.ReadDir(fsys, r.Path)
	if err != nil {
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: r.Path, Reason: "cannot be read: " + diag.PathCause(err).Error()})
		return
	}
	for _, e := range entries {
		p := path.Join(r.Path, e.Name())
		switch {
		case e.IsDir(), manifests.IsKustomization(e.Name()), !yamlFile(p):
		case !e.Type().IsRegular():
			rd.skips = append(rd.skips, Skip{Env: r.Env, File: p, Reason: notRegular})
		default:
			rd.file(fsys, p, r)
		}
	}
}

// argoObject reads a document of root r as an Application or AppProject: an
// Argo CD object it cannot import is a Skip, another object is read as a
// Manifest where it names its kind and name.
func (rd *reading) argoObject(body map[string]any, file string, line int, r Root) {
	apiVersion, kind := str(body["apiVersion"]), str(body["kind"])
	name, ns := str(object.Lookup(body, "metadata", "name")), str(object.Lookup(body, "metadata", "namespace"))
	switch {
	case apiVersion == "kro.run/v1alpha1" && kind == "ResourceGraphDefinition":
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: file, Line: line, Kind: kind, Name: name,
			Reason: "a kro ResourceGraphDefinition: import writes Argo CD's objects; write it as a stack of the spec (platc renders its RGD)"})
		return
	case !strings.HasPrefix(apiVersion, "argoproj.io/") && (apiVersion == "" || kind == ""):
		return
	case !strings.HasPrefix(apiVersion, "argoproj.io/") || kind != "Application" && kind != "AppProject" && kind != "ApplicationSet":
		// Another object, which only an app-of-apps of its folder
		// delivers.
		if name != "" {
			rd.objs = append(rd.objs, &Object{Kind: kind, Name: name, File: file, Line: line, Env: r.Env, Root: r.Path, Manifest: true})
		}
		return
	}
	// An ApplicationSet is expanded by Build, where the repository is
	// known.
	if reason := partial(kind, body); kind != "ApplicationSet" && reason != "" {
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: file, Line: line, Kind: kind, Name: name, Reason: reason})
		return
	}
	rd.objs = append(rd.objs, &Object{Kind: kind, Name: name, Namespace: ns, File: file, Line: line, Env: r.Env, Root: r.Path, Body: body})
}

// file reads the documents of one file of the root r.
func (rd *reading) file(fsys fs.FS, name string, r Root) {
	f, err := fsys.Open(name)
	if err != nil {
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: name, Reason: "cannot be read: " + diag.PathCause(err).Error()})
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: name, Reason: "cannot be read: " + diag.PathCause(err).Error()})
		return
	}
	if len(data) > MaxFileSize {
		rd.skips = append(rd.skips, Skip{Env: r.Env, File: name, Reason: fmt.Sprintf("larger than %d MiB: not read", MaxFileSize>>20)})
		return
	}
	if r.Projects && !bytes.Contains(data, []byte("AppProject")) {
		return
	}
	// A file without an Argo CD or kro object is read for the other
	// objects of a folder an app-of-apps syncs, and is not reported.
	quiet := !bytes.Contains(data, []byte("argoproj.io")) && !bytes.Contains(data, []byte("kro.run"))
	const templateReason = "a template ({{ }}), not plain YAML: import the objects it renders"
	isTemplate := bytes.Contains(data, []byte("{{"))
	for doc, err := range manifests.Documents(data) {
		if err != nil && quiet {
			return
		}
		if err != nil {
			line, col, msg := diag.YAMLSyntax(err, data)
			reason := "not YAML: " + msg
			if isTemplate {
				line, col, reason = 0, 0, templateReason
			}
			rd.skips = append(rd.skips, Skip{Env: r.Env, File: name, Line: line, Col: col, Reason: reason})
			return
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		node := doc.Content[0]
		timestampsAsText(node)
		var body map[string]any
		if err := node.Decode(&body); err != nil {
			if quiet {
				continue
			}
			reason := "not an object: " + oneLine(strings.TrimPrefix(err.Error(), "yaml: "))
			if isTemplate {
				reason = templateReason
			}
			rd.skips = append(rd.skips, Skip{Env: r.Env, File: name, Line: node.Line, Reason: reason})
			continue
		}
		rd.argoObject(body, name, node.Line, r)
	}
}

// unmarshal decodes YAML into v as kubectl and Argo CD read it
// (sigs.k8s.io/yaml): a date left as written (timestampsAsText).
func unmarshal(data []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind == 0 {
		return err
	}
	timestampsAsText(&doc)
	return doc.Decode(v)
}

// timestampsAsText makes the plain scalars of n that YAML 1.1 reads as
// timestamps (2025-04-01) strings, as written: kubectl and Argo CD read
// them so (sigs.k8s.io/yaml), where yaml.v3 makes them a time.
func timestampsAsText(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" && n.Style&yaml.TaggedStyle == 0 {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		timestampsAsText(c)
	}
}

// partial says why an Application or AppProject is not whole (a kustomize
// patch of one), or "".
func partial(kind string, body map[string]any) string {
	if str(object.Lookup(body, "metadata", "name")) == "" {
		return "has no metadata.name"
	}
	if kind == "AppProject" {
		return ""
	}
	spec, _ := body["spec"].(map[string]any)
	var missing []string
	if _, ok := spec["destination"].(map[string]any); !ok {
		missing = append(missing, "spec.destination")
	}
	_, src := spec["source"].(map[string]any)
	_, srcs := spec["sources"].([]any)
	if !src && !srcs {
		missing = append(missing, "spec.source")
	}
	if len(missing) > 0 {
		return "partial: no " + strings.Join(missing, " or ") + " (a kustomize patch? import the folder its kustomization builds)"
	}
	return ""
}

// oneLine is a parser's message on one line: its first error, and how
// many more there are.
func oneLine(s string) string {
	head, rest, _ := strings.Cut(s, "\n")
	var more []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			more = append(more, l)
		}
	}
	switch {
	case len(more) == 0:
		return head
	case len(more) == 1:
		return head + " " + more[0]
	}
	return fmt.Sprintf("%s %s (and %d more)", head, more[0], len(more)-1)
}
