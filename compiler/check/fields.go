package check

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
)

// The rules of the extended Argo CD fields (model/fields.go) the spec alone
// decides: each field where it belongs, Kubernetes' label and annotation
// rules, Helm's release name, and what Argo CD parses when it compares or
// syncs (through compiler/argocd). ValidateProject on rendered AppProjects
// is verify's.

// appFields checks a module's Argo CD fields.
func (c *checker) appFields(m *model.Module) {
	f := &m.AppFields
	c.metadataMaps(&m.Node, f.Labels, f.Annotations, moduleWaveFix)
	c.syncPolicy(f.SyncPolicy)
	c.ignoreDifferences(f.IgnoreDifferences)
	if f.RespectIgnoreDifferences != nil && *f.RespectIgnoreDifferences && len(f.IgnoreDifferences) == 0 &&
		!c.someSettings(m.Name, func(s *model.ModuleSettings) bool { return len(s.IgnoreDifferences) > 0 }) {
		c.reportf(diag.NoEffect, &m.Node, "respectIgnoreDifferences", "respectIgnoreDifferences without ignoreDifferences does nothing: add the fields to ignore, or remove it")
	}
	for i, o := range m.SyncOptions {
		if strings.HasPrefix(o, "RespectIgnoreDifferences=") {
			c.elemReportf(diag.SyncOption, m, "syncOptions", i, "set respectIgnoreDifferences instead of the RespectIgnoreDifferences sync option: platc renders it with ignoreDifferences")
		}
	}
	if ns := f.NamespaceMetadata; ns != nil {
		switch {
		case !m.Kind.Namespaced():
			c.reportf(diag.ModuleKind, &m.Node, "managedNamespaceMetadata", "a %s module creates no namespace: remove managedNamespaceMetadata", model.Kinds[m.Kind])
		case !m.CreateNamespace:
			c.reportf(diag.SyncOption, &m.Node, "managedNamespaceMetadata", "managedNamespaceMetadata is the metadata of the namespace Argo CD creates (CreateNamespace=true), and createNamespace is false: remove one of them")
		}
		c.metadataMaps(&ns.Node, ns.Labels, ns.Annotations, moduleWaveFix)
	}
	// A kind's options (KindInfo.Options) on a module of another kind.
	if m.Kind.Valid() {
		for _, option := range model.KindOptions {
			if m.Has(option) && !m.Kind.Takes(option) {
				c.reportf(diag.ModuleKind, &m.Node, option, "only %s modules take %s: remove it", strings.Join(model.KindsTaking(option), " and "), option)
			}
		}
	}
	if f.Plugin != nil && m.Kind.Takes("plugin") {
		// One tool renders a folder (Argo CD's source types).
		for _, other := range []string{"directory", "kustomize"} {
			if m.Has(other) {
				c.reportf(diag.ModuleKind, &m.Node, other, "the plugin renders the folder: Argo CD takes one of plugin and %s; remove %s, or the plugin", other, other)
			}
		}
	}
	if c.takesValues(m) {
		c.helm(m, m.Helm, m.Helm)
	}
	if m.Kind.Takes("manifests") && m.Has("manifests") {
		c.folder(&m.Node, "manifests", f.Manifests)
	}
	if m.Kind.Takes("extraSources") {
		c.extraSources(m.ExtraSources)
	}
	// The options of the folder a path module syncs.
	kustomization := c.Kustomizations[m.Name]
	if d := f.Directory; d != nil && m.Kind.Takes("directory") && f.Plugin == nil {
		if kustomization {
			c.reportf(diag.Kustomize, &m.Node, "directory", "folder %q is a kustomization, which Argo CD builds with kustomize: directory is for folders of plain manifests; remove it, or set kustomize options", m.Dir)
		} else if repoPathProblem(m.Dir) == "" {
			files := argocd.DirectoryFiles(c.fsys, m.Dir, d.Recurse, d.Include, d.Exclude)
			c.DirectoryFiles[m.Name] = files
			if len(files) == 0 {
				if info, err := fs.Stat(c.fsys, m.Dir); err == nil && info.IsDir() {
					c.log.Reportf(diag.SyncsNothing, d.Pos, d.Path, "no manifest of folder %q is one Argo CD reads with these options (.yaml, .yml or .json files, recurse %v, include %q, exclude %q): it would sync nothing", m.Dir, d.Recurse, d.Include, d.Exclude)
				}
			}
		}
	}
	if f.Kustomize != nil && m.Kind.Takes("kustomize") && f.Plugin == nil {
		if !kustomization && m.RepoURL == "" {
			// Another repository's folder is not read: it may be one.
			c.reportf(diag.Kustomize, &m.Node, "kustomize", "folder %q is not a kustomization: Argo CD applies kustomize options with kustomize edit, which needs a kustomization.yaml; add one that lists the manifests as resources, or remove kustomize", m.Dir)
		}
		c.kustomize(f.Kustomize)
	}
}

