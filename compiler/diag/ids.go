package diag

import (
	"fmt"
	"strings"
)

// ID names a kind of problem: every problem platc reports carries one,
// shown after the message in text (" [unknown-name]"), in the title of
// a GitHub annotation and as "id" in JSON. Messages says what each is.
// An id's name is stable: tools and people match on it.
//
// A new kind of problem is a constant here and a row of Messages; the
// tests refuse a row that is not whole, and docs/messages.md is made
// from the table (platc help messages prints the same text).
type ID uint16

const (
	// NoID is the zero ID: a problem made without one. No problem platc
	// reports has it (the golden tests refuse one).
	NoID ID = iota

	// The spec: reading it, CUE, the spec language.
	IO
	Interrupted
	Locked
	SpecFiles
	CUE
	UnknownField
	RequiredField
	Incomplete
	SpecType
	Usage
	SelfComprehension
	ClosedDefinition

	// platc's own checks of the spec.
	UnknownName
	SelfReference
	Cycle
	Order
	Name
	Duplicate
	ModuleKind
	Path
	Missing
	SyncsNothing
	NoInstances
	OutDir
	Source
	Version
	UpstreamVersion
	ValuesPath
	IndexKey
	Wiring
	Revision
	Pinned
	ManualSync
	StackDelivery
	Allow
	NoEffect
	AnyNamespace
	EmptyFolder

	// Argo CD's rules, ported.
	SyncOption
	SyncPolicy
	IgnoreDifferences
	Metadata
	HelmOptions
	Kustomize
	Destination
	ServiceAccount
	ProjectSource
	ProjectDestination
	ProjectKind
	SourceNamespace
	ArgoCDProject
	ArgoCDApplication
	SharedResource
	ValueFile
	ResourceName

	// The security lints: an allow field may make exceptions to them.
	LiteralSecret
	Wildcard

	// The objects the Applications sync.
	Manifest
	ObjectSchema
	SizeLimit
	ObjectConflict

	// Helm charts.
	ChartLock
	ChartUnlocked
	ChartRender
	ChartValues
	ChartValue
	ChartSchemaRef
	UnknownKind
	SharedGroupKind
	RemoteBase
	NotChecked

	// Client values.
	ValuesFile
	UnreadValues
	ValuesConflict

	// YAML files of every kind.
	DuplicateKey

	// The editor's files.
	EditorSchema

	// Stacks and kro.
	StackEval
	Primitive
	FeatureGate
	KroCEL
	KroForEach
	KroGraph
	KroSchema
	KroTemplate
	KroDefault
	KroCRD
	KroAPI
	KroUnterminated
	KroReservedID
	KroStatusRBAC

	// Releases and edits of the spec.
	Release
	SpecEdit
	Outdated

	idCount
)

// Origin is where a rule comes from: platc's own, or ported from (or
// run by) the project named.
type Origin string

const (
	FromPlatc      Origin = "platc"
	FromCUE        Origin = "CUE"
	FromArgoCD     Origin = "Argo CD"
	FromKro        Origin = "kro"
	FromHelm       Origin = "Helm"
	FromKubernetes Origin = "the API server"
	FromKustomize  Origin = "kustomize"
)

// Message is what a kind of problem is.
type Message struct {
	// Name is the id as users see it: lower-case words joined by '-'.
	Name     string
	Severity Severity
	Source   Origin
	// Strict: -strict makes the warning an error.
	Strict bool
	// Allow: an allow field of the spec (allow: {name: "reason"}) may
	// make an exception to it; only the security lints may.
	Allow bool
	// ErrorFrom, for a warning of a rule that a release platc does not
	// target yet brings ("kro v0.10"), names that release: the warning
	// is an error where an environment declares it, or a later one.
	ErrorFrom string
	// Summary is one line: what the problem is.
	Summary string
	// Text says why it matters and what to do, for platc help <name>.
	Text string
}

