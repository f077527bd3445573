package manifests

import (
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/platc/platc/compiler/diag"
)

// kustomizeMu serializes kustomize builds: krusty keeps process-wide
// state (kyaml's OpenAPI schema, which a kustomization's openapi field
// changes), so two builds must not run at once
// (https://github.com/kubernetes-sigs/kustomize/issues/4824).
var kustomizeMu sync.Mutex

// kustomizeRuns counts the kustomize builds of the process, for the tests
// of Cache.
var kustomizeRuns atomic.Int64

// defaultSchema is the OpenAPI schema version kyaml uses when no
// kustomization chose one.
var defaultSchema = openapi.GetSchemaVersion()

// resetSchema forgets the OpenAPI schema a kustomization chose. Kustomize
// keeps it for the next build of the process otherwise (a build without an
// openapi field does not reset a custom schema), while Argo CD runs each
// build in a new process. The default schema is kept, parsed once.
func resetSchema() {
	if openapi.GetSchemaVersion() != defaultSchema {
		openapi.ResetOpenAPI()
	}
}

// kustomize builds the kustomization in dir (kustomization is its file
// name) and reads the objects it yields.
func (b *builder) kustomize(fsys fs.FS, dir, kustomization string) {
	kfile := path.Join(dir, kustomization)
	resources, rfs, err := kustomizeWithOrigins(fsys, dir)
	if len(rfs.remote) > 0 || len(rfs.links) > 0 {
		b.problems = append(append(b.problems, rfs.remote...), rfs.links...)
		return
	}
	if err != nil && len(rfs.outside) > 0 {
		// Said in platc's words, not as the file kustomize did not find.
		b.problem(diag.Path, kfile, 0, "kustomize build reads %s, outside the repository: Argo CD builds a kustomization from the repository alone, and platc reads nothing outside it; move what it needs into the repository", quoteAll(rfs.outside))
		return
	}
	if err != nil {
		b.problem(diag.Kustomize, kfile, 0, "kustomize build fails: %s: fix the kustomization", oneLine(err.Error()))
		return
	}
	b.kustomizationDuplicates(fsys, kfile)
	for _, res := range resources {
		o := Object{
			APIVersion: res.GetApiVersion(),
			Kind:       res.GetKind(),
			Name:       res.GetName(),
			Namespace:  res.GetNamespace(),
			File:       originFile(res, dir, kfile),
		}
		if dups := diag.DuplicateKeys(res.RNode.YNode(), false); len(dups) > 0 {
			// kustomize build writes its objects out through a map,
			// which refuses a key set twice: the build fails.
			b.problems = append(b.problems, duplicateInBuild(fsys, o.File, dups[0]))
			continue
		}
		if msg := missing(o); msg != "" {
			b.problem(diag.Manifest, o.File, 0, "%s", msg)
			continue
		}
		b.objects = append(b.objects, o)
	}
}

// kustomizationDuplicates warns of the keys set twice in the
// kustomization file: kustomize reads it with sigs.k8s.io/yaml, which
// takes the last value.
func (b *builder) kustomizationDuplicates(fsys fs.FS, kfile string) {
	data, err := fs.ReadFile(fsys, kfile)
	if err != nil {
		return
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return
	}
	for _, d := range diag.DuplicateKeys(&doc, false) {
		b.problems = append(b.problems, Problem{ID: diag.DuplicateKey, File: kfile, Line: d.Line, Col: d.Col, Msg: diag.DuplicateMsg(d, "kustomize")})
	}
}

// duplicateInBuild is the problem of an object of a kustomize build that
// holds key d twice: kustomize build fails on it. It is placed in file,
// the object's origin, at the key set twice there where it is found
// (kustomize's own nodes keep the lines of the file they were read from
// only as long as no transformer rewrote them).
func duplicateInBuild(fsys fs.FS, file string, d diag.DupKey) Problem {
	p := Problem{ID: diag.Kustomize, File: file}
	if data, err := fs.ReadFile(fsys, file); err == nil {
		var found []diag.DupKey
		for doc, err := range Documents(data) {
			if err != nil {
				break
			}
			found = append(found, diag.DuplicateKeys(doc, false)...)
		}
		if i := slices.IndexFunc(found, func(fd diag.DupKey) bool { return fd.Key == d.Key }); i >= 0 {
			d, p.Line, p.Col = found[i], found[i].Line, found[i].Col
		}
	}
	p.Msg = fmt.Sprintf("key %s is set twice (first at line %d): kustomize build fails on an object that holds a key twice, so Argo CD cannot build the folder; remove one of them", d.Key, d.First)
	return p
}