// someSettings reports whether some environment's settings of module
// satisfy f.
func (c *checker) someSettings(module string, f func(*model.ModuleSettings) bool) bool {
	return slices.ContainsFunc(c.spec.Environments, func(env *model.Environment) bool {
		s := env.Settings[module]
		return s != nil && f(s)
	})
}

// moduleWaveFix says what to do instead of a module's sync wave
// annotation.
const moduleWaveFix = "platc sets the sync wave from needs: set wave instead of the annotation"

// metadataMaps checks an object's labels and annotations as the API
// server will. The sync wave is platc's: waveFix says what to do instead.
func (c *checker) metadataMaps(n *model.Node, labels, annotations map[string]string, waveFix string) {
	c.entries(diag.Metadata, n, "labels", labels, labelProblem)
	c.entries(diag.Metadata, n, "annotations", annotations, func(k, _ string) string {
		if k == argocd.SyncWave {
			return waveFix
		}
		return argocd.AnnotationKeyProblem(k)
	})
	size := 0
	for k, v := range annotations {
		size += len(k) + len(v)
	}
	if size > argocd.AnnotationsSizeLimit {
		c.reportf(diag.Metadata, n, "annotations", "the annotations hold %d bytes, more than the %d Kubernetes allows: shorten them", size, argocd.AnnotationsSizeLimit)
	}
}

// entries reports the entries of m, field of n, that problem refuses.
func (c *checker) entries(id diag.ID, n *model.Node, field string, m map[string]string, problem func(k, v string) string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if msg := problem(k, m[k]); msg != "" {
			p := diag.JoinPath(n.FieldPath(field), k)
			c.log.Reportf(id, c.spec.PosOf(p), p, "%s", msg)
		}
	}
}

// labelProblem says what the API server refuses of a label, or "".
func labelProblem(k, v string) string {
	return cmp.Or(argocd.LabelKeyProblem(k), argocd.LabelValueProblem(v))
}

// syncPolicy checks a retry's backoff as Argo CD reads it when a sync
// fails.
func (c *checker) syncPolicy(p *model.SyncPolicy) {
	if p == nil || p.Retry == nil || p.Retry.Backoff == nil {
		return
	}
	b := p.Retry.Backoff
	for _, f := range []struct{ name, v string }{{"duration", b.Duration}, {"maxDuration", b.MaxDuration}} {
		if _, err := argocd.RetryDuration(f.v); b.OK(f.name) && err != nil {
			c.reportf(diag.SyncPolicy, &b.Node, f.name, "Argo CD cannot read %q as a backoff (%v), and would not retry: write a Go duration such as \"30s\" or \"5m\", or a number of seconds", f.v, err)
		}
	}
}

