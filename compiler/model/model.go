// Package model holds the platform spec as plain Go types, decoded from
// load's plain data (load.Value). No CUE type is visible here or past it.
//
// Decoding is lenient: load has already reported what does not fit the
// schema, so it takes what is there and leaves the rest zero; judging is
// check's job. Schema defaults are applied here, so later stages see one
// value.
package model

import (
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/upstream"
)

// Spec is a whole platform spec.
type Spec struct {
	Platform     Platform
	Charts       []*Chart       // sorted by name
	Modules      []*Module      // sorted by name
	Environments []*Environment // sorted by name
	Stacks       []*Stack       // sorted by name
	Clients      []*Client      // sorted by name

	charts       map[string]*Chart
	modules      map[string]*Module
	stacks       map[string]*Stack
	environments map[string]*Environment
	decls        map[string]diag.Pos
	literals     map[string]load.Literal // strings with ${...}, by spec path
	pinned       map[string]bool         // charts some environment pins (versions.go)
}

// Stack returns the stack named name, or nil.
func (s *Spec) Stack(name string) *Stack { return s.stacks[name] }

// EnvNames is the names of envs, in their order.
func EnvNames(envs []*Environment) []string {
	var names []string
	for _, e := range envs {
		names = append(names, e.Name)
	}
	return names
}

// Environment returns the environment named name, or nil.
func (s *Spec) Environment(name string) *Environment { return s.environments[name] }

// PosOf returns the position of the field at a spec path, or of the nearest
// enclosing field written in a spec file.
func (s *Spec) PosOf(path string) diag.Pos { return diag.Nearest(s.decls, path) }

// ElemPos returns where the element of a list at path ("a.b[2]") is
// written, when the list is written in place; the zero Pos otherwise.
func (s *Spec) ElemPos(path string) diag.Pos { return s.decls[path] }

// PosIn returns the position of byte offset of str, the string at a spec
// path: that character's, if the literal there writes str; the literal's,
// if platc derived str from it; else PosOf(path).
func (s *Spec) PosIn(path, str string, offset int) diag.Pos {
	l, ok := s.literals[path]
	if !ok {
		return s.PosOf(path)
	}
	if v, ok := l.Value(); !ok || v != str {
		return l.Pos
	}
	return l.PosAt(offset)
}

// Chart returns the chart named name, or nil.
func (s *Spec) Chart(name string) *Chart { return s.charts[name] }

// Module returns the module named name, or nil.
func (s *Spec) Module(name string) *Module { return s.modules[name] }

// Platform describes the platform as a whole.
type Platform struct {
	Node
	Name               string
	Description        string
	RepoURL            string
	OutDir             string // default "out"
	ArgoCDNamespace    string // default "argocd"
	DefaultEnvironment string
	ResourceTracking   string // default "annotation"
	ApplicationHealth  bool   // default false
	// KustomizeBuildOptions is Argo CD's kustomize.buildOptions.
	KustomizeBuildOptions string
	GeneratePaths         bool // manifestGeneratePaths; default true
	// Kro is the platform's kro installation as the spec states it.
	Kro Kro
}

// Kro is what the spec says of the kro the platform runs.
type Kro struct {
	Node
	// FeatureGates are kro's feature gates (its pkg/features) by name, as
	// its controller runs with them; a gate not named has kro's default.
	FeatureGates map[string]bool
}

// Chart is a pinned upstream Helm chart.
type Chart struct {
	Node
	Name    string
	RepoURL string
	Chart   string
	Version string
	// Pin is the environment pin the version comes from (Spec.ChartIn);
	// nil for the platform's.
	Pin *ChartPin
}

// OCI reports whether the chart lives in an OCI registry: an oci://
// repository, or one written without a scheme, which Argo CD reads as
// an OCI registry (helm.IsHelmOciRepo).
func (c *Chart) OCI() bool {
	return len(c.RepoURL) > len("oci://") && strings.HasPrefix(c.RepoURL, "oci://") || OCIRegistry(c.RepoURL)
}

