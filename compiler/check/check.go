// Package check holds the semantic rules of a platform spec: names, pins,
// references, paths, pinning of customer environments and the module
// dependency graph. It reports every problem to the log and derives the
// facts later stages need (Info), so they are computed once. Shapes and
// types are load's job (the CUE schema); check produces no output.
package check

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/mod/semver"
	k8sversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
)

// Info is what checking derives from a spec for render.
type Info struct {
	// Waves is the Argo CD sync wave of each module, among the siblings of
	// the apps file that lists it.
	Waves map[string]int
	// Parent is the group delivering a module; none for top-level ones.
	Parent map[string]string
	// Definitions and Instances are the modules that deliver each stack's
	// ResourceGraphDefinition and instances, by stack name.
	Definitions, Instances map[string]*model.Module
	// Kustomizations are the path modules whose folder is a kustomization.
	Kustomizations map[string]bool
	// KustomizationDirs are the kustomization folders modules sync
	// (kustomize may read files outside them).
	KustomizationDirs map[string]bool
	// DirectoryFiles are the files Argo CD reads of a path module with
	// directory options, for the direct-apply plan.
	DirectoryFiles map[string][]string
	// SourceFiles are the same for a module's extra folder sources.
	SourceFiles map[*model.ExtraSource][]string
	// Charts are the path modules whose folder Argo CD renders with Helm
	// (it holds a Chart.yaml).
	Charts map[string]bool
	// ChartDependencies are the file:// dependency folders of the chart
	// in a module's folder, by that folder
	// (manifests.ChartLocalDependencies): Argo CD renders them too.
	ChartDependencies map[string][]string
	// StackOrder is every stack, each after the stacks it wires from: the
	// order in which an instance's wired fields can be filled.
	StackOrder []string
}

// Check applies every rule to spec; fsys is the repository. The returned
// facts are complete only when the log holds no errors.
func Check(spec *model.Spec, fsys fs.FS, log *diag.Log) *Info {
	c := &checker{spec: spec, fsys: fsys, log: log, Info: &Info{Kustomizations: map[string]bool{}, KustomizationDirs: map[string]bool{}, DirectoryFiles: map[string][]string{}, SourceFiles: map[*model.ExtraSource][]string{}, Charts: map[string]bool{}, ChartDependencies: map[string][]string{}}}
	c.platform()
	for _, ch := range spec.Charts {
		c.chart(ch)
	}
	for _, m := range spec.Modules {
		c.module(m)
	}
	c.Parent = c.groups()
	c.Definitions, c.Instances = c.stacks()
	c.StackOrder = c.stackOrder()
	c.Waves = c.waves(c.Parent, c.Definitions)
	for _, env := range spec.Environments {
		c.environment(env)
	}
	c.applicationNames()
	c.kroGates()
	return c.Info
}

// checker derives the Info as it checks.
type checker struct {
	*Info
	spec *model.Spec
	fsys fs.FS
	log  *diag.Log
}

// reportf records a problem of kind id with field of n.
func (c *checker) reportf(id diag.ID, n *model.Node, field, format string, args ...any) {
	c.log.Reportf(id, n.At(field), n.FieldPath(field), format, args...)
}

func (c *checker) platform() {
	p := &c.spec.Platform
	c.name(&p.Node, "name", p.Name)
	c.name(&p.Node, "argocdNamespace", p.ArgoCDNamespace)
	c.gitRepoURL(&p.Node, p.RepoURL)
	if msg := repoPathProblem(p.OutDir); msg != "" {
		c.reportf(diag.Path, &p.Node, "outDir", "%q %s: use a folder inside the repository, such as \"out\"", p.OutDir, msg)
	} else if msg := c.outDirOverlap(p.OutDir); msg != "" {
		c.reportf(diag.OutDir, &p.Node, "outDir", "%q %s: platc rewrites its output folder; use one of its own, such as \"out\"", p.OutDir, msg)
	}
	if !slices.Contains([]string{"annotation", "label", "annotation+label"}, p.ResourceTracking) {
		c.reportf(diag.UnknownName, &p.Node, "resourceTracking", "unknown tracking method %q: use annotation, label or annotation+label, as Argo CD's application.resourceTrackingMethod", p.ResourceTracking)
	}
	if p.DefaultEnvironment != "" && c.spec.Environment(p.DefaultEnvironment) == nil {
		c.reportf(diag.UnknownName, &p.Node, "defaultEnvironment", "unknown environment %q%s", p.DefaultEnvironment, diag.DidYouMean(p.DefaultEnvironment, model.EnvNames(c.spec.Environments)))
	}
}

// Patterns compile on first use (sync.OnceValue), not at process start.
var (
	gitURL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(https?://[^\s/]+/\S+|ssh://\S+|git@[^\s:]+:\S+|file://\S+)$`)
	})
	// chartRepo is a Helm repository, oci://, or a scheme-less registry
	// host, which Argo CD reads as OCI.
	chartRepo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^((https?|oci)://[^\s/]+|[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?|[a-z0-9-]+:[0-9]+)(/\S*)?$`)
	})
	dnsLabel  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })
	chartName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$`) })
	syncOpt   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]+=[A-Za-z0-9_.-]+$`) })
	// templateExpr is a ${...} of kro, without a "}" inside.
	templateExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[^}]*\}`) })
	// rangeOps finds what only a range has: operators, spaces, commas,
	// and wildcard components such as 1.x or 1.2.*.
	rangeOps = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\^~<>=*| ,]|(^|\.)[xX](\.|$)`) })
)