// ignoreDifferences checks that each entry ignores something, with RFC
// 6901 JSON pointers and jq paths that compile as in Argo CD.
func (c *checker) ignoreDifferences(ids []*model.IgnoreDifference) {
	for _, id := range ids {
		if len(id.JSONPointers) == 0 && len(id.JQPathExpressions) == 0 && len(id.ManagedFieldsManagers) == 0 {
			c.log.Reportf(diag.IgnoreDifferences, id.Pos, id.Path, "the entry ignores nothing: give jsonPointers, jqPathExpressions or managedFieldsManagers")
		}
		for i, p := range id.JSONPointers {
			if _, err := argocd.ParseJSONPointer(p); err != nil {
				c.elemReportf(diag.IgnoreDifferences, id, "jsonPointers", i, "%q is not a JSON pointer: %v (Argo CD would skip it without a word, or ignore another field): write it as RFC 6901 does, such as \"/spec/caBundle\"", p, err)
			}
		}
		for i, q := range id.JQPathExpressions {
			if err := argocd.JQProblem(q); err != nil {
				c.elemReportf(diag.IgnoreDifferences, id, "jqPathExpressions", i, "Argo CD cannot compile the jq path %q (%v), and would fail every comparison of the Application: write a jq path such as \".webhooks[]?.clientConfig.caBundle\"", q, err)
			}
		}
		for i, mgr := range id.ManagedFieldsManagers {
			if strings.TrimSpace(mgr) == "" {
				c.elemReportf(diag.IgnoreDifferences, id, "managedFieldsManagers", i, "an empty field manager: name the manager whose fields are ignored, such as \"kube-controller-manager\"")
			}
		}
	}
}

// helmReleaseName is Helm 3's rule for a release name (pkg/chartutil
// ValidateReleaseName): a DNS-1123 subdomain of at most 53 characters.
var helmReleaseName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
})

// helm checks helm options h of module m, its own or an environment's
// (eff is the merge, Module.HelmIn).
func (c *checker) helm(m *model.Module, h, eff *model.Helm) {
	if h == nil {
		return
	}
	c.releaseName(&h.Node, h.ReleaseName)
	if m.Kind.Info().Syncs == model.SyncsRepoFolder && h.PassCredentials {
		c.reportf(diag.HelmOptions, &h.Node, "passCredentials", "passCredentials passes a chart repository's credentials on to the hosts of its charts, and a chart of this repository comes from no chart repository: remove it")
	}
	c.helmParameters(h.Parameters)
	if vr := h.ValuesRepo; vr != nil {
		switch {
		case m.Kind.Info().Syncs == model.SyncsRepoFolder:
			c.reportf(diag.HelmOptions, &h.Node, "valuesRepo", "a chart of this repository reads its values files from this repository: remove valuesRepo, or make the module a chart module")
		case len(eff.ValueFiles) == 0 && !c.someSettings(m.Name, func(s *model.ModuleSettings) bool { return s.Helm != nil && s.Helm.Has("valueFiles") }):
			c.reportf(diag.HelmOptions, &h.Node, "valuesRepo", "valuesRepo names the repository of valueFiles, and there are none: add valueFiles, or remove it")
		case strings.TrimSpace(vr.RepoURL) == "":
			c.reportf(diag.HelmOptions, &vr.Node, "repoURL", "empty repoURL: give the Git repository the values files are in")
		case strings.TrimSpace(vr.TargetRevision) == "":
			c.reportf(diag.HelmOptions, &vr.Node, "targetRevision", "empty targetRevision: give the branch, tag or commit to read the values files at")
		}
	}
	if eff.ValuesRepo != nil || h == m.Helm && !c.filesHere(m) {
		return // its files are another repository's: not read here
	}
	for i, f := range h.ValueFiles {
		p := fmt.Sprintf("%s[%d]", h.FieldPath("valueFiles"), i)
		if msg := repoPathProblem(f); msg != "" {
			c.log.Reportf(diag.Path, h.At("valueFiles"), p, "%q %s: name a values file of this repository, by its path from the root", f, msg)
			continue
		}
		if m.RepoURL != "" {
			continue // another repository's file, which platc does not read
		}
		if info, err := fs.Stat(c.fsys, f); (err != nil || info.IsDir()) && !eff.IgnoreMissingValueFiles {
			c.log.Reportf(diag.ValueFile, h.At("valueFiles"), p, "values file %q does not exist in this repository: create it or fix the path (Argo CD reads it from this repository at the environment's revision)", f)
		}
	}
}