// kustomizeWithOrigins builds dir with the origin annotations that say
// which file each object came from, and what the build read (rfs).
func kustomizeWithOrigins(fsys fs.FS, dir string) ([]*resource.Resource, *repoFS, error) {
	rfs := &repoFS{fsys: fsys, originsIn: dir}
	resources, err := runKustomize(rfs, dir)
	if err != nil && len(rfs.remote) == 0 {
		// The origin annotations can be what fails, on an object whose
		// metadata kustomize cannot annotate: build again exactly as Argo
		// CD would, for its outcome and its message.
		rfs = &repoFS{fsys: fsys}
		resources, err = runKustomize(rfs, dir)
	}
	return resources, rfs, err
}

// runKustomize runs krusty on dir with kustomize's default options, which
// are what Argo CD gets: it runs `kustomize build` with no flags unless
// kustomize.buildOptions is configured. That means
// LoadRestrictionsRootOnly (files only from the kustomization's folder and
// below; bases may be anywhere in the repository), no plugins (so no exec
// and no KRM functions), no Helm (helmCharts fails, as without
// --enable-helm), and no managed-by label.
//
// Kustomize is known to panic on some invalid input (see fluxcd's
// kustomize-controller, which recovers for that reason:
// https://github.com/fluxcd/kustomize-controller/pull/637, and e.g.
// https://github.com/kubernetes-sigs/kustomize/issues/4761), so a panic is
// turned into an error. Its few log.Fatal calls are on "cannot happen"
// paths and cannot be recovered from.
func runKustomize(rfs *repoFS, dir string) (res []*resource.Resource, err error) {
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	kustomizeRuns.Add(1)
	resetSchema()
	defer resetSchema()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("kustomize panicked: %v", r)
		}
	}()
	m, err := krusty.MakeKustomizer(options()).Run(rfs, filepath.FromSlash(path.Join(root, dir)))
	if err != nil {
		return nil, err
	}
	return m.Resources(), nil
}

// options are kustomize's defaults, those of `kustomize build` without
// flags, spelled out.
func options() *krusty.Options {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	opts.AddManagedbyLabel = false
	// Unspecified is what the kustomize CLI passes today: the legacy order
	// unless the kustomization sets sortOptions. The order does not matter
	// here (BuildRead sorts); with another value, kustomize logs a warning
	// for a kustomization that sets sortOptions.
	opts.Reorder = krusty.ReorderOptionUnspecified
	return opts
}

// originFile is the repository path of the file an object came from, as
// its origin annotation tells (a resource file, or the kustomization whose
// generator made it), else kfile.
func originFile(res *resource.Resource, dir, kfile string) string {
	origin, err := res.GetOrigin()
	if err != nil || origin == nil || origin.Repo != "" {
		return kfile
	}
	p := cmp.Or(origin.Path, origin.ConfiguredIn)
	if file := path.Join(dir, filepath.ToSlash(p)); p != "" && fs.ValidPath(file) {
		return file
	}
	return kfile
}

// withOrigins adds originAnnotations to the buildMetadata of a kustomization,
// so that kustomize annotates each object with the file it came from (BuildRead
// reads the annotation; it does not change names, hashes or anything else
// kustomize yields). It returns data unchanged when it cannot add it without
// changing anything else, checked by decoding both.
func withOrigins(data []byte) []byte {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return data
	}
	n := doc.Content[0]
	// kustomize reads a key set twice as its last value: so does the
	// kustomization written here.
	diag.DuplicateKeys(&doc, true)
	var want map[string]any
	if doc.Decode(&want) != nil || want == nil {
		return data
	}
	const option = types.OriginAnnotations
	var candidates [][]byte
	switch bm := lookup(n, "buildMetadata"); {
	case bm == nil:
		want["buildMetadata"] = []any{option}
		// Appending a key keeps the bytes that kustomize reads; it is
		// safe for a block mapping, as the check below confirms.
		if n.Style&yaml.FlowStyle == 0 {
			candidates = append(candidates, append(bytes.TrimRight(data, "\n"), []byte("\nbuildMetadata: ["+option+"]\n")...))
		}
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "buildMetadata"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: option}}})
	case bm.Kind == yaml.SequenceNode:
		if slices.ContainsFunc(bm.Content, func(item *yaml.Node) bool { return item.Value == option }) {
			return data
		}
		list, _ := want["buildMetadata"].([]any)
		want["buildMetadata"] = append(list, option)
		bm.Content = append(bm.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: option})
	default:
		return data // not a list: kustomize reports it
	}
	if out, err := yaml.Marshal(&doc); err == nil {
		candidates = append(candidates, out)
	}
	for _, c := range candidates {
		var got map[string]any
		if yaml.Unmarshal(c, &got) == nil && reflect.DeepEqual(got, want) {
			return c
		}
	}
	return data
}