// name checks that a name is a DNS-1123 label, as Kubernetes requires of
// namespaces and as Argo CD resource tracking requires of Application names.
func (c *checker) name(n *model.Node, field, value string) {
	if !n.OK(field) {
		return // a default, or an error load reported
	}
	c.label(n.At(field), n.FieldPath(field), value)
}

func (c *checker) label(pos diag.Pos, specPath, value string) {
	if len(value) > 63 || !dnsLabel().MatchString(value) {
		c.log.Reportf(diag.Name, pos, specPath, "%q is not a DNS-1123 label: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit", value)
	}
}

// validChartName reports whether ch names a chart: a name, or in an OCI
// registry a path (bitnamicharts/thanos), which Argo CD joins to the
// registry.
func validChartName(ch *model.Chart) bool {
	if !ch.OCI() || !chartRepo().MatchString(ch.RepoURL) {
		return chartName().MatchString(ch.Chart)
	}
	for _, part := range strings.Split(ch.Chart, "/") {
		if !chartName().MatchString(part) {
			return false
		}
	}
	return true
}

func (c *checker) chart(ch *model.Chart) {
	c.label(ch.Pos, ch.Path, ch.Name)
	if ch.OK("repoURL") && !chartRepo().MatchString(ch.RepoURL) {
		c.reportf(diag.Source, &ch.Node, "repoURL", "%q is not a chart repository URL: use https://... for a Helm repository, oci://... (or the registry without a scheme) for an OCI registry", ch.RepoURL)
	} else if msg := urlProblem(ch.RepoURL); ch.OK("repoURL") && msg != "" {
		c.reportf(diag.Source, &ch.Node, "repoURL", "%q %s", ch.RepoURL, msg)
	}
	if ch.OK("chart") && !validChartName(ch) {
		c.reportf(diag.Source, &ch.Node, "chart", "%q is not a chart name: give the name alone, without the repository", ch.Chart)
	}
	if msg := PinProblem(ch.Version); ch.OK("version") && msg != "" {
		c.reportf(diag.Version, &ch.Node, "version", "%s", msg)
	}
}

// environmentCharts checks an environment's own chart versions
// (environments.<env>.charts): each names a declared chart and pins an
// exact version. Whether it is locked is verify's, through
// model.Spec.PinnedVersions.
func (c *checker) environmentCharts(env *model.Environment) {
	for _, p := range env.Charts {
		if c.spec.Chart(p.Chart) == nil {
			c.log.Reportf(diag.UnknownName, p.Pos, p.Path, "unknown chart %q: an environment runs another version of a chart declared under charts%s", p.Chart, diag.DidYouMean(p.Chart, chartNames(c.spec)))
			continue
		}
		if msg := PinProblem(p.Version); p.OK("version") && msg != "" {
			c.reportf(diag.Version, &p.Node, "version", "%s", msg)
		}
	}
}

// PinProblem says why version is not an exact chart version (SemVer 2,
// with or without a leading v), or returns "". Commands that write pins
// use it too.
func PinProblem(version string) string {
	switch {
	case version == "":
		return `empty version: pin an exact release such as "1.2.3"`
	case strings.EqualFold(version, "latest") || version == "*":
		return fmt.Sprintf("%q is not a version: pin an exact release such as \"1.2.3\"", version)
	case isSemVer(strings.TrimPrefix(version, "v")):
		return ""
	}
	// A character no version or range holds is named before range
	// detection.
	if i := strings.IndexFunc(version, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune(".-+^~<>=*| ,", r))
	}); i >= 0 {
		r, _ := utf8.DecodeRuneInString(version[i:])
		return fmt.Sprintf("%q holds %q, which a semantic version does not allow (only letters, digits, '.', '-' and '+'): pin an exact release such as \"1.2.3\"", version, r)
	}
	if rangeOps().MatchString(version) {
		return fmt.Sprintf("%q is a version range, not a pin: pin an exact release such as \"1.2.3\", so that a render means the same thing tomorrow", version)
	}
	return fmt.Sprintf("%q is not a semantic version: pin an exact release such as \"1.2.3\"", version)
}

// isSemVer reports whether v is MAJOR.MINOR.PATCH with an optional
// pre-release and build. semver.IsValid also takes "1.2" and "1"; a pin may
// not.
func isSemVer(v string) bool {
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	return semver.IsValid("v"+v) && strings.Count(core, ".") == 2
}

