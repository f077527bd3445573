package model

import (
	"maps"
	"slices"
)

// The extended Argo CD fields (AppFields, ProjectFields): Application and
// AppProject fields the spec passes on beyond a module's source and
// destination and a project's basic lists. Each is zero where unset.

// AppFields are the Application fields of a module.
type AppFields struct {
	Labels      map[string]string // of the Application
	Annotations map[string]string
	SyncPolicy  *SyncPolicy // nil: the default (automated, prune, self-heal)
	// NamespaceMetadata is syncPolicy.managedNamespaceMetadata.
	NamespaceMetadata *NamespaceMetadata
	IgnoreDifferences []*IgnoreDifference
	// RespectIgnoreDifferences is nil for the default (true with
	// ignoreDifferences).
	RespectIgnoreDifferences *bool
	RevisionHistoryLimit     *int64
	Helm                     *Helm  // KindChart
	Manifests                string // KindChart: a folder synced as a second source
	// ExtraSources follow the module's own source, in order.
	ExtraSources []*ExtraSource
	Directory    *Directory // KindPath
	Kustomize    *Kustomize // KindPath
	// Plugin is source.plugin as written, for a path module rendered by a
	// config management plugin; nil otherwise.
	Plugin map[string]any
}

// ExtraSource is a further source of a module's Application: a chart of
// Spec.Charts, or a folder Dir of this repository or of RepoURL.
type ExtraSource struct {
	Node
	Chart  string
	Values map[string]any
	// Helm is the chart's release name, skipCrds and parameters; nil
	// where unset.
	Helm *Helm
	Dir  string
	// RepoURL is "" for this repository (Decode clears its own URL).
	RepoURL, Revision string
	Directory         *Directory
}

// SyncPolicy is how Argo CD syncs an Application; a nil field is left to a
// less specific level or the default.
type SyncPolicy struct {
	Node
	Automated, Prune, SelfHeal, AllowEmpty *bool
	Retry                                  *Retry
}

// Retry is Argo CD's retry of a failed sync.
type Retry struct {
	Node
	Limit int64
	// Backoff is nil where the spec sets none.
	Backoff *Backoff
	Refresh bool
}

// Backoff is the wait between retries.
type Backoff struct {
	Node
	Duration, MaxDuration string
	Factor                *int64
}

// NamespaceMetadata is the metadata Argo CD sets on a namespace it creates.
type NamespaceMetadata struct {
	Node
	Labels, Annotations map[string]string
}

// IgnoreDifference is one entry of an Application's ignoreDifferences.
type IgnoreDifference struct {
	Node
	Group, Kind, Name, Namespace string
	JSONPointers                 []string
	JQPathExpressions            []string
	ManagedFieldsManagers        []string
}

// Helm is how Argo CD renders a chart module's chart.
type Helm struct {
	Node
	ReleaseName     string // "" for the module's name
	SkipCrds        bool
	PassCredentials bool
	Parameters      []*HelmParameter
	ValueFiles      []string // paths of this repository
	// IgnoreMissingValueFiles: Argo CD skips a missing values file.
	IgnoreMissingValueFiles bool
	// ValuesRepo is the Git repository of ValueFiles; nil for the
	// platform's.
	ValuesRepo *ValuesRepo
}

// ValuesRepo is another Git repository a chart module's values files are
// read from, at a revision.
type ValuesRepo struct {
	Node
	RepoURL, TargetRevision string
}

// HelmParameter is one Helm --set (--set-string with ForceString).
type HelmParameter struct {
	Node
	Name, Value string
	ForceString bool
}

// Directory is how Argo CD reads a folder of plain manifests.
type Directory struct {
	Node
	Recurse          bool
	Exclude, Include string
}

// Kustomize are options Argo CD applies to a kustomization.
type Kustomize struct {
	Node
	NamePrefix, NameSuffix          string
	Images                          []string
	CommonLabels, CommonAnnotations map[string]string
	Patches                         []*KustomizePatch
}

// KustomizePatch is one kustomize patch and the objects it targets.
type KustomizePatch struct {
	Node
	Patch  string
	Target *PatchTarget
}

// PatchTarget selects the objects of a kustomize patch.
type PatchTarget struct {
	Group, Version, Kind, Name, Namespace, LabelSelector, AnnotationSelector string
}