// filesHere reports whether some environment reads the module's own
// values files from this repository (its settings override neither the
// files nor their repository, and the module names none).
func (c *checker) filesHere(m *model.Module) bool {
	return (m.Helm == nil || m.Helm.ValuesRepo == nil) && slices.ContainsFunc(c.spec.Environments, func(env *model.Environment) bool {
		s := env.Settings[m.Name]
		return Enabled(env, m.Name) && (s == nil || s.Helm == nil || !s.Helm.Has("valueFiles") && !s.Helm.Has("valuesRepo"))
	})
}

// releaseName checks the releaseName field of n by Helm's rule.
func (c *checker) releaseName(n *model.Node, name string) {
	if n.OK("releaseName") && (len(name) > 53 || !helmReleaseName().MatchString(name)) {
		c.reportf(diag.Name, n, "releaseName", "%q is not a Helm release name: use at most 53 lower-case letters, digits, '-' and '.', starting and ending with a letter or digit", name)
	}
}

func (c *checker) helmParameters(params []*model.HelmParameter) {
	names := map[string]bool{}
	for _, p := range params {
		switch {
		case strings.TrimSpace(p.Name) == "":
			c.reportf(diag.HelmOptions, &p.Node, "name", "empty parameter name: give the values path, such as \"image.tag\"")
		case names[p.Name]:
			c.reportf(diag.Duplicate, &p.Node, "name", "parameter %q is set twice: Argo CD keeps one; remove the other", p.Name)
		}
		names[p.Name] = true
		if _, vars := argocd.Envsubst(p.Value, nil); len(vars) > 0 {
			c.reportf(diag.HelmOptions, &p.Node, "value", "Argo CD expands $%s in a parameter's value with its build environment (an unknown variable is empty): write $$ for a literal $, or set the value in values", vars[0])
		}
	}
}

// extraSources checks a module's further sources, its own or an
// environment's: a pinned chart or a folder (here, holding manifests, or
// elsewhere), with only its kind's options.
func (c *checker) extraSources(list []*model.ExtraSource) {
	for _, src := range list {
		n := &src.Node
		switch {
		case n.Has("chart") == n.Has("path"):
			c.log.Reportf(diag.ModuleKind, n.Pos, n.Path, "a source is a chart or a folder: set one of chart and path")
			continue
		case n.Has("chart"):
			if c.spec.Chart(src.Chart) == nil {
				c.reportf(diag.UnknownName, n, "chart", "unknown chart %q: declare it under charts%s", src.Chart, diag.DidYouMean(src.Chart, chartNames(c.spec)))
			}
			for _, f := range []string{"repoURL", "revision", "directory"} {
				if n.Has(f) {
					c.reportf(diag.ModuleKind, n, f, "%s is for a folder's source, and this one is a chart (whose repository and version are its pin's): remove it", f)
				}
			}
			if h := src.Helm; h != nil {
				c.releaseName(&h.Node, h.ReleaseName)
				c.helmParameters(h.Parameters)
			}
			continue
		}
		for _, f := range []string{"values", "helm"} {
			if n.Has(f) {
				c.reportf(diag.ModuleKind, n, f, "%s is for a chart's source, and this one is a folder: remove it, or make it a module of its own", f)
			}
		}
		if src.RepoURL == "" {
			c.folder(n, "path", src.Dir)
			if d := src.Directory; d != nil && repoPathProblem(src.Dir) == "" {
				c.SourceFiles[src] = argocd.DirectoryFiles(c.fsys, src.Dir, d.Recurse, d.Include, d.Exclude)
			}
			continue
		}
		c.otherRepoFolder(n, src.Dir)
	}
}

// folder checks a folder of this repository that an Application syncs.
func (c *checker) folder(n *model.Node, field, dir string) {
	if !c.sourceFolder(n, field, dir) {
		return
	}
	entries, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		c.reportf(diag.Missing, n, field, "folder %q does not exist: create it or fix the path", dir)
		return
	}
	if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return manifests.IsKustomization(e.Name()) }) {
		c.KustomizationDirs[dir] = true
	}
	if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !e.IsDir() && isManifest(e.Name()) }) {
		c.reportf(diag.SyncsNothing, n, field, "folder %q holds no manifests (.yaml, .yml or .json): Argo CD would sync nothing", dir)
	}
}

