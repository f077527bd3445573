package charts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/ignore"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/charts/internal/engine"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/upstream"
)

// HelmVersion is the Helm whose SDK renders charts: the one Argo CD
// bundles (hack/tool-versions.sh, helm4_version).
const HelmVersion = upstream.Helm

// Chart is a chart loaded for rendering.
type Chart struct {
	// Digest is the sha256 digest of the archive, or of the files of a
	// chart folder (FolderDigest).
	Digest string
	helm   *chart.Chart
	// reads are the .Values paths of the chart and its subcharts, by
	// chart (readsOf).
	reads sync.Map
}

// Name is the chart's name, from its Chart.yaml.
func (c *Chart) Name() string { return c.helm.Name() }

// Version is the chart's version, from its Chart.yaml.
func (c *Chart) Version() string { return c.helm.Metadata.Version }

// DefaultValues is the chart's values.yaml as written, or nil.
func (c *Chart) DefaultValues() (name string, data []byte) {
	for _, f := range c.helm.Raw {
		if f.Name == chartutil.ValuesfileName {
			return f.Name, f.Data
		}
	}
	return "", nil
}

// Digest returns the "sha256:<hex>" digest of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LoadArchive loads a chart from its archive (.tgz), as Helm loads it,
// within maxChartSize for the chart and its subcharts together.
func LoadArchive(data []byte) (*Chart, error) {
	left := maxChartSize
	if err := checkArchiveSize(data, &left); err != nil {
		return nil, err
	}
	ch, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return &Chart{Digest: Digest(data), helm: ch}, nil
}

// LoadFolder loads the chart in folder dir of fsys as Helm loads a chart
// folder (pkg/chart/v2/loader.LoadDir of Helm): the files its
// .helmignore and Helm's defaults do not ignore, a UTF-8 byte order mark
// dropped. Its digest is FolderDigest's.
func LoadFolder(fsys fs.FS, dir string) (*Chart, error) {
	files, _, err := folderFiles(fsys, dir)
	if err != nil {
		return nil, err
	}
	if err := checkFolderSize(files); err != nil {
		return nil, err
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, explainYAML(dir, files, err)
	}
	return &Chart{Digest: FolderDigest(files), helm: ch}, nil
}

// FolderDigest is the digest of a chart folder's files: their names and
// contents, in name order.
func FolderDigest(files []*archive.BufferedFile) string {
	h := sha256.New()
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b *archive.BufferedFile) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range sorted {
		fmt.Fprintf(h, "%d %s %d\n", len(f.Name), f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

var utf8bom = []byte{0xEF, 0xBB, 0xBF}

// folderFiles are the files of the chart folder dir that Helm's loader
// reads, and the rules of its .helmignore.
func folderFiles(fsys fs.FS, dir string) ([]*archive.BufferedFile, *ignore.Rules, error) {
	rules := ignore.Empty()
	if data, err := fs.ReadFile(fsys, path.Join(dir, ignore.HelmIgnore)); err == nil {
		r, err := ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, nil, err
		}
		rules = r
	}
	rules.AddDefaults()
	var files []*archive.BufferedFile
	err := fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n := strings.TrimPrefix(strings.TrimPrefix(name, dir), "/")
		if n == "" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rules.Ignore(n, fi) {
				return fs.SkipDir
			}
			return nil
		}
		if rules.Ignore(n, fi) {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// Helm follows a link; Argo CD refuses a repository with one
			// that leaves it. platc follows one that stays inside, to a
			// file.
			if fi, err = followLink(fsys, name); err != nil {
				return err
			}
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (of type %s): a chart holds files and folders; remove it", name, fi.Mode().Type())
		}
		if fi.Size() > archive.MaxDecompressedFileSize {
			return fmt.Errorf("chart file %q is larger than the maximum file size %d", fi.Name(), archive.MaxDecompressedFileSize)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("error reading %s: %w", n, err)
		}
		files = append(files, &archive.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, utf8bom)})
		return nil
	})
	return files, rules, err
}