// OCIRegistry reports whether a chart repository URL has no scheme
// (registry.example.com/charts), which Argo CD reads as OCI.
func OCIRegistry(repoURL string) bool { return repoURL != "" && !strings.Contains(repoURL, "://") }

// OCIRef is the oci:// reference of an OCI chart (OCI), without its
// version: the repository, then the chart.
func (c *Chart) OCIRef() string {
	return "oci://" + strings.TrimSuffix(strings.TrimPrefix(c.RepoURL, "oci://"), "/") + "/" + c.Chart
}

// ModuleKind says what a module deploys.
//
// Every behaviour that differs by kind is a column of KindInfos or a method
// here, and nothing outside this package names a kind: a new kind is a row
// of KindInfos (TestKindsOnlyInTheTable refuses a Kind* constant anywhere
// else, TestEveryKindIsDescribed a row that leaves a column out).
type ModuleKind int

const (
	// KindInvalid is a module that sets none, or more than one, of the
	// kinds' fields (Kinds).
	KindInvalid ModuleKind = iota
	// KindChart installs an upstream Helm chart.
	KindChart
	// KindPath syncs a folder of this repository.
	KindPath
	// KindGroup is a nested app-of-apps of other modules.
	KindGroup
	// KindStacks delivers the instances of stacks, one per client.
	KindStacks
	// KindDefinitions delivers the ResourceGraphDefinitions of stacks.
	KindDefinitions

	// kindCount is the number of kinds: a new kind goes above it, with a
	// row in KindInfos (TestEveryKindIsDescribed).
	kindCount
)

// KindInfo holds the facts about a module kind that stages read instead of
// comparing kinds. A new kind is a row of KindInfos, a field of #Module in
// schemas/platform.cue, and, for a new column value, a case in the
// switches on it (each fails loudly on unknown values): render.application
// and check.module on Syncs, render.application on Deploys,
// render.directApply on DirectApply.
type KindInfo struct {
	// Field is the field of #Module that sets the kind.
	Field string
	// Options are the other #Module fields only this kind takes (Takes;
	// check.appFields refuses them elsewhere).
	Options []string
	// Syncs is what the kind's Application syncs (render.application),
	// and so what its field names (check.module) and which folder of
	// this repository it reads (Module.RepoFolderIn, TakesValues).
	Syncs Syncs
	// Deploys is where the kind's Application deploys
	// (render.application), and so whether the kind names a namespace
	// (Namespaced).
	Deploys Deploys
	// DirectApply is how the direct-apply plan installs it
	// (render.directApply).
	DirectApply DirectApply
	// KindsAtRuntime kinds sync objects whose kind a controller creates
	// during delivery, possibly after the first sync (an instance kind
	// once kro reconciles its RGD, the RGD kind once kro is installed).
	// Their Application retries longer by default (KindsRetry).
	KindsAtRuntime bool
}

// Syncs says what a module's Application syncs.
type Syncs int

const (
	// SyncsChart: a Helm chart (and the module's manifests, a folder of
	// this repository, as a second source, or its values files).
	SyncsChart Syncs = iota + 1
	// SyncsRepoFolder: the module's folder of this repository (its
	// path), which Argo CD renders with Helm where it is a chart.
	SyncsRepoFolder
	// SyncsMembers: the Applications of the module's members
	// (Module.Members), the apps file of its own folder of the
	// environment under the output root.
	SyncsMembers
	// SyncsInstances: the instances of the module's stacks
	// (Module.Stacks), one per client, in its own folder of the
	// environment under the output root.
	SyncsInstances
	// SyncsDefinitions: the ResourceGraphDefinitions of the module's
	// stacks (Module.Stacks), of the output root's stacks folder.
	SyncsDefinitions
)

// Deploys says where a module's Application deploys.
type Deploys int