// ProjectFields are the AppProject fields of a project.
type ProjectFields struct {
	ClusterResourceBlacklist   []GroupKind
	NamespaceResourceWhitelist []GroupKind
	// HasNamespaceWhitelist tells an empty whitelist (no namespaced kind
	// permitted) from none (all are).
	HasNamespaceWhitelist      bool
	Roles                      []*ProjectRole
	SyncWindows                []*SyncWindow
	OrphanedResources          *OrphanedResources
	SignatureKeys              []string
	DestinationServiceAccounts []*DestinationServiceAccount
	// Labels and Annotations of the AppProject object.
	Labels, Annotations map[string]string
	// KeepWhileUsed: the resources finalizer delays deletion until no
	// Application names the AppProject.
	KeepWhileUsed bool
}

// ProjectRole is an RBAC role of an AppProject.
type ProjectRole struct {
	Node
	Name, Description string
	Policies, Groups  []string
}

// SyncWindow is a time when a project's Applications may or may not sync.
type SyncWindow struct {
	Node
	Kind, Schedule, Duration, TimeZone, Description string
	Applications, Namespaces, Clusters              []string
	ManualSync                                      bool
}

// OrphanedResources is the monitoring of objects no Application manages.
type OrphanedResources struct {
	Node
	Warn   *bool
	Ignore []OrphanedKey
}

// OrphanedKey is an object orphaned-resource monitoring does not report.
type OrphanedKey struct{ Group, Kind, Name string }

// DestinationServiceAccount is the service account Argo CD impersonates
// for a destination.
type DestinationServiceAccount struct {
	Node
	Server, Namespace, DefaultServiceAccount string
}

// Sync is a module's resolved sync policy in an environment: the
// module's, the environment's, then its module settings', field by field
// (later wins), over the default (automated, with prune and self-heal).
type Sync struct {
	Automated, Prune, SelfHeal, AllowEmpty bool
	Retry                                  *Retry
	// Manual is where automated: false was set, for messages; nil if
	// automated.
	Manual *SyncPolicy
}

// DefaultSync is the sync policy of a module and environment that set none.
var DefaultSync = Sync{Automated: true, Prune: true, SelfHeal: true}

// KindsRetry is the default retry of an automated Application whose kinds
// are made at runtime (KindInfo.KindsAtRuntime): about 20 minutes in all.
// Argo CD's default gives up after about 2.5 minutes, and a failed sync
// then stays failed on that commit (self-heal does not retry it); kro
// installing at a customer's, image pull included, can take longer.
var KindsRetry = Retry{Limit: 10, Backoff: &Backoff{Duration: "10s", Factor: &kindsRetryFactor, MaxDuration: "3m"}}

var kindsRetryFactor int64 = 2

// SyncIn resolves the module's sync policy in env.
func (m *Module) SyncIn(env *Environment) Sync {
	layers := [3]*SyncPolicy{m.SyncPolicy, env.SyncPolicy}
	if ms := env.Settings[m.Name]; ms != nil {
		layers[2] = ms.SyncPolicy
	}
	s := syncOf(layers[:]...)
	if s.Retry == nil && s.Automated && m.Kind.Info().KindsAtRuntime {
		s.Retry = &KindsRetry
	}
	return s
}

// Sync resolves the sync policy of the Application kro creates for a
// stack module: its own over the default. Environments do not apply: kro
// creates it alike for all.
func (m *StackModule) Sync() Sync { return syncOf(m.SyncPolicy) }

// syncOf is DefaultSync with the layers' fields set over it, in order.
func syncOf(layers ...*SyncPolicy) Sync {
	s := DefaultSync
	for _, p := range layers {
		if p == nil {
			continue
		}
		set := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		set(&s.Automated, p.Automated)
		set(&s.Prune, p.Prune)
		set(&s.SelfHeal, p.SelfHeal)
		set(&s.AllowEmpty, p.AllowEmpty)
		if p.Automated != nil {
			s.Manual = nil
			if !*p.Automated {
				s.Manual = p
			}
		}
		if p.Retry != nil {
			s.Retry = p.Retry
		}
	}
	return s
}