// followLink returns the file the symbolic link name of fsys leads to,
// or why it does not lead to one inside the repository.
func followLink(fsys fs.FS, name string) (fs.FileInfo, error) {
	target, err := fs.ReadLink(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s is a symbolic link that cannot be read: %v", name, err)
	}
	// As compiler/manifests.OutsideMsg says it (a link further on that
	// leaves is refused by the repository's file system, below).
	if to := path.Join(path.Dir(name), target); path.IsAbs(target) || strings.HasPrefix(target, `\`) || to == ".." || strings.HasPrefix(to, "../") {
		return nil, fmt.Errorf("%s is a symbolic link to %q, outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it", name, target)
	}
	fi, err := fs.Stat(fsys, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s is a symbolic link to %q, which does not exist: fix the link, or remove it", name, target)
	case err != nil:
		return nil, fmt.Errorf("%s is a symbolic link to %q, which cannot be read: %v", name, target, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a symbolic link to a folder (%q), which platc does not follow in a chart: copy the folder into the chart, or link its files one by one", name, target)
	}
	return fi, nil
}

// Request is what Argo CD's repo server passes to `helm template` for one
// Helm source of an Application (reposerver/repository/repository.go,
// helmTemplate, and util/helm/cmd.go, template, of Argo CD).
type Request struct {
	// Release is --name-template: the Application's name, or its
	// helm.releaseName.
	Release string
	// Namespace is --namespace: the destination namespace, or the
	// source's helm.namespace.
	Namespace string
	// KubeVersion is --kube-version, the cluster's Kubernetes version
	// ("1.33.0"); empty leaves Helm's default.
	KubeVersion string
	// APIVersions are the --api-versions the cluster serves, added to
	// Helm's built-in set.
	APIVersions []string
	// ValueFiles are the --values files, in order.
	ValueFiles []ValuesFile
	// ValuesObject is helm.valuesObject (or values) as YAML or JSON:
	// Argo CD writes it to a file it passes after every other.
	ValuesObject []byte
	// Parameters are helm.parameters: --set, or --set-string where
	// ForceString.
	Parameters []Parameter
	// SkipCRDs leaves out --include-crds; SkipSchemaValidation adds
	// --skip-schema-validation; SkipTests --skip-tests.
	SkipCRDs             bool
	SkipSchemaValidation bool
	SkipTests            bool
}

// ValuesFile is one values file: its name, for messages, and its bytes.
type ValuesFile struct {
	Name string
	Data []byte
}

// Parameter is one helm.parameters entry.
type Parameter struct {
	Name        string
	Value       string
	ForceString bool
}

// Outcome is what rendering a chart for one request gives: the objects, in
// the order `helm template` prints them, or Helm's error; and what the
// checks of values found.
type Outcome struct {
	// Error is Helm's message where `helm template` fails.
	Error string
	// Schema are the values the chart's values.schema.json (or a
	// subchart's) refuses; when any, Error is Helm's message for them.
	Schema []SchemaProblem
	// SchemaNote names the references of the schemas platc did not
	// follow (the rest was checked), or says why a schema was not checked.
	SchemaNote string
	// Unknown are the keys the user's values set that the chart's
	// values.yaml does not have and no template reads.
	Unknown []UnknownKey

	// heads are the objects' heads (Heads). objects are the objects; of
	// an outcome read from the cache, nil until Manifests decodes them
	// from bodies, their binary form, once: a warm vet reads thousands
	// of outcomes and judges most objects by their heads alone.
	heads   []Head
	objects []Manifest
	bodies  [][]byte
	decode  sync.Once
	err     error // of decoding bodies
	// transient is set where the render ran out of time, which depends
	// on the machine: such an outcome is not cached.
	transient bool
}

// Head is what a rendered object is, read without the rest of it: where
// it comes from, and its identity.
type Head struct {
	// Source, Hook and CRD are the Manifest's.
	Source    string
	Hook, CRD bool
	// APIVersion, Kind, Name, Namespace and GenerateName are the object's
	// ("" where it has none, or not a string).
	APIVersion, Kind, Name, Namespace, GenerateName string
	// Size is the bytes of the object's YAML document as rendered (0
	// where not known: an outcome made by NewOutcome), which bounds the
	// size of what it holds: verify measures a large one.
	Size int
}

// NewOutcome is an outcome of the given objects, for tests of what
// checks them.
func NewOutcome(objects ...Manifest) *Outcome {
	o := &Outcome{}
	for _, m := range objects {
		o.addObject(m)
	}
	return o
}

func (o *Outcome) addObject(m Manifest) {
	o.objects = append(o.objects, m)
	o.heads = append(o.heads, headOf(m))
}

func headOf(m Manifest) Head {
	h := Head{Source: m.Source, Hook: m.Hook, CRD: m.CRD}
	h.APIVersion, _ = m.Object["apiVersion"].(string)
	h.Kind, _ = m.Object["kind"].(string)
	if meta, ok := m.Object["metadata"].(map[string]any); ok {
		h.Name, _ = meta["name"].(string)
		h.Namespace, _ = meta["namespace"].(string)
		h.GenerateName, _ = meta["generateName"].(string)
	}
	return h
}

// Len is the number of rendered objects.
func (o *Outcome) Len() int { return len(o.heads) }

// Heads are the rendered objects' heads, in order; the caller must not
// change them.
func (o *Outcome) Heads() []Head { return o.heads }

// Manifests are the rendered objects, in the order `helm template` prints
// them; the caller must not change them. The error is that of an outcome
// read from the cache whose objects do not decode (the cache is damaged).
func (o *Outcome) Manifests() ([]Manifest, error) {
	o.decode.Do(func() {
		if o.bodies == nil {
			return
		}
		objects := make([]Manifest, len(o.bodies))
		for i, b := range o.bodies {
			h := o.heads[i]
			d := object.NewDecoder(b)
			obj, ok := d.Value().(map[string]any)
			if err := d.Done(); err != nil || !ok {
				o.err = fmt.Errorf("platc's cache holds a render of %s that does not decode: remove platc's cache folder (PLATC_CACHE, or platc in the user's cache folder: ~/.cache/platc on Linux)", h.Source)
				return
			}
			objects[i] = Manifest{Source: h.Source, Hook: h.Hook, CRD: h.CRD, Object: obj}
		}
		o.objects, o.bodies = objects, nil
	})
	return o.objects, o.err
}

// Manifest is one rendered object.
type Manifest struct {
	// Source is the template (or crds/ file) it comes from, as Helm's
	// "# Source:" line names it.
	Source string
	// Hook is set for a Helm hook (Argo CD maps it to a sync hook).
	Hook bool
	// CRD is set for a file of a chart's crds/ folder.
	CRD    bool
	Object map[string]any
}

// SchemaProblem is one value a chart's schema refuses.
type SchemaProblem struct {
	// Chart is the chart whose schema refuses it: "" for the chart
	// itself, else the path of subchart names.
	Chart []string
	// Path is where the value is, from the top of the user's values.
	Path    []string
	Message string
}

// UnknownKey is a values key the chart does not know.
type UnknownKey struct {
	Path []string
	// Suggest is the chart's key it probably means, or "".
	Suggest string
}

// Render renders ch for req as `helm template` of Helm does when
// Argo CD's repo server runs it (pkg/cmd/template.go and install.go,
// pkg/action/install.go RunWithContext and action.go renderResources,
// client only): values merged as pkg/cli/values.Options.MergeValues
// merges them, the chart's dependencies processed, values coalesced with
// the chart's defaults and checked against the schemas, templates rendered
// with no cluster (lookup returns nothing), NOTES.txt dropped, manifests
// sorted in install order, CRDs first unless skipped, hooks last. No code
// of the chart runs other than its templates: no post-renderer, no
// plugin, and a schema's $ref to a file or a URL is not followed (the
// values are checked against the rest of the schema: SchemaNote says so).
func Render(ch *Chart, req Request) *Outcome {
	out := &Outcome{}
	vals, err := mergeValues(req)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Unknown = unknownKeys(ch, vals)
	// Helm processes the dependencies of the chart it loaded for this
	// one render, in place (a disabled subchart removed, an alias
	// renamed): here a copy, since the chart loaded is rendered for
	// every request.
	if err := render(cloneChart(ch.helm), req, vals, out, renderBudget); err != nil {
		out.Error = shortMessage(err.Error())
		out.objects, out.heads = nil, nil
	}
	return out
}

// renderBudget bounds each render (engine.Budget): Helm bounds none of
// it but one define's include nested 1,000 times.
var renderBudget = engine.Budget{
	Depth:  1000,
	Output: 128 << 20,
	Time:   2 * time.Minute,
	Steps:  1_000_000,
}

// maxMessage is the most lines, and bytes, of Helm's message an outcome
// keeps: Helm's message for an include nested 1,000 times repeats each
// call.
const maxMessageLines, maxMessageBytes = 8, 2000

// shortMessage is msg cut to maxMessageLines lines and maxMessageBytes
// bytes, saying how much it leaves out.
func shortMessage(msg string) string {
	cut := len(msg)
	lines := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] == '\n' {
			if lines++; lines == maxMessageLines {
				cut = i
				break
			}
		}
	}
	cut = min(cut, maxMessageBytes)
	if cut == len(msg) {
		return msg
	}
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s ... (%d more bytes of Helm's message left out)", strings.TrimRight(msg[:cut], " \n"), len(msg)-cut)
}

// mergeValues is MergeValues of pkg/cli/values (Helm): every
// --values file in order, then --set, then --set-string. Argo CD passes
// parameters from a map, in no order; here they go in the order given.
func mergeValues(req Request) (map[string]any, error) {
	base := map[string]any{}
	files := req.ValueFiles
	if len(req.ValuesObject) > 0 {
		files = append(slices.Clip(files), ValuesFile{Name: "valuesObject", Data: req.ValuesObject})
	}
	for _, f := range files {
		current, err := loader.LoadValues(bytes.NewReader(f.Data))
		if err != nil {
			if line, col, msg, ok := diag.YAMLCheck(f.Data); ok && f.Name != "valuesObject" {
				return nil, fmt.Errorf("value file %s:%d:%d: %s", f.Name, line, col, msg)
			}
			return nil, fmt.Errorf("failed to parse %s: %w", f.Name, err)
		}
		base = loader.MergeMaps(base, current)
	}
	for _, p := range req.Parameters {
		if p.ForceString {
			continue
		}
		if err := strvals.ParseInto(p.Name+"="+p.Value, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, p := range req.Parameters {
		if !p.ForceString {
			continue
		}
		if err := strvals.ParseIntoString(p.Name+"="+p.Value, base); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	return base, nil
}

// notesFileSuffix is Helm's (pkg/action/action.go).
const notesFileSuffix = "NOTES.txt"

func render(ch *chart.Chart, req Request, vals map[string]any, out *Outcome, budget engine.Budget) error {
	// pkg/cmd/install.go, runInstall.
	switch ch.Metadata.Type {
	case "", "application":
	default:
		return fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
	}
	if req := ch.Metadata.Dependencies; len(req) > 0 {
		if err := checkDependencies(ch, req); err != nil {
			return fmt.Errorf("an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies: %w", err)
		}
	}
	// pkg/action/install.go, RunWithContext.
	if err := chartutil.ValidateReleaseName(req.Release); err != nil {
		return fmt.Errorf("release name check failed: release name %q: %w", req.Release, err)
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return fmt.Errorf("chart dependencies processing failed: %w", err)
	}
	caps := common.DefaultCapabilities.Copy()
	if req.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return fmt.Errorf("invalid kube version '%s': %w", req.KubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(slices.Clip(caps.APIVersions), req.APIVersions...)
	options := common.ReleaseOptions{Name: req.Release, Namespace: req.Namespace, Revision: 1, IsInstall: true}
	// The schemas are checked here, offline, as Helm checks them
	// (schema.go); the rest is Helm's.
	values, err := commonutil.ToRenderValuesWithSchemaValidation(ch, vals, options, caps, true)
	if err != nil {
		return err
	}
	if !req.SkipSchemaValidation {
		problems, note, msg := validateSchemas(ch, values["Values"].(common.Values))
		out.Schema, out.SchemaNote = problems, note
		if msg != "" {
			return errors.New("values don't meet the specifications of the schema(s) in the following chart(s):\n" + msg)
		}
	}
	// pkg/action/action.go, renderResources.
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", ch.Metadata.KubeVersion, caps.KubeVersion.Version)
	}
	// Helm's engine with no cluster (lookup returns an empty map),
	// within the budget.
	e := engine.Engine{Budget: budget}
	files, err := e.RenderWithContext(context.Background(), ch, values)
	if err != nil {
		if be, ok := errors.AsType[*engine.BudgetError](err); ok {
			out.transient = be.Transient
		}
		return err
	}
	maps.DeleteFunc(files, func(name, _ string) bool { return strings.HasSuffix(name, notesFileSuffix) })
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return err
	}
	if !req.SkipCRDs {
		for _, crd := range ch.CRDObjects() {
			if err := out.add(crd.Filename, string(crd.File.Data), false, true); err != nil {
				return err
			}
		}
	}
	for _, m := range manifests {
		if err := out.add(m.Name, m.Content, false, false); err != nil {
			return err
		}
	}
	// pkg/cmd/template.go: hooks follow, test hooks left out with
	// --skip-tests.
	for _, h := range hooks {
		if req.SkipTests && slices.Contains(h.Events, release.HookTest) {
			continue
		}
		if err := out.add(h.Path, h.Manifest, true, false); err != nil {
			return err
		}
	}
	return nil
}

// add reads the documents of a rendered manifest as Argo CD does
// (kube.SplitYAML: every document that is not empty is an object).
func (out *Outcome) add(source, content string, hook, crd bool) error {
	for _, doc := range splitDocuments(content) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return fmt.Errorf("%s: Argo CD cannot read the rendered manifest: %v", source, err)
		}
		if len(obj) == 0 {
			continue
		}
		out.addObject(Manifest{Source: source, Hook: hook, CRD: crd, Object: obj})
		out.heads[len(out.heads)-1].Size = len(doc)
	}
	return nil
}

// splitDocuments splits a YAML stream at its "---" lines.
func splitDocuments(s string) []string {
	var docs []string
	var cur strings.Builder
	for line := range strings.Lines(s) {
		if t := strings.TrimRight(line, " \t\r\n"); t == "---" || strings.HasPrefix(t, "--- ") {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

// cloneChart copies what chartutil.ProcessDependencies changes in a chart
// and its subcharts (their lists of dependencies, the dependencies of
// their metadata, their values); the files are shared.
func cloneChart(c *chart.Chart) *chart.Chart {
	n := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = slices.Clone(md.Dependencies)
		for i, d := range md.Dependencies {
			if d != nil {
				dc := *d
				md.Dependencies[i] = &dc
			}
		}
		n.Metadata = &md
	}
	deps := make([]*chart.Chart, len(c.Dependencies()))
	for i, d := range c.Dependencies() {
		deps[i] = cloneChart(d)
	}
	n.SetDependencies(deps...)
	return &n
}

// checkDependencies is pkg/action/install.go's CheckDependencies (Helm
// 4.2.1): every dependency of Chart.yaml must be in charts/.
func checkDependencies(ch *chart.Chart, reqs []*chart.Dependency) error {
	var missing []string
	for _, r := range reqs {
		if !slices.ContainsFunc(ch.Dependencies(), func(d *chart.Chart) bool { return d.Name() == r.Name }) {
			missing = append(missing, r.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
	}
	return nil
}

// explainYAML is err, Helm's error loading the chart folder dir of files,
// or, when a YAML file Helm reads as it loads (Chart.yaml, values.yaml,
// requirements.yaml, Chart.lock) has a syntax error, that error, placed
// in the file (its slash path from the repository root) and explained
// as diag.YAMLSyntax does.
func explainYAML(dir string, files []*archive.BufferedFile, err error) error {
	if !strings.Contains(err.Error(), "yaml: ") {
		return err
	}
	for _, f := range files {
		switch f.Name {
		case "Chart.yaml", "values.yaml", "requirements.yaml", "Chart.lock", "requirements.lock":
			if line, col, msg, ok := diag.YAMLCheck(f.Data); ok {
				return &diag.SyntaxError{Pos: diag.Pos{File: path.Join(dir, f.Name), Line: line, Col: col}, Msg: msg}
			}
		}
	}
	return err
}