// Messages describes every ID but NoID.
var Messages = [idCount]Message{
	IO: {Name: "io", Source: FromPlatc,
		Summary: "a file or folder cannot be read or written",
		Text:    "platc could not read an input or write its output: the message names the file and the system's reason (a permission, a full disk). Fix that and run platc again; a failed render leaves the output folder as it was."},
	Interrupted: {Name: "interrupted", Source: FromPlatc,
		Summary: "the command was interrupted",
		Text:    "A signal stopped the command. A render stopped before its commit point leaves the output folder as it was; one stopped after it is completed by the next platc command."},
	Locked: {Name: "locked", Source: FromPlatc,
		Summary: "another platc holds the output folder's lock",
		Text:    "One platc writes an output folder at a time: let the other finish, or end it if it is stuck; platc waits for it first, and a lock its holder left behind when it died is taken over."},
	SpecFiles: {Name: "spec-files", Source: FromPlatc,
		Summary: "the spec folder's files cannot be loaded as one spec",
		Text:    "The spec folder must hold .cue files of one package that import only CUE's standard library, each of at most the size platc reads. platc loads the folder alone, so that a spec means the same on every machine."},
	CUE: {Name: "cue", Source: FromCUE,
		Summary: "a spec that CUE cannot evaluate",
		Text:    "The spec is not valid CUE, or its values conflict: CUE's own message follows, placed at the value it names. A field written in several places must agree."},
	UnknownField: {Name: "unknown-field", Source: FromCUE,
		Summary: "a field the spec language does not have",
		Text:    "The spec language (platc schema prints it) is closed: a field it does not declare is refused rather than ignored, since a misspelled field would otherwise change nothing. The message suggests the field meant, when one is close."},
	SelfComprehension: {Name: "self-comprehension", Severity: Warning, Source: FromCUE,
		Summary: "a comprehension that runs over the struct it is written in",
		Text:    "CUE resolves a name in the innermost struct that declares it: written inside environments.lab.modules, `for name, m in modules` runs over environments.lab.modules itself, not the platform's modules, and adds nothing to the modules it was meant for. Bind the top-level field with a let at the top of the file and run over that."},
	ClosedDefinition: {Name: "closed-definition", Source: FromCUE,
		Summary: "a field a definition's closed struct does not take",
		Text:    "A value unified with a definition (#web & {...}) is closed: it takes only the fields the definition declares, so a field written beside it elsewhere is refused even where the spec language has it. Write the field inside the definition, add ... to the definition to open it, or use a hidden field (_web), which does not close."},
	RequiredField: {Name: "required-field", Source: FromCUE,
		Summary: "a field the spec language requires is missing",
		Text:    "Add the field. When a misspelled field stands beside it, platc reports that one and folds this one under it."},
	Incomplete: {Name: "incomplete", Source: FromCUE,
		Summary: "a field the spec leaves open: a type, a bound, or a choice with no default",
		Text:    "A platform's spec is data: every field platc reads needs one value. CUE evaluates string, >=1 or \"a\" | \"b\" to a constraint, not a value. Write the value, or, for a choice, mark the default with * (\"a\" | *\"b\")."},
	SpecType: {Name: "spec-type", Source: FromCUE,
		Summary: "a value of the wrong type for its field",
		Text:    "The value is not of the type the spec language gives the field (a list where a struct is expected, a number for a name). platc reports it first: what follows from it is folded into a count."},
	Usage: {Name: "usage", Source: FromPlatc,
		Summary: "a command's flags or arguments do not fit",
		Text:    "A flag names something the spec does not have, or two flags do not go together: platc help <command> says what the command takes."},

	UnknownName: {Name: "unknown-name", Source: FromPlatc,
		Summary: "a name the spec does not declare",
		Text:    "The spec refers to a module, stack, environment, project, chart, output, lint or feature gate that is not declared, or to a value that is not one of those allowed. The message suggests the name meant, when one is close, or lists those that exist."},
	SelfReference: {Name: "self-reference", Source: FromPlatc,
		Summary: "a module or stack that refers to itself",
		Text:    "A module cannot need, wire from or contain itself, and a stack cannot be wired from its own outputs: remove the reference."},
	Cycle: {Name: "cycle", Source: FromPlatc,
		Summary: "modules, groups or stacks that depend on each other in a loop",
		Text:    "needs, groups and stack wiring must form no loop, or no order of delivery exists: the message names the loop; remove one of its links."},
	Order: {Name: "order", Source: FromArgoCD,
		Summary: "needs and waves that Argo CD cannot order",
		Text:    "platc turns needs into sync waves. A wave must come after the waves of what the module needs and stay within the waves Argo CD reads (a 32-bit integer); a module cannot need the group that delivers it."},
	Name: {Name: "name", Source: FromKubernetes,
		Summary: "a name Kubernetes, Helm or Argo CD does not accept",
		Text:    "Names become Kubernetes object names, labels, Helm release names and Application names, and each has its rules (DNS-1123 labels of at most 63 characters, release names of at most 53). A module may not take the name of its environment's root Application."},
	Duplicate: {Name: "duplicate", Source: FromPlatc,
		Summary: "one thing declared or delivered twice",
		Text:    "Two Applications, AppProjects or parameters of one name, a module in two groups, a stack delivered by two modules: Argo CD keeps one, so the spec must say which."},
	ModuleKind: {Name: "module-kind", Source: FromPlatc,
		Summary: "a module's fields do not fit its kind",
		Text:    "A module sets exactly one of chart, path, group, stacks and definitions, and the fields its kind takes: only charts take values, only namespaced kinds name a namespace, a group lists its members."},
	Path: {Name: "path", Source: FromPlatc,
		Summary: "a path that is not inside the repository",
		Text:    "Argo CD reads a repository path from the repository alone: a path must be a slash path relative to the root, without . or .. elements, and no symbolic link may lead outside the repository."},
	Missing: {Name: "missing", Source: FromPlatc,
		Summary: "a folder or file that does not exist",
		Text:    "The spec names a folder or file of the repository that is not there, or is a file where a folder is expected: create it, or fix the path."},
	SyncsNothing: {Name: "syncs-nothing", Source: FromArgoCD,
		Summary: "an Application that would sync nothing",
		Text:    "A folder that holds no manifest Argo CD reads (with the directory options given), an include that matches no file, a path where platc renders nothing: Argo CD would sync an empty set, and with prune delete what was there."},
	NoInstances: {Name: "no-instances", Severity: Note, Source: FromPlatc,
		Summary: "a stacks module no client has an instance of",
		Text:    "Its Application syncs an empty folder in that environment: give a client the stack there, or disable the module."},
	OutDir: {Name: "out-dir", Source: FromPlatc,
		Summary: "the output folder overlaps the sources, or holds files platc did not write",
		Text:    "platc rewrites its output folder whole: it must be a folder of its own, no source, cache (PLATC_CACHE) or report page (platc report -o) may lie inside it, and a file platc did not write is never overwritten; move it out."},
	Source: {Name: "source", Source: FromArgoCD,
		Summary: "a repository URL or chart name Argo CD cannot fetch",
		Text:    "A Helm repository is https://... or oci://... (or an OCI registry without a scheme), a Git repository https://host/org/repo.git or git@host:org/repo.git, and a chart is named alone, without its repository."},
	Version: {Name: "version", Source: FromPlatc,
		Summary: "a version or version constraint that cannot be read",
		Text:    "Chart versions, Kubernetes versions, API versions and the Argo CD and kro releases an environment runs are written as their projects write them (1.2.3, ~1.2, group/version)."},
	UpstreamVersion: {Name: "upstream-version", Severity: Warning, Source: FromPlatc,
		Summary: "an environment runs another Argo CD or kro than platc checks by",
		Text:    "platc checks by the releases it targets (platc version lists them). Where an environment declares an older or a newer minor release, the rules that changed between the two are named, and what changed is not checked."},
	IndexKey: {Name: "index-key", Severity: Warning, Source: FromPlatc,
		Summary: "a wiring key with a part that looks like a list index",
		Text:    "A wiring key is a dotted path of map keys: in datasources[0].url, \"datasources[0]\" is one key of a map, not the first element of a list, and Helm's chart never reads it. Wire the whole list instead, or set the element in values."},
	ValuesPath: {Name: "values-path", Source: FromPlatc,
		Summary: "a values path or instance spec path that cannot be read",
		Text:    "Wiring keys are dotted paths such as config.redis.host (\\. for a dot inside a key)."},
	Wiring: {Name: "wiring", Source: FromPlatc,
		Summary: "an endpoint wired from a module or stack that does not provide it",
		Text:    "A wired value comes from another module's endpoint or another stack's output: that module must declare an endpoint (with a scheme, for a url), a disabled module that others wire from gives an external endpoint, and a client must have the stack it wires from."},
	Revision: {Name: "revision", Source: FromArgoCD,
		Summary: "an empty revision",
		Text:    "Argo CD reads a revision as HEAD, a branch or a tag: write one."},
	Pinned: {Name: "pinned", Source: FromPlatc,
		Summary: "a pinned environment that reads a moving revision",
		Text:    "A pinned environment reconciles a fixed, reviewed release: its revision is a release tag, and every source of this repository reads that tag."},
	ManualSync: {Name: "manual-sync", Severity: Warning, Source: FromPlatc,
		Summary: "a pinned environment whose Applications sync by hand",
		Text:    "A release moves the Applications to a new tag, but without automated sync the cluster changes only when someone syncs each one."},
	StackDelivery: {Name: "stack-delivery", Source: FromKro,
		Summary: "a stack whose definition or instances no module delivers",
		Text:    "kro creates a stack's instances only once its ResourceGraphDefinition is applied: some module must deliver the definitions, and in every environment where a client has the stack, a module that delivers its instances must be enabled."},
	Allow: {Name: "allow", Source: FromPlatc,
		Summary: "an exception to a lint without its reason",
		Text:    "allow: {wildcard: \"...\"} excepts a lint, and the reason is for the reviewer: say why."},
	NoEffect: {Name: "no-effect", Severity: Warning, Source: FromArgoCD,
		Summary: "a field that does nothing as written",
		Text:    "Argo CD ignores the field in this combination (respectIgnoreDifferences without ignoreDifferences): add what it needs, or remove it."},

	AnyNamespace: {Name: "any-namespace", Severity: Warning, Source: FromArgoCD,
		Summary: "a folder's Application whose destination namespace is \"*\"",
		Text:    "Argo CD takes \"*\" as an Application's destination namespace and applies each object in the namespace it names; an object that names none goes to namespace \"*\", which Kubernetes refuses at sync. Give every namespaced object its namespace, or name one namespace."},

	EmptyFolder: {Name: "empty-folder", Severity: Warning, Source: FromArgoCD,
		Summary: "a folder an Application syncs that holds no manifest",
		Text:    "Argo CD syncs an empty folder as an Application with no resources; an automated sync with prune refuses to delete everything it deployed unless allowEmpty is set. Likely a wrong path or a folder not yet filled: add manifests, or set allowEmpty where it is empty on purpose."},

	SyncOption: {Name: "sync-option", Source: FromArgoCD,
		Summary: "a sync option Argo CD does not read, or one platc sets from a field",
		Text:    "Sync options are written Name=value. Those platc renders from fields of its own (CreateNamespace, RespectIgnoreDifferences) are set by those fields."},
	SyncPolicy: {Name: "sync-policy", Source: FromArgoCD,
		Summary: "a retry, sync window or time zone Argo CD cannot read",
		Text:    "Argo CD reads a backoff as a Go duration or a number of seconds, a sync window's kind as allow or deny, and its time zone as an IANA name; what it cannot read it skips, so the Application would not retry or the window would open at another hour."},
	IgnoreDifferences: {Name: "ignore-differences", Source: FromArgoCD,
		Summary: "an ignoreDifferences entry Argo CD cannot use",
		Text:    "Each entry names what it ignores: JSON pointers (RFC 6901), jq paths that compile, field managers. Argo CD skips a bad pointer without a word and fails every comparison on a bad jq path."},
	Metadata: {Name: "metadata", Source: FromKubernetes,
		Summary: "labels or annotations Kubernetes does not accept",
		Text:    "Label and annotation keys and values follow Kubernetes' rules, annotations hold at most 256 KiB, and platc sets the sync wave annotation from needs."},
	HelmOptions: {Name: "helm-options", Source: FromArgoCD,
		Summary: "options for Helm that Argo CD would apply otherwise than written",
		Text:    "A parameter needs a name, and Argo CD expands $VAR in a parameter's value with its build environment; passCredentials means nothing for a chart of this repository."},
	Kustomize: {Name: "kustomize", Source: FromKustomize,
		Summary: "a kustomization or kustomize options Argo CD cannot build",
		Text:    "kustomize options need a kustomization.yaml; a kustomization is built from the repository alone, offline; patches and image overrides are written as kustomize reads them."},
	Destination: {Name: "destination", Source: FromArgoCD,
		Summary: "an environment's destination that sets both server and name",
		Text:    "An Application's destination names its cluster one way: Argo CD refuses one with both. Keep the one that names the cluster. An AppProject's destination may give both: it matches a cluster by either."},
	ServiceAccount: {Name: "service-account", Source: FromArgoCD,
		Summary: "an Application no destination service account of its project matches",
		Text:    "With impersonation on, Argo CD syncs as the service account its project names for the destination; without one it refuses the sync."},
	ProjectSource: {Name: "project-source", Source: FromArgoCD,
		Summary: "an Application's source repository its project does not permit",
		Text:    "Argo CD refuses to sync an Application whose source its AppProject's sourceRepos does not match: add the repository to the project, or use another project. A repository a declared project lacks is one problem, at the project's sourceRepos, naming the Applications it affects (the first five, and how many more)."},
	ProjectDestination: {Name: "project-destination", Source: FromArgoCD,
		Summary: "an Application's destination its project does not permit",
		Text:    "Argo CD refuses an Application whose cluster and namespace its AppProject's destinations do not match, and the sync of an object whose own namespace they do not. A project destination without a namespace matches only an Application that names none. A destination that denies (\"!prod\") refuses what it denies whatever the other destinations permit: a denied name or server refuses the cluster wherever that destination's namespace matches, even where its other field matches (since v3.6.2), and a denied namespace refuses it on the destination's server."},
	ProjectKind: {Name: "project-kind", Source: FromArgoCD,
		Summary: "an object whose kind its Application's project does not allow",
		Text:    "Argo CD refuses at sync an object of a kind its AppProject's resource whitelists (or blacklists) do not allow, a Namespace it creates included: add the kind, or move the object. Where a declared project refuses it, the problem is placed at the project's list, once for all the Applications it affects."},
	SourceNamespace: {Name: "source-namespace", Source: FromArgoCD,
		Summary: "an Application outside Argo CD's namespace that is not enabled there",
		Text:    "An Application in another namespace needs the namespace in its project's sourceNamespaces and in Argo CD's application.namespaces."},
	ArgoCDProject: {Name: "argocd-project", Source: FromArgoCD,
		Summary: "an AppProject Argo CD's API server refuses",
		Text:    "platc runs Argo CD's validation of AppProjects (roles, policies, windows, destinations); the message is Argo CD's."},
	ArgoCDApplication: {Name: "argocd-application", Source: FromArgoCD,
		Summary: "an Application Argo CD refuses, or an object it cannot sync",
		Text:    "platc runs Argo CD's validation of Applications and of the objects they sync; the message is Argo CD's."},
	SharedResource: {Name: "shared-resource", Source: FromArgoCD,
		Summary: "two Applications that sync one object",
		Text:    "Argo CD reports SharedResourceWarning and each sync takes the object from the other: sync it from one Application."},
	ValueFile: {Name: "value-file", Source: FromArgoCD,
		Summary: "a values file an Application reads that is not there",
		Text:    "Argo CD fails the sync when a values file is missing (unless ignoreMissingValueFiles is set) or names a ref no source has."},
	ResourceName: {Name: "resource-name", Source: FromKubernetes,
		Summary: "an Application name Kubernetes does not accept",
		Text:    "An Application is a Kubernetes object: its name uses lower-case letters, digits, '-' and '.', and with label tracking it is a label value of at most 63 characters."},

	LiteralSecret: {Name: "literal-secret", Source: FromPlatc, Allow: true,
		Summary: "a password, token or key written as a value",
		Text:    "Values are rendered into Applications, which anyone who may read an Application sees: keep credentials in a Secret and refer to it, or add allow: {\"literal-secret\": \"<reason>\"}. References are fine (existingSecret, ${VAR}, Argo CD's $key and $secret-name:key), and so is, under a key that may name a Secret (tlsSecret, secretKey), a value written as the name of a Secret or of a key in one."},
	Wildcard: {Name: "wildcard", Source: FromPlatc, Allow: true,
		Summary: "a * in a pinned environment's AppProject",
		Text:    "A customer's project names what it permits: a wildcard permits what no reviewer saw. Name the repositories, destinations and kinds, or add allow: {wildcard: \"<reason>\"} to the project."},

	Manifest: {Name: "manifest", Source: FromArgoCD,
		Summary: "a file of a synced folder that is not a Kubernetes object Argo CD reads",
		Text:    "Argo CD reads .yaml, .yml and .json files of objects with apiVersion, kind and metadata.name; it would evaluate Jsonnet and build charts, which platc does not, so those are refused in a plain folder."},
	ObjectSchema: {Name: "object-schema", Source: FromKubernetes,
		Summary: "an object its kind's schema refuses",
		Text:    "platc validates every rendered object against its kind's OpenAPI schema (Kubernetes' own and the CRDs at hand) as the API server would."},
	SizeLimit: {Name: "size-limit", Source: FromKubernetes,
		Summary: "an object larger than the API server stores",
		Text:    "etcd's request limit is 1.5 MiB: keep large values out of the spec."},
	ObjectConflict: {Name: "object-conflict", Source: FromArgoCD,
		Summary: "objects of one folder that clash",
		Text:    "Two objects of one kind, namespace and name: Argo CD would fight itself. An object that sets no namespace is in the Application's destination namespace, and a cluster-scoped one in none (Argo CD clears the namespace it sets)."},

	ChartLock: {Name: "chart-lock", Source: FromHelm,
		Summary: "a lock file that does not read, or a pin it does not match",
		Text:    "platc renders a chart offline from what charts.lock pins and platc charts pull fetched (an in-repo chart's dependencies too): a lock that is not platc's, or an archive of another digest, is refused; platc charts pull writes it again, platc charts vendor copies the locked archives again."},
	ChartUnlocked: {Name: "chart-unlocked", Severity: Warning, Source: FromHelm,
		Summary: "a chart the lock file does not pin",
		Text:    "A chart with no entry in charts.lock is neither verified nor rendered: run platc charts pull."},
	ChartRender: {Name: "chart-render", Source: FromHelm,
		Summary: "a chart that does not render",
		Text:    "Helm's own template engine renders the chart with the Application's values, after helm dependency build where Argo CD's repo server runs it (an in-repo chart whose charts/ lacks a dependency of its Chart.yaml): the message is Helm's."},
	ChartValues: {Name: "chart-values", Source: FromHelm,
		Summary: "values a chart's values.schema.json refuses",
		Text:    "Helm refuses an install whose values its chart's schema does not accept: fix the value, or the schema."},
	ChartValue: {Name: "chart-value", Severity: Warning, Source: FromHelm, Strict: true,
		Summary: "a value the chart does not have",
		Text:    "The key is not in the chart's values.yaml and no template reads it, so Helm ignores it: a misspelled key changes nothing. -strict makes it an error. A key is reported once where it is set, naming the Applications that set it and the environments it holds in."},
	ChartSchemaRef: {Name: "chart-schema-ref", Severity: Note, Source: FromHelm,
		Summary: "a chart's values.schema.json that refers to a file or a URL, which platc does not fetch",
		Text:    "Helm reads a $ref of a chart's values.schema.json to another file, or fetches it from its URL. platc renders offline and follows neither: the values are checked against the rest of the schema, and the part the reference names accepts every value. Put what it names into the schema itself (its $defs) to have it checked."},
	UnknownKind: {Name: "unknown-kind", Source: FromArgoCD,
		Summary: "an object whose kind the cluster would not have",
		Text:    "A rendered object whose kind no CRD at hand declares, or that Argo CD would refuse: the message says which. In an API group several projects share, only a kind spelled like a known one is reported (shared-group-kind)."},
	SharedGroupKind: {Name: "shared-group-kind", Severity: Warning, Source: FromPlatc,
		Summary: "a kind no CRD at hand declares in an API group several projects share, close to one that does",
		Text:    "Some API groups hold the kinds of several projects (argoproj.io: Argo CD's, Argo Workflows', Argo Rollouts' and Argo Events'; kro.run: kro's and those of every ResourceGraphDefinition that names no group): platc knows the kinds of the CRDs it embeds and those the platform's charts and folders bring, so another kind there is left to the cluster, and one spelled like a known kind is likely a typo. Fix the kind, or list group/version/Kind in the environment's kubernetes.apiVersions where the cluster has it."},
	RemoteBase: {Name: "remote-base", Severity: Warning, Source: FromKustomize,
		Summary: "a kustomization that reads a remote base or file, which platc does not fetch",
		Text:    "Argo CD's kustomize fetches a remote resource (a Git repository with ?ref=, an https URL) at every sync. platc builds offline and reads nothing outside the repository, so the folder's objects are not checked. Pin the remote to a tag or a commit, so that a sync means the same tomorrow, or vendor it into the repository to have it checked."},
	NotChecked: {Name: "not-checked", Severity: Note, Source: FromPlatc,
		Summary: "what platc could not check offline, or without a checkout",
		Text:    "A chart that is not rendered (no lock, or neither cached nor vendored; an in-repo chart whose dependencies are not locked, or that has no Chart.lock) is checked by its pin only: the note says what to run (platc charts pull fetches what is locked). A client's values repository that is neither this one nor a checkout given with -client-repo is not read: its values files are not checked. A folder of another repository, or one a plugin renders, is not read. The summary of render, check and vet names each after \"not checked:\", and says \"checked in full\" where there is none."},

	ValuesFile: {Name: "values-file", Source: FromPlatc,
		Summary: "a client's values file that does not read",
		Text:    "A values file is YAML of one mapping. A syntax error is placed at its line and column and said in plain words (a tab, a quote never closed, a key without ':', a key indented under a value, a list or map never closed), with the parser's own words in brackets; fix the file there."},
	UnreadValues: {Name: "unread-values", Source: FromPlatc,
		Summary: "a values file or folder that nothing reads",
		Text:    "A file no module of the client's stacks reads is a value no one applies: rename it to the module it is for, or remove it."},
	ValuesConflict: {Name: "values-conflict", Severity: Warning, Source: FromArgoCD, Strict: true,
		Summary: "a client's value the platform overrides",
		Text:    "Argo CD applies valuesObject over every values file, so a value the platform also sets is ignored, and a list is replaced whole. -strict makes it an error."},

	DuplicateKey: {Name: "duplicate-key", Severity: Warning, Source: FromArgoCD,
		Summary: "a YAML key set twice in one mapping, which Helm, Argo CD and kustomize read as its last value",
		Text:    "YAML forbids a key set twice in one mapping, but the readers of Argo CD's repo server take the file all the same and keep the last value: Helm (a client's values file, a values file helm.valueFiles names, an in-repo chart's values.yaml, Chart.yaml, Chart.lock and requirements.yaml, all read by sigs.k8s.io/yaml), Argo CD itself (the manifests of a plain folder) and kustomize (a kustomization.yaml). So the first value is ignored without a word. platc reads the file as they do, keeps the last value, and warns at the second key: remove one of them. Where the reader refuses the file, so does platc, with the reader's id: kustomize build fails on an object that holds a key twice (kustomize), and platc's own charts.lock is read strictly (chart-lock)."},

	EditorSchema: {Name: "editor-schema", Severity: Warning, Source: FromPlatc,
		Summary: "the copy of platc's schema the spec folder holds for editors is not this platc's",
		Text:    "platc editor (and platc init) writes platc's schema into the spec folder's CUE module (cue.mod/pkg/github.com/platc/platc/schemas/platform.cue) and schema.cue, which applies it, so that cue lsp completes and documents the spec's fields and cue vet marks an unknown one. After platc is updated, the copy is another version's: the editor offers fields this platc does not read, or misses new ones. platc checks the spec by the schema it embeds all the same. Run platc editor to write this platc's copy (docs/editors.md)."},

	StackEval: {Name: "stack-eval", Source: FromKro,
		Summary: "a stack's instance or output that does not evaluate",
		Text:    "platc evaluates each client's instance as kro would (its spec, its outputs): the message names the expression."},
	Primitive: {Name: "primitive", Source: FromPlatc,
		Summary: "a stack resource of a primitive kind that does not fit",
		Text:    "A primitive names a kind platc knows and gives the spec its CRD requires."},
	FeatureGate: {Name: "feature-gate", Source: FromKro,
		Summary: "kro feature gates that kro refuses, or that differ from what kro runs",
		Text:    "platform.kro.featureGates says which gates the stacks are checked by; a module that installs kro passes its own to --feature-gates, and the two must agree."},
	KroCEL: {Name: "kro-cel", Source: FromKro,
		Summary: "a CEL expression kro refuses",
		Text:    "platc checks every ${...} expression with kro's CEL environment and types: a syntax error, an unknown field or function, a wrong type, an expression where kro does not allow it."},
	KroForEach: {Name: "kro-foreach", Source: FromKro,
		Summary: "a forEach collection kro refuses",
		Text:    "Each forEach entry names one iterator over a list expression; iterators are independent of each other, and each object's name must use them."},
	KroGraph: {Name: "kro-graph", Source: FromKro,
		Summary: "a resource graph kro's graph builder refuses",
		Text:    "Resource ids are unique, no resource depends on itself and the references form no cycle; platc runs kro's own graph builder, whose message follows."},
	KroSchema: {Name: "kro-schema", Source: FromKro,
		Summary: "a stack's spec, types or status kro cannot read",
		Text:    "kro reads the SimpleSchema of the spec and types, and derives the status schema from its expressions, which must read a resource or the schema."},
	KroTemplate: {Name: "kro-template", Source: FromKro,
		Summary: "a resource template kro refuses",
		Text:    "A template is an object of a kind kro can resolve, with the fields its schema has."},
	KroDefault: {Name: "kro-default", Severity: Warning, Source: FromKro,
		Summary: "a default kro writes into its CRD otherwise than written",
		Text:    "kro writes string defaults into the CRD between quotes, unescaped, and the API server reads integer bounds as integers: the default the cluster holds differs from the spec."},
	KroCRD: {Name: "kro-crd", Source: FromKro,
		Summary: "a stack whose CRD clashes with another",
		Text:    "kro creates one CRD per ResourceGraphDefinition and does not update a CRD it does not own: two stacks may not share a kind or serve the same names."},
	KroAPI: {Name: "kro-api", Source: FromKubernetes,
		Summary: "a ResourceGraphDefinition the API server refuses",
		Text:    "platc validates the ResourceGraphDefinition against kro's CRD as the API server would."},
	KroUnterminated: {Name: "kro-unterminated", Severity: Warning, Source: FromKro, ErrorFrom: "kro v0.10",
		Summary: "a ${ that no } closes, which kro v0.10 refuses",
		Text:    "kro v0.9 passes a ${ that is never closed through as text; kro v0.10 refuses the ResourceGraphDefinition, which stays Inactive. platc checks every string of a stack's templates, status and externalRefs (a module's values and wiring included) by kro v0.10's reading, which also takes '...' for a CEL string literal. Close the expression with }, or write a literal ${ as ${\"${\"}."},
	KroReservedID: {Name: "kro-reserved-id", Severity: Warning, Source: FromKro, ErrorFrom: "kro v0.10",
		Summary: "a stack resource id or forEach iterator that kro v0.10 reserves",
		Text:    "kro v0.10 adds graphengine to the words it reserves (pkg/graph/validation.go) and refuses a ResourceGraphDefinition whose resource id or forEach iterator is one: rename it."},
	KroStatusRBAC: {Name: "kro-status-rbac", Severity: Warning, Source: FromKro,
		Summary: "a kro installation whose RBAC does not let it patch its instances' status, as kro v0.10 does",
		Text:    "kro v0.10 writes the status of every instance with server-side apply, which needs patch on <plural>/status of the kind kro generates for each stack; kro v0.9 updates it, which needs update. platc reads the ClusterRoles that the kro chart the platform installs renders, binds to kro's service account and aggregates (rbac.mode: aggregation aggregates those labelled rbac.kro.run/aggregate-to-controller: \"true\", from every chart of the environment), and says which instance kinds they leave out. Grant get, update and patch on each <plural>/status in such a ClusterRole, or run kro with rbac.mode: unrestricted. A ClusterRole of a folder module is not read: where one could be aggregated, platc says nothing, nor where the chart binds no ClusterRole to kro."},

	Release: {Name: "release", Source: FromPlatc,
		Summary: "a release or promotion that cannot be made",
		Text:    "A release moves pinned environments forward to a release tag (vMAJOR.MINOR.PATCH); promotion copies chart versions between two environments."},
	SpecEdit: {Name: "spec-edit", Source: FromPlatc,
		Summary: "a value platc cannot edit in the spec as written",
		Text:    "platc edits a pin where it is written as a string literal of its own; a value computed by CUE (a pattern, a definition) is edited by hand."},
	Outdated: {Name: "outdated", Severity: Note, Source: FromHelm,
		Summary: "a chart with newer versions",
		Text:    "platc outdated lists the patch, minor and latest versions of each chart's repository."},
}