// kustomizeImage is what "kustomize edit set image" takes: an image, and
// optionally "=" and the new image; a tag after ":" or a digest after "@".
var kustomizeImage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9][a-zA-Z0-9._/:-]*?(=[a-z0-9][a-zA-Z0-9._/:-]*?)?(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)
})

func (c *checker) kustomize(k *model.Kustomize) {
	for i, img := range k.Images {
		if !kustomizeImage().MatchString(img) {
			c.elemReportf(diag.Kustomize, k, "images", i, "%q is not an image override: write \"name=newName:tag\", \"name:tag\" or \"name@sha256:...\"", img)
		}
	}
	c.entries(diag.Kustomize, &k.Node, "commonLabels", k.CommonLabels, labelProblem)
	c.entries(diag.Kustomize, &k.Node, "commonAnnotations", k.CommonAnnotations, func(k, _ string) string { return argocd.AnnotationKeyProblem(k) })
	for _, p := range k.Patches {
		var v any
		if err := yaml.Unmarshal([]byte(p.Patch), &v); err != nil || v == nil {
			c.reportf(diag.Kustomize, &p.Node, "patch", "the patch is not YAML (%v): write a strategic merge patch or a JSON 6902 patch as YAML", err)
			continue
		}
		if _, ok := v.([]any); ok && p.Target == nil {
			c.reportf(diag.Kustomize, &p.Node, "patch", "a JSON 6902 patch (a list of operations) needs a target: say which objects it patches")
		}
	}
}

// environmentFields checks an environment's Argo CD fields: its sync
// policy and its module settings', and its projects' fields that the spec
// decides (what Argo CD's API server refuses of a project, verify checks
// on the rendered AppProject).
func (c *checker) environmentFields(env *model.Environment) {
	c.syncPolicy(env.SyncPolicy)
	for _, name := range slices.Sorted(maps.Keys(env.Settings)) {
		s := env.Settings[name]
		c.syncPolicy(s.SyncPolicy)
		c.ignoreDifferences(s.IgnoreDifferences)
		c.metadataMaps(&s.Node, s.Labels, s.Annotations, moduleWaveFix)
	}
	if env.Pinned {
		// Where a pinned environment syncs by hand, once per field that
		// decides it.
		manual := map[*model.SyncPolicy][]string{} // by the policy that decides, its modules
		for _, m := range c.spec.Modules {
			if s := m.SyncIn(env); s.Manual != nil && Enabled(env, m.Name) {
				manual[s.Manual] = append(manual[s.Manual], m.Name)
			}
		}
		for p, modules := range manual {
			c.reportf(diag.ManualSync, &p.Node, "automated", "pinned environment %s syncs %s by hand: a release moves the Applications to the new tag, but the cluster changes only when someone syncs each one (Argo CD shows them OutOfSync); to bound when changes land, keep them automated and give the project a sync window", env.Name, strings.Join(modules, ", "))
		}
	}
	for _, p := range env.Projects {
		for _, w := range p.SyncWindows {
			if w.OK("kind") && w.Kind != "allow" && w.Kind != "deny" {
				c.reportf(diag.UnknownName, &w.Node, "kind", "unknown kind %q of sync window: use allow (syncs only inside the window) or deny (no sync inside it)", w.Kind)
			}
			if msg := (argocd.SyncWindow{TimeZone: w.TimeZone}).TimeZoneProblem(); msg != "" {
				c.reportf(diag.SyncPolicy, &w.Node, "timeZone", "%s: the window would open at another hour; use an IANA name such as \"Europe/Berlin\"", msg)
			}
		}
		for i, k := range p.SignatureKeys {
			if msg := argocd.KeyIDProblem(k); msg != "" {
				c.elemReportf(diag.ArgoCDProject, p, "signatureKeys", i, "%s: give the key's 16-digit ID or its 40-digit fingerprint, in hexadecimal", msg)
			}
		}
	}
}