// IgnoreDifferencesIn are the module's ignoreDifferences in env, then the
// environment's module settings' ones.
func (m *Module) IgnoreDifferencesIn(env *Environment) []*IgnoreDifference {
	if ms := env.Settings[m.Name]; ms != nil {
		return append(slices.Clip(m.IgnoreDifferences), ms.IgnoreDifferences...)
	}
	return m.IgnoreDifferences
}

// MetadataIn are the labels and annotations of the module's Application in
// env: the module's, with the environment's module settings' merged over.
func (m *Module) MetadataIn(env *Environment) (labels, annotations map[string]string) {
	ms := env.Settings[m.Name]
	if ms == nil {
		return m.Labels, m.Annotations
	}
	return mergeStrings(m.Labels, ms.Labels), mergeStrings(m.Annotations, ms.Annotations)
}

func mergeStrings(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make(map[string]string, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// optionalAppFields decodes the Application fields modules and stack
// modules share that stay nil when unset, so Argo CD's default applies:
// respectIgnoreDifferences (true where set but unusable: load reported it)
// and revisionHistoryLimit.
func (e entry) optionalAppFields() (respectIgnoreDifferences *bool, revisionHistoryLimit *int64) {
	if e.Has("respectIgnoreDifferences") {
		v := e.boolOr("respectIgnoreDifferences", true)
		respectIgnoreDifferences = &v
	}
	if n, ok := e.int("revisionHistoryLimit"); ok {
		revisionHistoryLimit = &n
	}
	return respectIgnoreDifferences, revisionHistoryLimit
}

func decodeAppFields(e entry) AppFields {
	f := AppFields{
		Labels: e.strMap("labels"), Annotations: e.strMap("annotations"),
		SyncPolicy: e.syncPolicy("syncPolicy"), IgnoreDifferences: e.ignoreDifferences("ignoreDifferences"),
		Manifests: e.str("manifests"),
	}
	f.RespectIgnoreDifferences, f.RevisionHistoryLimit = e.optionalAppFields()
	if e.Has("managedNamespaceMetadata") {
		s := e.sub("managedNamespaceMetadata")
		f.NamespaceMetadata = &NamespaceMetadata{Node: s.node, Labels: s.strMap("labels"), Annotations: s.strMap("annotations")}
	}
	f.Helm = e.helm("helm")
	f.ExtraSources = e.extraSources("extraSources")
	if e.Has("plugin") {
		f.Plugin = e.values("plugin")
		if f.Plugin == nil {
			f.Plugin = map[string]any{}
		}
	}
	f.Directory = e.directory("directory")
	if e.Has("kustomize") {
		s := e.sub("kustomize")
		k := &Kustomize{Node: s.node, NamePrefix: s.str("namePrefix"), NameSuffix: s.str("nameSuffix"), Images: s.strings("images"),
			CommonLabels: s.strMap("commonLabels"), CommonAnnotations: s.strMap("commonAnnotations")}
		s.eachElem("patches", func(p entry) {
			kp := &KustomizePatch{Node: p.node, Patch: p.str("patch")}
			if p.Has("target") {
				t := p.sub("target")
				kp.Target = &PatchTarget{Group: t.str("group"), Version: t.str("version"), Kind: t.str("kind"), Name: t.str("name"),
					Namespace: t.str("namespace"), LabelSelector: t.str("labelSelector"), AnnotationSelector: t.str("annotationSelector")}
			}
			k.Patches = append(k.Patches, kp)
		})
		f.Kustomize = k
	}
	return f
}

func (e entry) helm(name string) *Helm {
	if !e.Has(name) {
		return nil
	}
	s := e.sub(name)
	h := &Helm{Node: s.node, ReleaseName: s.str("releaseName"), SkipCrds: s.boolOr("skipCrds", false),
		PassCredentials: s.boolOr("passCredentials", false), ValueFiles: s.strings("valueFiles"),
		IgnoreMissingValueFiles: s.boolOr("ignoreMissingValueFiles", false)}
	if s.Has("valuesRepo") {
		vr := s.sub("valuesRepo")
		h.ValuesRepo = &ValuesRepo{Node: vr.node, RepoURL: vr.str("repoURL"), TargetRevision: vr.str("targetRevision")}
	}
	h.Parameters = s.helmParameters("parameters")
	return h
}

func (e entry) extraSources(name string) []*ExtraSource {
	var out []*ExtraSource
	e.eachElem(name, func(x entry) {
		out = append(out, &ExtraSource{Node: x.node, Chart: x.str("chart"), Values: x.values("values"), Helm: x.helm("helm"),
			Dir: x.str("path"), RepoURL: x.str("repoURL"), Revision: x.str("revision"), Directory: x.directory("directory")})
	})
	return out
}

// HelmIn are m's helm options in env: the module's, overridden field by
// field by env's settings; nil where neither sets any.
func (m *Module) HelmIn(env *Environment) *Helm {
	s := env.overrideSettings(m)
	if s == nil || s.Helm == nil {
		return m.Helm
	}
	if m.Helm == nil {
		return s.Helm
	}
	h, o := *m.Helm, s.Helm
	if o.Has("releaseName") {
		h.ReleaseName = o.ReleaseName
	}
	if o.Has("skipCrds") {
		h.SkipCrds = o.SkipCrds
	}
	if o.Has("passCredentials") {
		h.PassCredentials = o.PassCredentials
	}
	if o.Has("parameters") {
		h.Parameters = o.Parameters
	}
	if o.Has("valueFiles") {
		h.ValueFiles = o.ValueFiles
	}
	if o.Has("ignoreMissingValueFiles") {
		h.IgnoreMissingValueFiles = o.IgnoreMissingValueFiles
	}
	if o.Has("valuesRepo") {
		h.ValuesRepo = o.ValuesRepo
	}
	return &h
}

// ExtraSourcesIn are m's further sources in env: the environment's
// settings', where they set them, else the module's.
func (m *Module) ExtraSourcesIn(env *Environment) []*ExtraSource {
	if s := env.overrideSettings(m); s != nil && s.HasExtraSources {
		return s.ExtraSources
	}
	return m.ExtraSources
}

// CascadeDeleteIn reports whether m's Application in env has the
// resources finalizer: the environment's settings say, else the module.
func (m *Module) CascadeDeleteIn(env *Environment) bool {
	if s := env.overrideSettings(m); s != nil && s.CascadeDelete != nil {
		return *s.CascadeDelete
	}
	return m.CascadeDelete
}

// CreateNamespaceIn reports whether m's Application in env creates its
// namespace: env's settings say, else the module.
func (m *Module) CreateNamespaceIn(env *Environment) bool {
	if s := env.overrideSettings(m); s != nil && s.CreateNamespace != nil {
		return *s.CreateNamespace
	}
	return m.CreateNamespace
}

// SyncOptionsIn are m's further sync options in env: the environment's
// settings', where they set them, else the module's.
func (m *Module) SyncOptionsIn(env *Environment) []string {
	if s := env.overrideSettings(m); s != nil && s.HasSyncOptions {
		return s.SyncOptions
	}
	return m.SyncOptions
}

// ExtraFoldersIn are the folders of this repository among m's further
// sources in env (nil: the module's own).
func (m *Module) ExtraFoldersIn(env *Environment) []string {
	var out []string
	if m.Kind.Takes("extraSources") {
		for _, x := range m.ExtraSourcesIn(env) {
			if x.Chart == "" && x.RepoURL == "" && !slices.Contains(out, x.Dir) {
				out = append(out, x.Dir)
			}
		}
	}
	return out
}

// AllExtraSources are m's further sources and every environment's.
func (m *Module) AllExtraSources(spec *Spec) []*ExtraSource {
	out := m.ExtraSources
	for _, env := range spec.Environments {
		if s := env.Settings[m.Name]; s != nil && s.HasExtraSources {
			out = append(slices.Clip(out), s.ExtraSources...)
		}
	}
	return out
}

func (e entry) helmParameters(name string) []*HelmParameter {
	var out []*HelmParameter
	e.eachElem(name, func(p entry) {
		out = append(out, &HelmParameter{Node: p.node, Name: p.str("name"), Value: p.str("value"), ForceString: p.boolOr("forceString", false)})
	})
	return out
}

func (e entry) directory(name string) *Directory {
	if !e.Has(name) {
		return nil
	}
	s := e.sub(name)
	return &Directory{Node: s.node, Recurse: s.boolOr("recurse", false), Exclude: s.str("exclude"), Include: s.str("include")}
}

func decodeProjectFields(p entry) ProjectFields {
	f := ProjectFields{
		ClusterResourceBlacklist:   p.groupKinds("clusterResourceBlacklist"),
		NamespaceResourceWhitelist: p.groupKinds("namespaceResourceWhitelist"),
		HasNamespaceWhitelist:      p.node.OK("namespaceResourceWhitelist"),
		SignatureKeys:              p.strings("signatureKeys"),
		Labels:                     p.strMap("labels"),
		Annotations:                p.strMap("annotations"),
		KeepWhileUsed:              p.boolOr("keepWhileUsed", false),
	}
	p.eachElem("roles", func(r entry) {
		f.Roles = append(f.Roles, &ProjectRole{Node: r.node, Name: r.str("name"), Description: r.str("description"),
			Policies: r.strings("policies"), Groups: r.strings("groups")})
	})
	p.eachElem("syncWindows", func(w entry) {
		f.SyncWindows = append(f.SyncWindows, &SyncWindow{Node: w.node, Kind: w.str("kind"), Schedule: w.str("schedule"),
			Duration: w.str("duration"), TimeZone: w.str("timeZone"), Description: w.str("description"),
			Applications: w.strings("applications"), Namespaces: w.strings("namespaces"), Clusters: w.strings("clusters"),
			ManualSync: w.boolOr("manualSync", false)})
	})
	if p.Has("orphanedResources") {
		o := p.sub("orphanedResources")
		or := &OrphanedResources{Node: o.node}
		if o.Has("warn") {
			w := o.boolOr("warn", false)
			or.Warn = &w
		}
		o.eachElem("ignore", func(k entry) {
			or.Ignore = append(or.Ignore, OrphanedKey{Group: k.str("group"), Kind: k.str("kind"), Name: k.str("name")})
		})
		f.OrphanedResources = or
	}
	p.eachElem("destinationServiceAccounts", func(d entry) {
		f.DestinationServiceAccounts = append(f.DestinationServiceAccounts, &DestinationServiceAccount{Node: d.node,
			Server: d.str("server"), Namespace: d.str("namespace"), DefaultServiceAccount: d.str("defaultServiceAccount")})
	})
	return f
}

func (e entry) syncPolicy(name string) *SyncPolicy {
	if !e.Has(name) {
		return nil
	}
	s := e.sub(name)
	p := &SyncPolicy{Node: s.node, Automated: s.optBool("automated"), Prune: s.optBool("prune"),
		SelfHeal: s.optBool("selfHeal"), AllowEmpty: s.optBool("allowEmpty")}
	if s.Has("retry") {
		r := s.sub("retry")
		limit, _ := r.int("limit")
		p.Retry = &Retry{Node: r.node, Limit: limit, Refresh: r.boolOr("refresh", false)}
		if r.Has("backoff") {
			b := r.sub("backoff")
			p.Retry.Backoff = &Backoff{Node: b.node, Duration: b.str("duration"), MaxDuration: b.str("maxDuration")}
			if f, ok := b.int("factor"); ok {
				p.Retry.Backoff.Factor = &f
			}
		}
	}
	return p
}

func (e entry) ignoreDifferences(name string) []*IgnoreDifference {
	var out []*IgnoreDifference
	e.eachElem(name, func(x entry) {
		out = append(out, &IgnoreDifference{Node: x.node, Group: x.str("group"), Kind: x.str("kind"), Name: x.str("name"),
			Namespace: x.str("namespace"), JSONPointers: x.strings("jsonPointers"), JQPathExpressions: x.strings("jqPathExpressions"),
			ManagedFieldsManagers: x.strings("managedFieldsManagers")})
	})
	return out
}

// optBool is a boolean field that may be unset.
func (e entry) optBool(name string) *bool {
	if !e.node.OK(name) {
		return nil
	}
	b := e.boolOr(name, false)
	return &b
}

// strMap decodes a struct of strings (labels, annotations).
func (e entry) strMap(name string) map[string]string {
	var out map[string]string
	e.eachField(name, func(k string, x entry) {
		if out == nil {
			out = map[string]string{}
		}
		out[k] = x.v.Str
	})
	return out
}