const (
	// DestNamespace: the environment's cluster, in the module's namespace.
	DestNamespace Deploys = iota + 1
	// DestArgoCD: Argo CD's namespace of the cluster Argo CD runs in
	// (Applications that create Applications).
	DestArgoCD
	// DestCluster: the environment's cluster; cluster-scoped objects, the
	// namespace only for the project to permit, when given.
	DestCluster
)

// DirectApply says how the direct-apply plan installs a module.
type DirectApply int

const (
	// DirectHelm: helm upgrade --install.
	DirectHelm DirectApply = iota + 1
	// DirectKubectl: kubectl apply of the folder.
	DirectKubectl
	// DirectMembers: the members, in their order.
	DirectMembers
	// DirectSkipped: it needs Argo CD (kro creates Applications).
	DirectSkipped
)

// KindInfos describes every kind, by ModuleKind. Each row but
// KindInvalid's writes every column, false and nil included, so a new
// column is answered for each kind (TestEveryKindIsDescribed).
var KindInfos = [kindCount]KindInfo{
	KindInvalid:     {},
	KindChart:       {Field: "chart", Options: []string{"manifests", "extraSources"}, Syncs: SyncsChart, Deploys: DestNamespace, DirectApply: DirectHelm, KindsAtRuntime: false},
	KindPath:        {Field: "path", Options: []string{"directory", "kustomize", "plugin", "extraSources"}, Syncs: SyncsRepoFolder, Deploys: DestNamespace, DirectApply: DirectKubectl, KindsAtRuntime: false},
	KindGroup:       {Field: "group", Options: nil, Syncs: SyncsMembers, Deploys: DestArgoCD, DirectApply: DirectMembers, KindsAtRuntime: false},
	KindStacks:      {Field: "stacks", Options: nil, Syncs: SyncsInstances, Deploys: DestNamespace, DirectApply: DirectSkipped, KindsAtRuntime: true},
	KindDefinitions: {Field: "definitions", Options: nil, Syncs: SyncsDefinitions, Deploys: DestCluster, DirectApply: DirectSkipped, KindsAtRuntime: true},
}

// Info returns what kind k is.
func (k ModuleKind) Info() KindInfo { return KindInfos[k] }

// Valid reports whether k is not KindInvalid; check reports invalid ones,
// so later stages see valid kinds only.
func (k ModuleKind) Valid() bool { return KindInvalid < k && k < kindCount }

// Namespaced reports whether modules of kind k deploy into a namespace of
// their own (DestNamespace), which they must name (check.module);
// createNamespace and managedNamespaceMetadata apply to them
// (render.setSync, check.appFields).
func (k ModuleKind) Namespaced() bool { return KindInfos[k].Deploys == DestNamespace }

// TakesValues reports whether modules of kind k take Helm values, wiring
// and helm options: those whose Application renders a chart with Helm, a
// pinned chart or a folder holding a Chart.yaml (what Argo CD looks for).
func (k ModuleKind) TakesValues(chartFolder bool) bool {
	switch KindInfos[k].Syncs {
	case SyncsChart:
		return true
	case SyncsRepoFolder:
		return chartFolder
	}
	return false
}

// Takes reports whether modules of kind k take option, one of the kinds'
// Options.
func (k ModuleKind) Takes(option string) bool { return slices.Contains(KindInfos[k].Options, option) }