// evalSymlinks is the noise kustomize puts before a missing path. Like
// every pattern of the package, it is compiled on first use, not at every
// process start.
var evalSymlinks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`evalsymlink failure on '[^']*' : (lstat )?`) })

// notFound matches kustomize's message for a resource that is neither a
// file nor a folder (once evalSymlinks is gone): it tries both, and says
// twice that the path does not exist.
var notFound = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`accumulation err='(accumulating resources from '[^']*': [^']*: no such file or directory)': must build at directory: not a valid directory: [^']*: no such file or directory`)
})

// oneLine makes a kustomize error one line: paths relative to the
// repository root, white space collapsed, no trailing period, and a missing
// resource said once, without the noise of how kustomize found out.
func oneLine(msg string) string {
	msg = strings.ReplaceAll(msg, filepath.FromSlash(root)+string(filepath.Separator), "")
	msg = strings.ReplaceAll(msg, root+"/", "")
	msg = strings.ReplaceAll(msg, root, ".")
	msg = strings.Join(strings.Fields(msg), " ")
	msg = evalSymlinks().ReplaceAllString(msg, "")
	msg = notFound().ReplaceAllString(msg, "$1")
	return strings.TrimRight(msg, ".")
}

// quoteAll quotes paths and joins them for a message.
func quoteAll(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = strconv.Quote(p)
	}
	return strings.Join(q, ", ")
}

// NeedsHelm reports whether p is a kustomization that does not build
// without --enable-helm (it inflates Helm charts), which Argo CD builds
// where its kustomize.buildOptions say so.
func NeedsHelm(p Problem) bool {
	return p.ID == diag.Kustomize && strings.Contains(p.Msg, "must specify --enable-helm")
}

// Kustomized is an object a kustomization yields, whole.
type Kustomized struct {
	Body map[string]any
	// File is the repository path of the file it came from, as Object's.
	File string
}

// Kustomize builds the kustomization in dir as BuildRead does (Argo CD's
// options, the repository alone) and returns the objects it yields,
// whole, in kustomize's order, or the problem that stopped it.
func Kustomize(fsys fs.FS, dir string) ([]Kustomized, *Problem) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, &Problem{ID: diag.IO, File: dir, Msg: fmt.Sprintf("cannot read folder %q: %v", dir, diag.PathCause(err))}
	}
	_, kustomization := sourceType(entries)
	if kustomization == "" {
		return nil, &Problem{ID: diag.Kustomize, File: dir, Msg: "holds no kustomization"}
	}
	kfile := path.Join(dir, kustomization)
	resources, rfs, err := kustomizeWithOrigins(fsys, dir)
	switch {
	case len(rfs.remote) > 0:
		return nil, &rfs.remote[0]
	case len(rfs.links) > 0:
		return nil, &rfs.links[0]
	case err != nil:
		return nil, &Problem{ID: diag.Kustomize, File: kfile, Msg: "kustomize build fails: " + oneLine(err.Error()) + ": fix the kustomization"}
	}
	out := make([]Kustomized, 0, len(resources))
	for _, res := range resources {
		file := originFile(res, dir, kfile)
		body, err := res.Map()
		if err != nil {
			return nil, &Problem{ID: diag.Kustomize, File: file, Msg: "kustomize yields an object it cannot read: " + oneLine(err.Error())}
		}
		if meta, ok := body["metadata"].(map[string]any); ok {
			if ann, ok := meta["annotations"].(map[string]any); ok {
				delete(ann, "config.kubernetes.io/origin")
				if len(ann) == 0 {
					delete(meta, "annotations")
				}
			}
		}
		out = append(out, Kustomized{Body: body, File: file})
	}
	return out, nil
}