// Info returns what id is.
func (id ID) Info() Message { return Messages[id] }

// String returns id's name.
func (id ID) String() string { return Messages[id].Name }

// MarshalText writes id as its name, which stays when the table changes
// order (a cache entry that holds problems keeps their ids so).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads a name MarshalText wrote.
func (id *ID) UnmarshalText(text []byte) error {
	*id = Lookup(string(text))
	if *id == NoID && len(text) > 0 {
		return fmt.Errorf("unknown message id %q", text)
	}
	return nil
}

// Lookup returns the ID of a name, or NoID.
func Lookup(name string) ID {
	for id := NoID + 1; id < idCount; id++ {
		if Messages[id].Name == name {
			return id
		}
	}
	return NoID
}

// IDs returns every ID but NoID, in the order of the table.
func IDs() []ID {
	out := make([]ID, 0, idCount-1)
	for id := NoID + 1; id < idCount; id++ {
		out = append(out, id)
	}
	return out
}

// Names returns the names of every ID, in the order of the table.
func Names() []string {
	out := make([]string, 0, idCount-1)
	for _, id := range IDs() {
		out = append(out, id.String())
	}
	return out
}

// Allowed returns the names an allow field may make exceptions to.
func Allowed() []string {
	var out []string
	for _, id := range IDs() {
		if id.Info().Allow {
			out = append(out, id.String())
		}
	}
	return out
}

// Help is the long text of id, as platc help <name> prints it.
func Help(id ID) string {
	m := id.Info()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", m.Name, m.Summary)
	fmt.Fprintf(&b, "%s, from %s", m.Severity.word(), m.Source)
	if m.Strict {
		b.WriteString("; -strict makes it an error")
	}
	if m.Allow {
		fmt.Fprintf(&b, "; allow: {%q: \"<reason>\"} excepts it", m.Name)
	}
	if m.ErrorFrom != "" {
		fmt.Fprintf(&b, "; an error for an environment that declares %s or later", m.ErrorFrom)
	}
	b.WriteString(".\n\n")
	b.WriteString(m.Text)
	b.WriteString("\n")
	return b.String()
}

// word names a severity in prose.
func (s Severity) word() string {
	return [...]string{Error: "An error", Warning: "A warning", Note: "A note"}[s]
}