// repoPathProblem says why p is not a usable folder inside the repository,
// or returns "".
func repoPathProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.Contains(p, `\`):
		return "uses backslashes"
	case strings.IndexFunc(p, isControl) >= 0:
		return "holds a control character"
	case path.IsAbs(p):
		return "is absolute"
	case path.Clean(p) == ".":
		return "is the repository root"
	case path.Clean(p) == ".." || strings.HasPrefix(path.Clean(p), "../"):
		return "escapes the repository"
	case path.Clean(p) != p:
		return fmt.Sprintf("is not clean (write %q)", path.Clean(p))
	}
	return ""
}

// otherRepoFolder checks dir, n's path in another repository; "." is
// allowed, as platc's output is not there.
func (c *checker) otherRepoFolder(n *model.Node, dir string) {
	if msg := repoPathProblem(dir); msg != "" && dir != "." {
		c.reportf(diag.Path, n, "path", "%q %s: name a folder inside the repository", dir, msg)
	}
}

// sourceFolder checks dir, a synced folder of this repository: inside it,
// and outside the output root.
func (c *checker) sourceFolder(n *model.Node, field, dir string) bool {
	if msg := repoPathProblem(dir); msg != "" {
		c.reportf(diag.Path, n, field, "%q %s: name a folder inside the repository", dir, msg)
		return false
	}
	if out := c.spec.Platform.OutDir; dir == out || strings.HasPrefix(dir, out+"/") {
		c.reportf(diag.OutDir, n, field, "%q is inside the output root %q, which platc rewrites: keep manifests in a source folder", dir, out)
		return false
	}
	return true
}

// gitRepoURL checks the repoURL field of n, the URL of a Git repository
// (the platform's, a client's values repository).
func (c *checker) gitRepoURL(n *model.Node, url string) {
	if !n.OK("repoURL") {
		return
	}
	if !gitURL().MatchString(url) {
		c.reportf(diag.Source, n, "repoURL", "%q is not a Git repository URL: use https://host/org/repo.git or git@host:org/repo.git", url)
	} else if msg := urlProblem(url); msg != "" {
		c.reportf(diag.Source, n, "repoURL", "%q %s", url, msg)
	}
}

// urlProblem says why u, shaped like a URL, has a character RFC 3986 does
// not allow, or returns "". Refusing spaces, quotes, braces and control
// characters keeps a URL one word wherever it goes.
func urlProblem(u string) string {
	for _, r := range u {
		if !isURLChar(r) {
			return fmt.Sprintf("holds %q, which a URL cannot hold: percent-encode it (RFC 3986)", r)
		}
	}
	return ""
}

// outDirOverlap says which input folder (Git's, the spec's, clients'
// values, repo-path modules') the output root out holds or is inside, or
// returns "". A module folder inside it is reported at the module.
func (c *checker) outDirOverlap(out string) string {
	for d := out; d != "."; d = path.Dir(d) {
		if strings.EqualFold(path.Base(d), ".git") {
			if d == out {
				return "is a Git folder"
			}
			return "is inside the Git folder " + d
		}
	}
	// The spec is the .cue files of one folder.
	if f := c.spec.Platform.Pos.File; f != "" && path.Dir(f) != "." {
		if msg := overlap(out, path.Dir(f), "the spec's folder"); msg != "" {
			return msg
		}
	}
	for _, cl := range c.spec.Clients {
		if cl.Values.RepoURL == c.spec.Platform.RepoURL && repoPathProblem(cl.Values.Prefix) == "" {
			if msg := overlap(out, cl.Values.Prefix, "the values folder of client "+cl.Name); msg != "" {
				return msg
			}
		}
	}
	for _, m := range c.spec.Modules {
		if m.Kind.Info().Syncs == model.SyncsRepoFolder && repoPathProblem(m.Dir) == "" && strings.HasPrefix(out, m.Dir+"/") {
			return fmt.Sprintf("is inside the folder of module %s (%s)", m.Name, m.Dir)
		}
	}
	return ""
}

func isURLChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)
}

func isControl(r rune) bool { return r < ' ' || r == 0x7f || (0x80 <= r && r < 0xa0) }

// overlap says whether out is, holds or is inside dir, or returns "".
func overlap(out, dir, what string) string {
	switch {
	case out == dir:
		return "is " + what
	case strings.HasPrefix(dir, out+"/"):
		return fmt.Sprintf("holds %s (%s)", what, dir)
	case strings.HasPrefix(out, dir+"/"):
		return fmt.Sprintf("is inside %s (%s)", what, dir)
	}
	return ""
}

func (c *checker) module(m *model.Module) {
	c.label(m.Pos, m.Path, m.Name)
	// The kind's own checks, by KindInfo.Syncs; a new value is a case
	// here.
	switch info := m.Kind.Info(); {
	case !m.Kind.Valid():
		set := slices.DeleteFunc(slices.Clone(model.Kinds[1:]), func(f string) bool { return !m.Has(f) })
		if len(set) == 0 {
			c.log.Reportf(diag.ModuleKind, m.Pos, m.Path, "the module deploys nothing: set one of %s", kindList)
		} else {
			c.log.Reportf(diag.ModuleKind, m.At(set[1]), m.Path, "the module sets %s: set exactly one of %s", strings.Join(set, " and "), kindList)
		}
	case info.Syncs == model.SyncsChart:
		if c.spec.Chart(m.Chart) == nil {
			c.reportf(diag.UnknownName, &m.Node, "chart", "unknown chart %q: declare it under charts%s", m.Chart, diag.DidYouMean(m.Chart, chartNames(c.spec)))
		}
	case info.Syncs == model.SyncsRepoFolder:
		c.modulePath(m)
	case info.Syncs == model.SyncsMembers:
		// Its Application lives with its members' (DestArgoCD).
		if m.Has("namespace") {
			c.reportf(diag.ModuleKind, &m.Node, "namespace", "a group's Application lives in the Argo CD namespace: remove namespace")
		}
		if len(m.Members) == 0 {
			c.reportf(diag.ModuleKind, &m.Node, "group", "empty group: list the modules it delivers")
		}
	case info.Syncs == model.SyncsInstances, info.Syncs == model.SyncsDefinitions:
		field := info.Field
		if len(m.Stacks) == 0 {
			what := "instances"
			if info.Syncs == model.SyncsDefinitions {
				what = "definitions"
			}
			c.reportf(diag.ModuleKind, &m.Node, field, "no stacks: list the stacks whose %s the module delivers", what)
		}
		for i, name := range m.Stacks {
			if c.spec.Stack(name) == nil {
				c.elemReportf(diag.UnknownName, m, field, i, "unknown stack %q%s", name, diag.DidYouMean(name, stackNames(c.spec)))
			}
		}
	default:
		panic(fmt.Sprintf("check: module kind %v has no checks", m.Kind))
	}
	if m.Kind.Namespaced() {
		switch {
		case !m.Has("namespace") && m.Kind.Info().Syncs == model.SyncsRepoFolder:
			// Argo CD takes an Application without a destination
			// namespace: the folder's objects name their own.
		case !m.Has("namespace"):
			c.log.Reportf(diag.RequiredField, m.Pos, m.FieldPath("namespace"), "required field \"namespace\" is missing: say where the module's resources go")
		case m.Namespace == model.AnyNamespace && m.Kind.Info().Syncs == model.SyncsRepoFolder:
			c.anyNamespace(&m.Node)
			if m.Has("createNamespace") && m.CreateNamespace {
				c.reportf(diag.ModuleKind, &m.Node, "createNamespace", "namespace \"*\" is no namespace to create: remove createNamespace")
			}
		default:
			c.name(&m.Node, "namespace", m.Namespace)
		}
	}
	if m.Kind.Valid() && !c.takesValues(m) {
		for _, f := range []string{"values", "wiring", "helm"} {
			if m.Has(f) {
				c.reportf(diag.ModuleKind, &m.Node, f, "%s", c.noValues(m, f, "it"))
			}
		}
	}
	for i, n := range m.Needs {
		switch {
		case n == m.Name:
			c.elemReportf(diag.SelfReference, m, "needs", i, "a module cannot need itself")
		case c.spec.Module(n) == nil:
			c.elemReportf(diag.UnknownName, m, "needs", i, "%s", diag.Unknown("module", n, moduleNames(c.spec)))
		}
	}
	if m.Kind.Valid() {
		for _, f := range []string{"repoURL", "revision"} {
			if m.Has(f) && m.Kind.Info().Syncs != model.SyncsRepoFolder {
				c.reportf(diag.ModuleKind, &m.Node, f, "%s is for path modules, which read a folder of a Git repository: remove it", f)
			}
		}
		if m.Has("destination") && m.Kind.Info().Deploys == model.DestArgoCD {
			c.reportf(diag.ModuleKind, &m.Node, "destination", "a group's Application lives with Argo CD's: remove destination")
		}
	}
	c.destination(m.Destination)
	c.syncOptions(&m.Node, m.SyncOptions, false)
	c.allow(&m.Node, m.Allow)
	for _, w := range m.Wiring {
		c.wire(m, w)
	}
	if m.Endpoint != nil {
		c.endpoint(m.Endpoint)
	}
	c.appFields(m)
}

// allow checks an allow field: known lints, each with a reason.
func (c *checker) allow(n *model.Node, allow model.Allow) {
	for _, lint := range slices.Sorted(maps.Keys(allow)) {
		p := diag.JoinPath(n.FieldPath("allow"), lint)
		switch {
		case !slices.Contains(model.Lints, lint):
			c.log.Reportf(diag.UnknownName, c.spec.PosOf(p), p, "unknown lint %q%s: the lints are %s", lint, diag.DidYouMean(lint, model.Lints), strings.Join(model.Lints, ", "))
		case strings.TrimSpace(allow[lint]) == "":
			c.log.Reportf(diag.Allow, c.spec.PosOf(p), p, "an exception needs its reason: say why, for the reviewer")
		}
	}
}

// syncOptions checks a module's Argo CD sync options. CreateNamespace is
// platc's own field, so render and the checks agree. In a stack's module,
// kro fills each ${...} before Argo CD reads the option.
func (c *checker) syncOptions(n *model.Node, options []string, templated bool) {
	for i, o := range options {
		p := fmt.Sprintf("%s[%d]", n.FieldPath("syncOptions"), i)
		if templated {
			o = templateExpr().ReplaceAllString(o, "x")
		}
		if !syncOpt().MatchString(o) && !(templated && o == "x") {
			c.log.Reportf(diag.SyncOption, n.At("syncOptions"), p, "%q is not an Argo CD sync option: write Name=value, such as \"ServerSideApply=true\"", o)
		}
		if strings.HasPrefix(o, "CreateNamespace=") {
			c.log.Reportf(diag.SyncOption, n.At("syncOptions"), p, "set createNamespace instead of the CreateNamespace sync option")
		}
	}
}

// destination checks a cluster an environment or a module deploys to.
func (c *checker) destination(d *model.Destination) {
	if d != nil && d.Server != "" && d.Name != "" {
		c.log.Reportf(diag.Destination, d.Pos, d.Path, "destination sets both server and name: Argo CD takes one of them")
	}
}

func (c *checker) modulePath(m *model.Module) {
	if m.RepoURL != "" {
		// Another repository's folder is not read: it is a chart if
		// the module renders it as one.
		c.otherRepoFolder(&m.Node, m.Dir)
		if m.Helm != nil || len(m.Values) > 0 || len(m.Wiring) > 0 {
			c.Charts[m.Name] = true
		}
		return
	}
	kustomization, chart, _ := c.pathFolder(m, &m.Node, m.Dir)
	if m.Plugin != nil {
		return // a plugin renders it: neither a kustomization nor a chart to platc
	}
	c.Kustomizations[m.Name] = kustomization
	c.Charts[m.Name] = chart
}

// envPath checks an environment's folder s.Dir for a path module: valid
// as the module's own, and of the same kind (chart or not), since the
// module's fields are for one kind.
func (c *checker) envPath(m *model.Module, s *model.ModuleSettings) {
	switch {
	case !m.Kind.Valid():
	case m.Kind.Info().Syncs != model.SyncsRepoFolder:
		c.reportf(diag.ModuleKind, &s.Node, "path", "path is for path modules, which read a folder of a Git repository: remove it")
	case m.RepoURL != "" || s.RepoURL != "":
		c.otherRepoFolder(&s.Node, s.Dir)
	default:
		_, chart, ok := c.pathFolder(m, &s.Node, s.Dir)
		if ok && chart != c.Charts[m.Name] {
			what := map[bool]string{true: "a Helm chart", false: "not a Helm chart"}
			c.reportf(diag.ModuleKind, &s.Node, "path", "folder %q is %s, and the module's own %q is %s: an environment's folder must be of the module's kind, for the module's fields are; make it one, or use another module", s.Dir, what[chart], m.Dir, what[c.Charts[m.Name]])
		}
	}
}

// pathFolder checks the folder n's path names: in this repository,
// outside the output root, holding manifests. It reports whether it is a
// kustomization and a Helm chart, and ok where it is a folder.
func (c *checker) pathFolder(m *model.Module, n *model.Node, dir string) (kustomization, chart, ok bool) {
	if !c.sourceFolder(n, "path", dir) {
		return
	}
	if link, target, outside := manifests.OutsideLink(c.fsys, dir); outside {
		c.reportf(diag.Path, n, "path", "%q %s", link, manifests.OutsideMsg(target))
		return
	}
	info, err := fs.Stat(c.fsys, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.reportf(diag.Missing, n, "path", "folder %q does not exist: create it or fix the path", dir)
	case err != nil:
		c.reportf(diag.IO, n, "path", "cannot read folder %q: %v", dir, diag.PathCause(err))
	case !info.IsDir():
		c.reportf(diag.Missing, n, "path", "%q is a file: name the folder that holds the manifests", dir)
	default:
		ok = true
		entries, _ := fs.ReadDir(c.fsys, dir)
		if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return manifests.IsKustomization(e.Name()) }) {
			kustomization = true
			c.KustomizationDirs[dir] = true
		}
		chart = manifests.IsHelmFolder(c.fsys, dir)
		if chart {
			if deps := manifests.ChartLocalDependencies(c.fsys, dir); len(deps) > 0 {
				c.ChartDependencies[dir] = deps
			}
		}
		if m.Directory == nil && m.Plugin == nil && !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !e.IsDir() && isManifest(e.Name()) }) {
			switch ok, env := c.allowsEmpty(m); {
			case ok:
			case env != nil:
				c.reportf(diag.EmptyFolder, n, "path", "folder %q holds no manifests (.yaml, .yml or .json), and environment %s sets allowEmpty: false for it: Argo CD would sync nothing there; add them, or remove that allowEmpty", dir, env.Name)
			default:
				c.reportf(diag.EmptyFolder, n, "path", "folder %q holds no manifests (.yaml, .yml or .json): Argo CD would sync nothing; add them, or set %s.allowEmpty: true where the folder is empty on purpose", dir, m.FieldPath("syncPolicy"))
			}
		}
	}
	return
}

// allowsEmpty reports whether m's Application has allowEmpty in every
// environment deploying it (or in its own syncPolicy if none does), else
// the first environment that revokes it. With allowEmpty an empty folder
// is intended: Argo CD lets an automated sync prune down to none.
func (c *checker) allowsEmpty(m *model.Module) (ok bool, takenBack *model.Environment) {
	own := m.SyncPolicy != nil && m.SyncPolicy.AllowEmpty != nil && *m.SyncPolicy.AllowEmpty
	deployed := false
	for _, env := range c.spec.Environments {
		if !Enabled(env, m.Name) {
			continue
		}
		deployed = true
		if !m.SyncIn(env).AllowEmpty {
			if own {
				return false, env
			}
			return false, nil
		}
	}
	return deployed || own, nil
}

// takesValues reports whether m takes Helm values, wiring and helm
// options: a chart module, or a path module holding a Chart.yaml.
func (c *checker) takesValues(m *model.Module) bool {
	return m.Kind.TakesValues(c.Charts[m.Name])
}

// noValues is the message for field set on a module that takes no values
// (takesValues); it names what to remove, "it" or "them".
func (c *checker) noValues(m *model.Module, field, it string) string {
	if m.Kind.Info().Syncs == model.SyncsRepoFolder {
		return fmt.Sprintf("folder %q is not a Helm chart (it holds no Chart.yaml): only charts take %s; remove %s, or make the folder a chart", m.Dir, field, it)
	}
	return fmt.Sprintf("only chart modules, and path modules whose folder is a Helm chart, take %s: remove %s", field, it)
}

func isManifest(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

var kindList = strings.Join(model.Kinds[1:len(model.Kinds)-1], ", ") + " or " + model.Kinds[len(model.Kinds)-1]

var wireFields = []string{"address", "host", "port", "url"}

// wiringKey checks a wiring key's values path p (nil where none) and warns
// of a list-index-like part (datasources[0].url): values paths name map
// keys only, so no chart would read it; fix says what to do instead.
func (c *checker) wiringKey(w *model.Node, key string, p []string, fix string) {
	if p == nil {
		c.log.Reportf(diag.ValuesPath, w.Pos, w.Path, "%q is not a values path: write dotted keys such as \"config.redis.host\" (\\. for a dot inside a key)", key)
	}
	for _, part := range p {
		open := strings.IndexByte(part, '[')
		if open <= 0 || !strings.HasSuffix(part, "]") {
			continue
		}
		index := part[open+1 : len(part)-1]
		if index == "" || strings.Trim(index, "0123456789") != "" {
			continue
		}
		c.log.Reportf(diag.IndexKey, w.Pos, w.Path, "%q in wiring key %q looks like element %s of list %s, but a values path names map keys only: platc sets the key %q of a map, which the chart does not read; %s", part, key, index, part[:open], part, fmt.Sprintf(fix, part[:open]))
		return
	}
}

func (c *checker) wire(m *model.Module, w *model.Wire) {
	c.wiringKey(&w.Node, w.Key, w.ValuesPath, "a module's wiring sets one value: write the list %s in values, with the address")
	if !slices.Contains(wireFields, w.Field) {
		c.reportf(diag.UnknownName, &w.Node, "field", "unknown endpoint field %q: use one of %s", w.Field, strings.Join(wireFields, ", "))
	}
	src := c.spec.Module(w.From)
	switch {
	case w.From == m.Name:
		c.reportf(diag.SelfReference, &w.Node, "from", "a module cannot wire its own endpoint")
	case src == nil:
		c.reportf(diag.UnknownName, &w.Node, "from", "%s", diag.Unknown("module", w.From, moduleNames(c.spec)))
	case src.Endpoint == nil:
		c.reportf(diag.Wiring, &w.Node, "from", "module %q declares no endpoint: add endpoint: {host, port} to it", w.From)
	case w.Field == "url" && src.Endpoint.Scheme == "":
		c.reportf(diag.Wiring, &w.Node, "field", "module %q's endpoint has no scheme for a url: add endpoint.scheme, or wire the address", w.From)
	}
}

func (c *checker) endpoint(e *model.Endpoint) {
	if e.Host == "" || strings.ContainsAny(e.Host, " /:") {
		c.reportf(diag.Wiring, &e.Node, "host", "%q is not a host name: give the name alone, without scheme or port", e.Host)
	}
}

// groups checks group membership and returns each member's group.
func (c *checker) groups() map[string]string {
	parent := map[string]string{}
	for _, g := range c.spec.Modules {
		if g.Kind.Info().Syncs != model.SyncsMembers {
			continue
		}
		for i, name := range g.Members {
			switch {
			case c.spec.Module(name) == nil:
				c.elemReportf(diag.UnknownName, g, "group", i, "%s", diag.Unknown("module", name, moduleNames(c.spec)))
			case name == g.Name:
				c.elemReportf(diag.SelfReference, g, "group", i, "a group cannot contain itself")
			case parent[name] != "":
				c.elemReportf(diag.Duplicate, g, "group", i, "module %q is already in group %q: a module is delivered by one group", name, parent[name])
			default:
				parent[name] = g.Name
			}
		}
	}
	// A group nested in itself through other groups would never be
	// delivered.
	for _, m := range c.spec.Modules {
		seen := []string{m.Name}
		for p := parent[m.Name]; p != ""; p = parent[p] {
			if p == m.Name {
				c.log.Reportf(diag.Cycle, m.Pos, m.Path, "groups contain each other: %s: break the loop", strings.Join(append(seen, p), " -> "))
				delete(parent, m.Name)
				break
			}
			if slices.Contains(seen, p) {
				break // reported from that module
			}
			seen = append(seen, p)
		}
	}
	return parent
}

// environment checks one environment and its use of the modules.
// kubernetes checks an environment's Kubernetes as Argo CD and Helm read
// it: a version ParseGeneric reads (Argo CD's parseKubeVersion), and API
// versions as group/version or group/version/Kind.
func (c *checker) kubernetes(k *model.Kubernetes) {
	if _, err := k8sversion.ParseGeneric(k.Version); k.OK("version") && err != nil {
		c.reportf(diag.Version, &k.Node, "version", "Kubernetes version %q: %v: write it as 1.34.0", k.Version, err)
	}
	for i, v := range k.APIVersions {
		parts := strings.Split(v, "/")
		if len(parts) < 1 || len(parts) > 3 || slices.Contains(parts, "") {
			c.elemReportf(diag.Version, k, "apiVersions", i, "API version %q: write group/version, such as monitoring.coreos.com/v1, or group/version/Kind", v)
		}
	}
}

func (c *checker) environment(env *model.Environment) {
	c.label(env.Pos, env.Path, env.Name)
	switch {
	case !env.OK("revision"):
	case env.Revision == "":
		c.reportf(diag.Revision, &env.Node, "revision", "empty revision: use HEAD, a branch, or a release tag")
	case env.Pinned && !model.IsReleaseTag(env.Revision):
		c.reportf(diag.Pinned, &env.Node, "revision", "pinned environment tracks %q: pin a release tag such as \"v1.2.3\", so that it reconciles against a fixed, reviewed release", env.Revision)
	}
	c.destination(&env.Destination)
	c.kubernetes(&env.Kubernetes)
	c.releases(env)
	projects := []string{"default"}
	for _, p := range env.Projects {
		c.label(p.Pos, p.Path, p.Name)
		c.allow(&p.Node, p.Allow)
		c.metadataMaps(&p.Node, p.Labels, p.Annotations, "platc gives every AppProject the sync wave -1, so that it exists before the Applications that name it: remove the annotation")
		// A project destination may give server and name, or no
		// namespace: Argo CD matches by either, and an empty namespace
		// matches only none (AppProject.isDestinationMatched).
		projects = append(projects, p.Name)
	}
	if !slices.Contains(projects, env.Project) {
		c.reportf(diag.UnknownName, &env.Node, "project", "unknown project %q: declare it under projects, or use \"default\"%s", env.Project, diag.DidYouMean(env.Project, projects))
	}
	for _, name := range slices.Sorted(maps.Keys(env.Settings)) {
		s := env.Settings[name]
		m := c.spec.Module(name)
		if m == nil {
			c.log.Reportf(diag.UnknownName, s.Pos, s.Path, "%s", diag.Unknown("module", name, moduleNames(c.spec)))
			continue
		}
		c.destination(s.Destination)
		if s.Dir != "" {
			c.envPath(m, s)
		}
		if s.Namespace == model.AnyNamespace && m.Kind.Info().Syncs == model.SyncsRepoFolder {
			c.anyNamespace(&s.Node)
		} else if s.Namespace != "" {
			c.name(&s.Node, "namespace", s.Namespace)
			if m.Kind.Valid() && m.Kind.Info().Deploys == model.DestArgoCD {
				c.reportf(diag.ModuleKind, &s.Node, "namespace", "namespace is for modules that deploy to a cluster; module %s's Application creates Applications, in Argo CD's namespace: remove it", name)
			}
		}
		if s.Revision != "" && m.Kind.Valid() && m.Kind.Info().Syncs != model.SyncsRepoFolder {
			c.reportf(diag.ModuleKind, &s.Node, "revision", "revision is for path modules, which read a folder of a Git repository: remove it")
		}
		if s.RepoURL != "" {
			switch {
			case m.Kind.Valid() && m.Kind.Info().Syncs != model.SyncsRepoFolder:
				c.reportf(diag.ModuleKind, &s.Node, "repoURL", "repoURL is for path modules, which read a folder of a Git repository: remove it")
			case m.Plugin != nil:
				c.reportf(diag.ModuleKind, &s.Node, "repoURL", "a plugin renders the module's folder of this repository: remove repoURL, or the plugin")
			}
		}
		if h := s.Helm; h != nil && m.Kind.Valid() {
			if c.takesValues(m) {
				c.helm(m, h, m.HelmIn(env))
			} else {
				c.reportf(diag.ModuleKind, &s.Node, "helm", "%s", c.noValues(m, "helm", "it"))
			}
		}
		if s.HasSyncOptions {
			c.syncOptions(&s.Node, s.SyncOptions, false)
		}
		if s.HasExtraSources && m.Kind.Valid() {
			if m.Kind.Takes("extraSources") {
				c.extraSources(s.ExtraSources)
			} else {
				c.reportf(diag.ModuleKind, &s.Node, "extraSources", "only %s modules take extraSources: remove it", strings.Join(model.KindsTaking("extraSources"), " and "))
			}
		}
		if s.Project != "" && !slices.Contains(projects, s.Project) {
			c.reportf(diag.UnknownName, &s.Node, "project", "unknown project %q: declare it under %s, or use \"default\"%s", s.Project, env.FieldPath("projects"), diag.DidYouMean(s.Project, projects))
		}
		if s.External != nil {
			c.endpoint(s.External)
			if s.Enabled {
				c.reportf(diag.Wiring, &s.Node, "external", "external is used only where the module is disabled: add enabled: false, or remove external")
			}
		}
		if s.Values != nil && m.Kind.Valid() && !c.takesValues(m) {
			c.reportf(diag.ModuleKind, &s.Node, "values", "%s", c.noValues(m, "values", "them"))
		}
	}
	if env.DirectApply {
		// The plan applies folders of this repository's checkout.
		var remote []string
		for _, m := range c.spec.Modules {
			if !Enabled(env, m.Name) {
				continue
			}
			h := m.HelmIn(env)
			otherValues := h != nil && h.ValuesRepo != nil ||
				m.Kind.Takes("extraSources") && slices.ContainsFunc(m.ExtraSourcesIn(env), func(x *model.ExtraSource) bool { return x.RepoURL != "" })
			if (m.RepoURLIn(env) != "" || m.Plugin != nil) && m.Kind.Info().Syncs == model.SyncsRepoFolder || otherValues {
				remote = append(remote, m.Name)
			}
			if m.NamespaceIn(env) == model.AnyNamespace {
				c.reportf(diag.ModuleKind, &env.Node, "directApply", "the plan applies module %s into one namespace, and its namespace is \"*\": name one, or disable the module in this environment", m.Name)
			}
		}
		if len(remote) > 0 {
			c.reportf(diag.ModuleKind, &env.Node, "directApply", "the plan cannot deliver %s %s, whose folders or values files are another repository's, or a plugin's to render, which the plan does not do: keep them in this repository as manifests, or disable them in this environment", map[bool]string{false: "module", true: "modules"}[len(remote) > 1], diag.List(remote))
		}
	}
	c.environmentFields(env)
	c.environmentCharts(env)
	// Wiring must find an endpoint in every environment: the module's own,
	// or the external one given where the environment disables it.
	wiredBy := map[string][]string{} // disabled module -> "consumer (key)"
	for _, m := range c.spec.Modules {
		if !Enabled(env, m.Name) {
			continue
		}
		for _, w := range m.Wiring {
			src := c.spec.Module(w.From)
			if src == nil || src.Endpoint == nil || Enabled(env, w.From) || env.Settings[w.From].External != nil {
				continue
			}
			wiredBy[w.From] = append(wiredBy[w.From], fmt.Sprintf("%s (%s)", m.Name, w.Key))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(wiredBy)) {
		s := env.Settings[name]
		c.log.Reportf(diag.Wiring, s.Pos, s.Path, "disables %q, whose endpoint is wired into %s: give external: {host, port}, the endpoint of the service that replaces it", name, strings.Join(wiredBy[name], ", "))
	}
}

func (c *checker) anyNamespace(n *model.Node) {
	c.reportf(diag.AnyNamespace, n, "namespace", "namespace \"*\" is none: Argo CD applies each object in the namespace it names, and a namespaced object that names none fails to sync; give every object its namespace, or name one here")
}

// Enabled reports whether the module is enabled in env.
func Enabled(env *model.Environment, module string) bool {
	s, ok := env.Settings[module]
	return !ok || s.Enabled
}

// applicationNames checks that no module's Application clashes with a root
// Application's name.
func (c *checker) applicationNames() {
	for _, env := range c.spec.Environments {
		root := env.RootName()
		named := env.Root != nil && env.Root.Name != ""
		if named {
			c.name(&env.Root.Node, "name", root)
		}
		switch m := c.spec.Module(root); {
		case m != nil && named:
			c.reportf(diag.Name, &env.Root.Node, "name", "root Application name %q is the name of module %s's Application: rename one of them", root, m.Name)
		case m != nil:
			c.log.Reportf(diag.Name, m.Pos, m.Path, "module name %q is the name of environment %s's root Application: rename the module", root, env.Name)
		}
	}
}

func moduleNames(s *model.Spec) []string {
	return names(s.Modules, func(m *model.Module) string { return m.Name })
}

func chartNames(s *model.Spec) []string {
	return names(s.Charts, func(c *model.Chart) string { return c.Name })
}

func stackNames(s *model.Spec) []string {
	return names(s.Stacks, func(st *model.Stack) string { return st.Name })
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = name(x)
	}
	return out
}

// fielded is a node of the spec: its fields' positions and paths.
type fielded interface {
	At(name string) diag.Pos
	FieldPath(field string) string
}

// elemReportf reports a problem with element i of n's list field, at the
// element where written in place, else at the field.
func (c *checker) elemReportf(id diag.ID, n fielded, field string, i int, format string, args ...any) {
	path := fmt.Sprintf("%s[%d]", n.FieldPath(field), i)
	pos := c.spec.ElemPos(path)
	if !pos.IsValid() {
		pos = n.At(field)
	}
	c.log.Reportf(id, pos, path, format, args...)
}