// KindOptions are the kinds' Options, each once, in the order of
// ModuleKind.
var KindOptions = func() []string {
	var out []string
	for _, info := range KindInfos {
		for _, o := range info.Options {
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}()

// KindsTaking are the fields of the kinds that take option.
func KindsTaking(option string) []string {
	var out []string
	for _, info := range KindInfos {
		if slices.Contains(info.Options, option) {
			out = append(out, info.Field)
		}
	}
	return out
}

// Kinds lists the fields that set a module's kind, in the order of
// ModuleKind (KindInfos' Field).
var Kinds = func() []string {
	out := make([]string, len(KindInfos))
	for k, info := range KindInfos {
		out[k] = info.Field
	}
	return out
}()

// Module is one child Application.
type Module struct {
	Node
	Name        string
	Description string
	Kind        ModuleKind
	Chart       string // KindChart: the name of a chart in Spec.Charts
	Dir         string // KindPath: a folder relative to the repository root
	// RepoURL is the other Git repository that holds Dir, or "" for this
	// one (Decode clears the platform's own URL); platc does not read it.
	RepoURL string
	// Revision is the revision Dir is read at; "" for the default
	// (RevisionIn).
	Revision string
	// Destination is the module's own cluster; nil for the environment's.
	Destination     *Destination
	Members         []string // KindGroup: module names, as written
	Stacks          []string // KindStacks, KindDefinitions: stack names, as written
	Namespace       string
	Needs           []string
	Wave            *int
	Values          map[string]any
	Wiring          []*Wire // sorted by values path
	Endpoint        *Endpoint
	CreateNamespace bool // default true
	SyncOptions     []string
	CascadeDelete   bool // default true
	Allow           Allow
	// The extended Argo CD fields (fields.go); zero where unused.
	AppFields
}

// SetsSources reports whether any module settings of env set a path,
// revision or destination.
func (env *Environment) SetsSources() bool { return env.sources }

// sourceSettings are m's settings in env where env sets any module's
// source (path, revision, destination, namespace), else nil: the common
// case skips the lookup.
func (env *Environment) sourceSettings(m *Module) *ModuleSettings {
	if env == nil || !env.sources {
		return nil
	}
	return env.Settings[m.Name]
}

// DirIn is the folder a path module syncs in env: the environment's
// setting, or the module's path (also where env is nil).
func (m *Module) DirIn(env *Environment) string {
	if s := env.sourceSettings(m); s != nil && s.Dir != "" {
		return s.Dir
	}
	return m.Dir
}

// RepoURLIn is the Git repository a path module's folder is in, in env:
// the environment's setting, or the module's; "" for this repository.
func (m *Module) RepoURLIn(env *Environment) string {
	if s := env.sourceSettings(m); s != nil && s.RepoURL != "" {
		return s.RepoURL
	}
	return m.RepoURL
}

// RepoFolderIn is the folder of this repository m's Application syncs in
// env (nil: the module's own), or "": its path or env's (DirIn), maybe a
// chart, or a chart module's manifests.
func (m *Module) RepoFolderIn(env *Environment) string {
	switch m.Kind.Info().Syncs {
	case SyncsRepoFolder:
		if m.RepoURLIn(env) != "" || m.Plugin != nil {
			// Another repository's, which platc does not read, or one a
			// plugin renders, which platc does not run.
			return ""
		}
		return m.DirIn(env)
	case SyncsChart:
		return m.Manifests
	}
	return ""
}

// RepoFolders are the folders of this repository m syncs in any
// environment of spec: its own, the environments' own paths, and the
// folders of its further sources.
func (m *Module) RepoFolders(spec *Spec) []string {
	var out []string
	add := func(env *Environment) {
		for _, d := range append([]string{m.RepoFolderIn(env)}, m.ExtraFoldersIn(env)...) {
			if d != "" && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	add(nil)
	for _, env := range spec.Environments {
		add(env)
	}
	return out
}

// RevisionIn is the revision of its repository that m's folder is read
// at in env: the environment's setting, the module's, or the default (the
// environment's revision for this repository, HEAD for another).
func (m *Module) RevisionIn(env *Environment) string {
	if s := env.sourceSettings(m); s != nil && s.Revision != "" {
		return s.Revision
	}
	switch {
	case m.Revision != "":
		return m.Revision
	case m.RepoURLIn(env) != "":
		return "HEAD"
	}
	return env.Revision
}

// DestinationIn is the cluster m deploys to in env: the environment's
// setting for it, the module's own, or the environment's.
func (m *Module) DestinationIn(env *Environment) Destination {
	if s := env.sourceSettings(m); s != nil && s.Destination != nil {
		return *s.Destination
	}
	if m.Destination != nil {
		return *m.Destination
	}
	return env.Destination
}

// Root adjusts an environment's root Application.
type Root struct {
	Node
	Name          string // "" for the default
	CascadeDelete bool
	SyncPolicy    *SyncPolicy
}

// RootName is the name of env's root Application: its root's name, or
// root-<environment>.
func (env *Environment) RootName() string {
	if env.Root != nil && env.Root.Name != "" {
		return env.Root.Name
	}
	return DefaultRootName(env.Name)
}

// DefaultRootName is the name of an environment's root Application where
// the spec names none.
func DefaultRootName(env string) string { return "root-" + env }

// RootSync is the sync policy of env's root Application: its root's, or
// the default (never the environment's, which is its modules').
func (env *Environment) RootSync() Sync {
	if env.Root == nil {
		return DefaultSync
	}
	return syncOf(env.Root.SyncPolicy)
}

// AnyNamespace is the destination namespace "*", which Argo CD takes for
// a folder whose objects name their own namespaces.
const AnyNamespace = "*"

// NamespaceIn is the namespace m deploys to in env: the environment's
// setting for it, or the module's.
func (m *Module) NamespaceIn(env *Environment) string {
	if s := env.sourceSettings(m); s != nil && s.Namespace != "" {
		return s.Namespace
	}
	return m.Namespace
}

// Allow holds exceptions to the security lints: the reason, by lint name.
type Allow map[string]string

// Stack is a product stack, rendered as a kro ResourceGraphDefinition.
type Stack struct {
	Node
	Name         string
	Description  string
	Kind         string
	APIVersion   string         // default "v1alpha1"
	Group        string         // default "kro.run"
	Spec         map[string]any // SimpleSchema tree
	Types        map[string]any // named SimpleSchema types, by name
	Status       map[string]any // tree of ${...} strings
	Outputs      []*Output      // sorted by name
	Wiring       []*StackWire   // sorted by key
	ValuesDir    string         // default the stack's name
	Namespace    string         // template; default "${schema.metadata.namespace}"
	Primitives   []*Primitive   // in declaration order
	Resources    []*Resource    // in declaration order
	ExternalRefs []*ExternalRef // in declaration order
	Modules      []*StackModule // in declaration order
}

// Output returns the output named name, or nil.
func (st *Stack) Output(name string) *Output {
	for _, o := range st.Outputs {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Output is a value of a stack's instance other stacks can be wired from.
type Output struct {
	Node
	Name string
	Expr string // a ${...} template over schema
}

// StackWire fills a field of a stack's instances from another stack's
// output.
type StackWire struct {
	Node
	Key        string   // the spec path as written
	SpecPath   []string // Key split at unescaped dots; nil if malformed
	FromStack  string
	FromOutput string
}

// Primitive is a composite resource a stack consumes.
type Primitive struct {
	Node
	ID          string
	Kind        string
	Name        string // template; empty for the default
	Spec        map[string]any
	ForEach     []*ForEach
	IncludeWhen []string
	ReadyWhen   []string
}

// Resource is an object a stack creates, of any kind platc knows.
type Resource struct {
	Node
	ID          string
	Template    map[string]any // apiVersion, kind, metadata, the kind's fields
	APIVersion  string         // the template's, "" when not a string
	Kind        string
	ForEach     []*ForEach
	IncludeWhen []string
	ReadyWhen   []string
}

// ForEach is one dimension of a resource's forEach: an iterator over a
// list. An entry that does not name exactly one iterator has Name "" (and
// Names what it names).
type ForEach struct {
	Node
	Name  string
	Expr  string
	Names []string // the entry's keys, sorted
}

// ExternalRef is an object a stack reads and does not own.
type ExternalRef struct {
	Node
	ID               string
	APIVersion, Kind string
	Name, Namespace  string // templates; Namespace "" for the instance's
}

// StackModule is a Helm chart a stack installs as an Application.
type StackModule struct {
	Node
	ID          string
	Description string
	Chart       string
	Namespace   string // template; empty for the default
	ValuesFile  string // default "<id>.yaml"
	Values      map[string]any
	Wiring      []*ExprWire // sorted by key
	ForEach     []*ForEach  // one Application per element (kro's collection)
	IncludeWhen []string
	ReadyWhen   []string
	SyncOptions []string
	Allow       Allow
	// The Argo CD fields of a module's Application that an Application
	// kro creates takes.
	SyncPolicy               *SyncPolicy
	IgnoreDifferences        []*IgnoreDifference
	RespectIgnoreDifferences *bool
	RevisionHistoryLimit     *int64
}

// ExprWire sets a Helm value of a stack module from an expression.
type ExprWire struct {
	Node
	Key        string   // the values path as written
	ValuesPath []string // Key split at unescaped dots; nil if malformed
	Expr       string
}

// Client is a team that consumes stacks.
type Client struct {
	Node
	Name        string
	Description string
	Values      ClientValues
	Stacks      []*ClientStack // sorted by stack name
	Allow       Allow
}

// Stack returns the client's use of the stack named name, or nil.
func (c *Client) Stack(name string) *ClientStack {
	for _, cs := range c.Stacks {
		if cs.Stack == name {
			return cs
		}
	}
	return nil
}

// ClientValues is where a team's values files live.
type ClientValues struct {
	Node
	RepoURL  string
	Revision string // default "main"
	Prefix   string // default "clients/<client>"
}

// ClientStack is a team's use of a stack.
type ClientStack struct {
	Node
	Stack        string
	Environments []string
	Spec         map[string]any
	Project      string // empty for the environment's project
}

// Endpoint is a network endpoint of a service.
type Endpoint struct {
	Node
	Host   string
	Port   int64
	Scheme string
}

// Wire sets one Helm value from a module's endpoint.
type Wire struct {
	Node
	Key        string   // the values path as written
	ValuesPath []string // Key split at unescaped dots; nil if Key is malformed
	From       string   // module name
	Field      string   // address, host, port or url; default address
}

// Environment is one cluster the platform is delivered to.
type Environment struct {
	Node
	Name string
	// Root is the root Application's settings; nil where the spec sets
	// none (RootName, RootSync).
	Root        *Root
	Description string
	Revision    string
	Pinned      bool
	DirectApply bool
	Destination Destination
	Project     string                     // default "default"
	Projects    []*Project                 // sorted by name
	Settings    map[string]*ModuleSettings // by module name
	SyncPolicy  *SyncPolicy                // nil where the environment sets none
	Kubernetes  Kubernetes
	// ArgoCD and Kro are the releases the environment's cluster runs, as
	// it declares them; Version "" where it does not.
	ArgoCD, Kro Release
	// Charts are the environment's own chart versions (versions.go);
	// nil where it runs the platform's.
	Charts []*ChartPin // sorted by chart name
	charts map[string]*Chart
	// sources: some module settings set a path, revision or
	// destination (DirIn, RevisionIn, DestinationIn look them up only
	// then).
	sources bool
	// overrides: some module settings set helm, extraSources,
	// syncOptions, cascadeDelete or createNamespace (HelmIn and the
	// like look them up only then).
	overrides bool
}

// overrideSettings are m's settings in env where some settings of env
// override a module's Application fields (overrides), else nil.
func (env *Environment) overrideSettings(m *Module) *ModuleSettings {
	if env == nil || !env.overrides {
		return nil
	}
	return env.Settings[m.Name]
}

// DefaultKubeVersion is the Kubernetes version charts are rendered for
// where an environment does not say: the one platc targets, "1.37.2".
var DefaultKubeVersion = strings.TrimPrefix(upstream.Kubernetes, "v")

// Kubernetes is the cluster's Kubernetes as charts see it.
type Kubernetes struct {
	Node
	Version     string   // default DefaultKubeVersion
	APIVersions []string // beyond Kubernetes' own
}

// Release is the release of a project that a cluster runs.
type Release struct {
	Node
	Version string // "v3.5.7", "3.5"; "" where the environment does not say
}

// Destination is a cluster, by API server URL or by name.
type Destination struct {
	Node
	Server string
	Name   string
}

// ModuleSettings adjust one module in one environment.
type ModuleSettings struct {
	Node
	Module   string
	Enabled  bool // default true
	External *Endpoint
	Values   map[string]any
	Project  string
	// RepoURL, Dir (its path), Revision, Destination and Namespace
	// override the module's; "" and nil where the environment does not
	// set them.
	RepoURL     string
	Dir         string
	Revision    string
	Destination *Destination
	Namespace   string
	// SyncPolicy, IgnoreDifferences, Labels and Annotations override
	// the module's (fields.go).
	SyncPolicy        *SyncPolicy
	IgnoreDifferences []*IgnoreDifference
	Labels            map[string]string
	Annotations       map[string]string
	// Helm overrides the module's helm options, field by field (HelmIn);
	// nil where the environment sets none.
	Helm *Helm
	// ExtraSources replace the module's where HasExtraSources
	// (ExtraSourcesIn).
	ExtraSources    []*ExtraSource
	HasExtraSources bool
	// SyncOptions replace the module's where HasSyncOptions
	// (SyncOptionsIn).
	SyncOptions    []string
	HasSyncOptions bool
	// CascadeDelete and CreateNamespace override the module's where not
	// nil (CascadeDeleteIn, CreateNamespaceIn).
	CascadeDelete, CreateNamespace *bool
}

// Project is an Argo CD AppProject.
type Project struct {
	Node
	Name                       string
	Description                string
	SourceRepos                []string
	Destinations               []ProjectDestination
	ClusterResourceWhitelist   []GroupKind
	NamespaceResourceBlacklist []GroupKind
	SourceNamespaces           []string
	Allow                      Allow
	// The extended AppProject fields (fields.go).
	ProjectFields
}

// ProjectDestination is a cluster and namespace a project permits.
type ProjectDestination struct {
	Server    string
	Name      string
	Namespace string
}

// GroupKind names a Kubernetes kind by API group.
type GroupKind struct {
	Group string
	Kind  string
}

// Node is what every spec entity carries for error messages: its spec path,
// its position, and the positions of its fields.
type Node struct {
	Path   string   // spec path, such as modules.qdrant
	Pos    diag.Pos // where the entity is declared
	fields map[string]field
}

// field is what decoding found of one field.
type field struct {
	pos diag.Pos
	ok  bool // its value was decoded; false where load reported an error
}

// At returns the position of the named field, or of the entity where the
// field has none in a spec file (a default, or a missing field).
func (n *Node) At(name string) diag.Pos {
	if f, ok := n.fields[name]; ok && f.pos.IsValid() {
		return f.pos
	}
	return n.Pos
}

// FieldPath returns the spec path of the named field.
func (n *Node) FieldPath(field string) string {
	if n.Path == "" {
		return field
	}
	return n.Path + "." + field
}

// Has reports whether the field was set in the spec (not defaulted), with
// a usable value or not.
func (n *Node) Has(name string) bool {
	_, ok := n.fields[name]
	return ok
}

// OK reports whether the field was set in the spec with a usable value.
// Checks of a value look at it only where OK: load has reported the others.
func (n *Node) OK(name string) bool {
	return n.fields[name].ok
}

// IsReleaseTag reports whether rev is a release tag of the platform's
// repository, which a pinned environment names: vMAJOR.MINOR.PATCH, with an
// optional pre-release (v1.2.3-rc.1), in semantic versioning's canonical
// form (no leading zeros), without build metadata (which semantic
// versioning does not order).
func IsReleaseTag(rev string) bool {
	return semver.IsValid(rev) && semver.Canonical(rev) == rev && semver.Build(rev) == ""
}
