package model

import (
	"math"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/load"
)

// decodeSpec loads the spec text as sources/platform.cue and decodes it. The
// spec must load without problems.
func decodeSpec(t *testing.T, src string) *Spec {
	t.Helper()
	fsys := fstest.MapFS{"sources/platform.cue": {Data: []byte(src)}}
	log := &diag.Log{}
	loaded := load.Load(fsys, "sources", log)
	if loaded == nil || log.HasErrors() {
		t.Fatalf("the test spec does not load:\n%s", log)
	}
	return Decode(loaded)
}

// ignorePositions compares specs by value and spec path: positions have
// their own test.
var ignorePositions = cmp.Options{
	cmpopts.IgnoreFields(Node{}, "Pos"),
	cmpopts.IgnoreUnexported(Node{}, Spec{}, Environment{}),
}

func TestDecodeAppliesDefaults(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {chart: "redis", namespace: "web"}
modules: bundle: group: ["web"]
environments: dev: revision: "HEAD"
`)
	want := &Spec{
		Platform: Platform{
			Node:             Node{Path: "platform"},
			Name:             "shop",
			RepoURL:          "https://git.example.com/shop.git",
			OutDir:           "out",
			ArgoCDNamespace:  "argocd",
			ResourceTracking: "annotation",
			GeneratePaths:    true,
			Kro:              Kro{Node: Node{Path: "platform.kro"}},
		},
		Charts: []*Chart{{
			Node:    Node{Path: "charts.redis"},
			Name:    "redis",
			RepoURL: "https://charts.example.com",
			Chart:   "redis",
			Version: "1.2.3",
		}},
		Modules: []*Module{
			{
				Node:            Node{Path: "modules.bundle"},
				Name:            "bundle",
				Kind:            KindGroup,
				Members:         []string{"web"},
				CreateNamespace: true,
				CascadeDelete:   true,
			},
			{
				Node:            Node{Path: "modules.web"},
				Name:            "web",
				Kind:            KindChart,
				Chart:           "redis",
				Namespace:       "web",
				CreateNamespace: true,
				CascadeDelete:   true,
			},
		},
		Environments: []*Environment{{
			Node:        Node{Path: "environments.dev"},
			Name:        "dev",
			Revision:    "HEAD",
			Project:     "default",
			Destination: Destination{Node: Node{Path: "environments.dev.destination"}, Server: "https://kubernetes.default.svc"},
			Settings:    map[string]*ModuleSettings{},
			Kubernetes:  Kubernetes{Node: Node{Path: "environments.dev.kubernetes"}, Version: DefaultKubeVersion},
			ArgoCD:      Release{Node: Node{Path: "environments.dev.argocd"}},
			Kro:         Release{Node: Node{Path: "environments.dev.kro"}},
		}},
	}
	if diff := cmp.Diff(want, spec, ignorePositions); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestDecodeTakesWrittenValues(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {
	name:               "shop"
	description:        "the shop"
	repoURL:            "https://git.example.com/shop.git"
	outDir:             "gen/out"
	argocdNamespace:    "gitops"
	defaultEnvironment: "prod"
	manifestGeneratePaths: false
	kro: featureGates: CELOmitFunction: true
}
charts: {
	redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
	app: {repoURL: "oci://registry.example.com/charts", chart: "app", version: "v0.1.0"}
}
modules: {
	web: {
		description:     "the web front"
		chart:           "app"
		namespace:       "web"
		needs:           ["db", "cache"]
		wave:            3
		createNamespace: false
		cascadeDelete:   false
		syncOptions:     ["ServerSideApply=true"]
		values: {replicas: 2, ratio: 2.0, image: {tag: "v1"}}
		wiring: {
			"config.db\\.url": {from: "db", field: "url"}
			host: {from: "cache"}
		}
	}
	db: {path: "manifests/db", namespace: "db", endpoint: {host: "db.db.svc", port: 5432, scheme: "postgres"}}
	cache: {chart: "redis", path: "manifests/cache"}
}
environments: {
	prod: {
		revision: "v1.0.0"
		pinned:   true
		project:  "tenant"
		destination: name: "prod-cluster"
		kubernetes: {version: "1.31.2", apiVersions: ["monitoring.coreos.com/v1"]}
		projects: tenant: {
			description: "the tenant"
			sourceRepos: ["https://git.example.com/shop.git"]
			destinations: [{server: "https://prod.example.com", namespace: "*"}, {name: "other", namespace: "web"}]
			clusterResourceWhitelist: [{group: "", kind: "Namespace"}]
			namespaceResourceBlacklist: [{group: "networking.k8s.io", kind: "NetworkPolicy"}]
			sourceNamespaces: ["argocd"]
		}
		modules: {
			db: {enabled: false, external: {host: "pg.example.com", port: 5433}}
			web: {values: {replicas: 4}, project: "tenant"}
		}
	}
	dev: {revision: "HEAD", destination: server: "https://dev.example.com:6443"}
}
`)
	wave := 3
	want := &Spec{
		Platform: Platform{
			Node:               Node{Path: "platform"},
			Name:               "shop",
			Description:        "the shop",
			RepoURL:            "https://git.example.com/shop.git",
			OutDir:             "gen/out",
			ArgoCDNamespace:    "gitops",
			DefaultEnvironment: "prod",
			ResourceTracking:   "annotation",
			Kro:                Kro{Node: Node{Path: "platform.kro"}, FeatureGates: map[string]bool{"CELOmitFunction": true}},
		},
		Charts: []*Chart{
			{Node: Node{Path: "charts.app"}, Name: "app", RepoURL: "oci://registry.example.com/charts", Chart: "app", Version: "v0.1.0"},
			{Node: Node{Path: "charts.redis"}, Name: "redis", RepoURL: "https://charts.example.com", Chart: "redis", Version: "1.2.3"},
		},
		Modules: []*Module{
			{
				Node:            Node{Path: "modules.cache"},
				Name:            "cache",
				Kind:            KindInvalid, // sets both chart and path
				Chart:           "redis",
				Dir:             "manifests/cache",
				CreateNamespace: true,
				CascadeDelete:   true,
			},
			{
				Node:      Node{Path: "modules.db"},
				Name:      "db",
				Kind:      KindPath,
				Dir:       "manifests/db",
				Namespace: "db",
				Endpoint: &Endpoint{
					Node: Node{Path: "modules.db.endpoint"}, Host: "db.db.svc", Port: 5432, Scheme: "postgres",
				},
				CreateNamespace: true,
				CascadeDelete:   true,
			},
			{
				Node:        Node{Path: "modules.web"},
				Name:        "web",
				Description: "the web front",
				Kind:        KindChart,
				Chart:       "app",
				Namespace:   "web",
				Needs:       []string{"db", "cache"},
				Wave:        &wave,
				Values: map[string]any{
					"replicas": int64(2),
					"ratio":    float64(2),
					"image":    map[string]any{"tag": "v1"},
				},
				Wiring: []*Wire{
					{
						Node:       Node{Path: `modules.web.wiring."config.db\\.url"`},
						Key:        `config.db\.url`,
						ValuesPath: []string{"config", "db.url"},
						From:       "db",
						Field:      "url",
					},
					{
						Node:       Node{Path: "modules.web.wiring.host"},
						Key:        "host",
						ValuesPath: []string{"host"},
						From:       "cache",
						Field:      "address",
					},
				},
				CreateNamespace: false,
				SyncOptions:     []string{"ServerSideApply=true"},
				CascadeDelete:   false,
			},
		},
		Environments: []*Environment{
			{
				Node:     Node{Path: "environments.dev"},
				Name:     "dev",
				Revision: "HEAD",
				Project:  "default",
				Destination: Destination{
					Node: Node{Path: "environments.dev.destination"}, Server: "https://dev.example.com:6443",
				},
				Settings:   map[string]*ModuleSettings{},
				Kubernetes: Kubernetes{Node: Node{Path: "environments.dev.kubernetes"}, Version: DefaultKubeVersion},
				ArgoCD:     Release{Node: Node{Path: "environments.dev.argocd"}},
				Kro:        Release{Node: Node{Path: "environments.dev.kro"}},
			},
			{
				Node:     Node{Path: "environments.prod"},
				Name:     "prod",
				Revision: "v1.0.0",
				Pinned:   true,
				Project:  "tenant",
				Destination: Destination{
					Node: Node{Path: "environments.prod.destination"}, Name: "prod-cluster",
				},
				Projects: []*Project{{
					Node:        Node{Path: "environments.prod.projects.tenant"},
					Name:        "tenant",
					Description: "the tenant",
					SourceRepos: []string{"https://git.example.com/shop.git"},
					Destinations: []ProjectDestination{
						{Server: "https://prod.example.com", Namespace: "*"},
						{Name: "other", Namespace: "web"},
					},
					ClusterResourceWhitelist:   []GroupKind{{Group: "", Kind: "Namespace"}},
					NamespaceResourceBlacklist: []GroupKind{{Group: "networking.k8s.io", Kind: "NetworkPolicy"}},
					SourceNamespaces:           []string{"argocd"},
				}},
				Settings: map[string]*ModuleSettings{
					"db": {
						Node:    Node{Path: "environments.prod.modules.db"},
						Module:  "db",
						Enabled: false,
						External: &Endpoint{
							Node: Node{Path: "environments.prod.modules.db.external"}, Host: "pg.example.com", Port: 5433,
						},
					},
					"web": {
						Node:    Node{Path: "environments.prod.modules.web"},
						Module:  "web",
						Enabled: true,
						Values:  map[string]any{"replicas": int64(4)},
						Project: "tenant",
					},
				},
				Kubernetes: Kubernetes{Node: Node{Path: "environments.prod.kubernetes"}, Version: "1.31.2", APIVersions: []string{"monitoring.coreos.com/v1"}},
				ArgoCD:     Release{Node: Node{Path: "environments.prod.argocd"}},
				Kro:        Release{Node: Node{Path: "environments.prod.kro"}},
			},
		},
	}
	if diff := cmp.Diff(want, spec, ignorePositions); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestSpecLooksUpChartsAndModulesByName(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {chart: "redis", namespace: "web"}
environments: dev: revision: "HEAD"
`)
	if got := spec.Chart("redis"); got == nil || got != spec.Charts[0] {
		t.Errorf(`Chart("redis") = %p, want the first of Charts, %p`, got, spec.Charts[0])
	}
	if got := spec.Module("web"); got == nil || got != spec.Modules[0] {
		t.Errorf(`Module("web") = %p, want the first of Modules, %p`, got, spec.Modules[0])
	}
	if got := spec.Chart("web"); got != nil {
		t.Errorf(`Chart("web") = %+v, want nil: web is a module`, got)
	}
	if got := spec.Module("redis"); got != nil {
		t.Errorf(`Module("redis") = %+v, want nil: redis is a chart`, got)
	}
}

// positionsSpec is laid out so that the position of every value can be read
// off it: line 5, for instance, has its value at column 13 after a tab and
// "chart:" padded to 11 characters.
const positionsSpec = `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {
	chart:     "redis"
	namespace: "web"
	values: {replicas: 2}
	needs: ["db"]
}
modules: db: {chart: "redis", namespace: "db"}
environments: dev: revision: "HEAD"
`

func TestNodePositions(t *testing.T) {
	spec := decodeSpec(t, positionsSpec)
	pos := func(line, col int) diag.Pos { return diag.Pos{File: "sources/platform.cue", Line: line, Col: col} }
	web := spec.Module("web")
	env := spec.Environments[0]
	tests := []struct {
		name  string
		node  *Node
		field string
		want  diag.Pos
	}{
		{"platform string value", &spec.Platform.Node, "name", pos(2, 18)},
		{"platform second value on the line", &spec.Platform.Node, "repoURL", pos(2, 35)},
		{"platform defaulted outDir is the platform's label", &spec.Platform.Node, "outDir", pos(2, 1)},
		{"platform defaulted argocdNamespace", &spec.Platform.Node, "argocdNamespace", pos(2, 1)},
		{"chart version", &spec.Chart("redis").Node, "version", pos(3, 81)},
		{"module string value", &web.Node, "chart", pos(5, 13)},
		{"module namespace", &web.Node, "namespace", pos(6, 13)},
		{"a struct value is placed at its label", &web.Node, "values", pos(7, 2)},
		{"a list value is placed at its label", &web.Node, "needs", pos(8, 2)},
		{"defaulted createNamespace is the module's label", &web.Node, "createNamespace", pos(4, 10)},
		{"defaulted cascadeDelete is the module's label", &web.Node, "cascadeDelete", pos(4, 10)},
		{"unknown field is the module's label", &web.Node, "nonsense", pos(4, 10)},
		{"environment revision", &env.Node, "revision", pos(11, 30)},
		{"environment defaulted project", &env.Node, "project", pos(11, 15)},
		{"defaulted destination's field is the environment's label", &env.Destination.Node, "server", pos(11, 15)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.node.At(tt.field); got != tt.want {
				t.Errorf("%s.At(%q) = %v, want %v", tt.node.Path, tt.field, got, tt.want)
			}
		})
	}

	entities := []struct {
		node *Node
		want diag.Pos
	}{
		{&spec.Platform.Node, pos(2, 1)},
		{&spec.Chart("redis").Node, pos(3, 9)},
		{&web.Node, pos(4, 10)},
		{&spec.Module("db").Node, pos(10, 10)},
		{&env.Node, pos(11, 15)},
		{&env.Destination.Node, pos(11, 15)},
	}
	for _, e := range entities {
		if e.node.Pos != e.want {
			t.Errorf("%s.Pos = %v, want %v", e.node.Path, e.node.Pos, e.want)
		}
	}
}

func TestNodeHasAndOK(t *testing.T) {
	spec := decodeSpec(t, positionsSpec)
	web := spec.Module("web")
	tests := []struct {
		field   string
		wantHas bool
		wantOK  bool
	}{
		{"chart", true, true},
		{"values", true, true},
		{"needs", true, true},
		{"createNamespace", false, false},
		{"path", false, false},
	}
	for _, tt := range tests {
		if got := web.Has(tt.field); got != tt.wantHas {
			t.Errorf("Has(%q) = %v, want %v", tt.field, got, tt.wantHas)
		}
		if got := web.OK(tt.field); got != tt.wantOK {
			t.Errorf("OK(%q) = %v, want %v", tt.field, got, tt.wantOK)
		}
	}
}

func TestNodeFieldPath(t *testing.T) {
	tests := []struct {
		path, field, want string
	}{
		{"modules.web", "chart", "modules.web.chart"},
		{`modules.web.wiring."a.b"`, "from", `modules.web.wiring."a.b".from`},
		{"", "platform", "platform"},
	}
	for _, tt := range tests {
		n := &Node{Path: tt.path}
		if got := n.FieldPath(tt.field); got != tt.want {
			t.Errorf("Node{Path: %q}.FieldPath(%q) = %q, want %q", tt.path, tt.field, got, tt.want)
		}
	}
}

func TestChartOCI(t *testing.T) {
	tests := []struct {
		repoURL string
		want    bool
	}{
		{"oci://registry.example.com/charts", true},
		{"oci://r", true},
		{"oci://", false},
		{"https://charts.example.com", false},
		// A registry without a scheme, as Argo CD reads one.
		{"registry.example.com/charts", true},
		{"registry.example.com:5000", true},
		{"", false},
	}
	for _, tt := range tests {
		if got := (&Chart{RepoURL: tt.repoURL}).OCI(); got != tt.want {
			t.Errorf("Chart{RepoURL: %q}.OCI() = %v, want %v", tt.repoURL, got, tt.want)
		}
	}
}

func TestDecodeTakesDefaultMarkedValues(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git", outDir: *"gen" | string}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {chart: "redis", namespace: "web", wave: *3 | int, values: {replicas: *1 | int}}
environments: dev: revision: *"HEAD" | string
`)
	web := spec.Module("web")
	got := struct {
		OutDir    string
		Revision  string
		RevOK     bool
		Wave      *int
		Values    map[string]any
		Namespace string
	}{spec.Platform.OutDir, spec.Environments[0].Revision, spec.Environments[0].OK("revision"), web.Wave, web.Values, web.Namespace}
	wave := 3
	want := struct {
		OutDir    string
		Revision  string
		RevOK     bool
		Wave      *int
		Values    map[string]any
		Namespace string
	}{"gen", "HEAD", true, &wave, map[string]any{"replicas": int64(1)}, "web"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// TestDecodeReadsAroundSchemaErrors decodes a spec that does not fit the
// schema: the fields of a struct with an error below read as written, and
// a wave too large for an int64 is kept as the largest int, for check to
// refuse.
func TestDecodeReadsAroundSchemaErrors(t *testing.T) {
	fsys := fstest.MapFS{"sources/platform.cue": {Data: []byte(`package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
charts: redis: {repoURL: "https://charts.example.com", chart: "redis", version: "1.2.3"}
modules: web: {chart: "redis", namespace: "web", wave: 9223372036854775808, endpoint: {host: "web", port: 80, hots: 1}}
environments: dev: revision: "HEAD"
`)}}
	log := &diag.Log{}
	loaded := load.Load(fsys, "sources", log)
	if loaded == nil || loaded.Checked() {
		t.Fatalf("the spec fits, want a schema error:\n%s", log)
	}
	m := Decode(loaded).Module("web")
	if m == nil || m.Endpoint == nil || m.Endpoint.Host != "web" || m.Endpoint.Port != 80 {
		t.Errorf("endpoint decoded as %+v, want host web, port 80", m.Endpoint)
	}
	if m.Wave == nil || *m.Wave != math.MaxInt {
		t.Errorf("wave decoded as %v, want math.MaxInt", m.Wave)
	}
}

// TestDecodeStackKroFields checks the kro fields of a stack: resources
// (their template whole, its apiVersion and kind), externalRefs, forEach
// in the order written (an entry of two iterators keeps its names), and a
// stack module's Argo CD fields.
func TestDecodeStackKroFields(t *testing.T) {
	spec := decodeSpec(t, `package platform
platform: {name: "shop", repoURL: "https://git.example.com/shop.git"}
environments: dev: revision: "HEAD"
stacks: web: {
	kind: "Web"
	externalRefs: creds: {apiVersion: "v1", kind: "Secret", name: "${schema.metadata.name}"}
	resources: ns: {
		template: {apiVersion: "v1", kind: "Namespace", metadata: name: "x"}
		forEach: [{region: "${schema.spec.regions}"}, {a: "${x}", b: "${y}"}]
		readyWhen: ["${each.metadata.name != ''}"]
	}
	primitives: b: {kind: "ObjectBucket", forEach: [{c: "${schema.spec.classes}"}]}
	modules: m: {
		chart: "c"
		syncPolicy: {automated: false, retry: limit: 2}
		respectIgnoreDifferences: false
		revisionHistoryLimit: 3
	}
}
`)
	st := spec.Stack("web")
	if st == nil || len(st.Resources) != 1 || len(st.ExternalRefs) != 1 || len(st.Primitives) != 1 || len(st.Modules) != 1 {
		t.Fatalf("stack decoded as %+v", st)
	}
	want := []*ExternalRef{{Node: Node{Path: "stacks.web.externalRefs.creds"}, ID: "creds", APIVersion: "v1", Kind: "Secret", Name: "${schema.metadata.name}"}}
	if diff := cmp.Diff(want, st.ExternalRefs, ignorePositions); diff != "" {
		t.Errorf("externalRefs (-want +got):\n%s", diff)
	}
	r := st.Resources[0]
	if r.APIVersion != "v1" || r.Kind != "Namespace" || r.Template["metadata"] == nil {
		t.Errorf("resource template %+v", r)
	}
	got := [][]string{}
	for _, f := range r.ForEach {
		got = append(got, append([]string{f.Name, f.Expr}, f.Names...))
	}
	if diff := cmp.Diff([][]string{{"region", "${schema.spec.regions}", "region"}, {"", "", "a", "b"}}, got); diff != "" {
		t.Errorf("forEach (-want +got):\n%s", diff)
	}
	if p := st.Primitives[0]; len(p.ForEach) != 1 || p.ForEach[0].Name != "c" {
		t.Errorf("primitive forEach %+v", p.ForEach)
	}
	m := st.Modules[0]
	s := m.Sync()
	if s.Automated || s.Retry == nil || s.Retry.Limit != 2 || m.RespectIgnoreDifferences == nil || *m.RespectIgnoreDifferences || m.RevisionHistoryLimit == nil || *m.RevisionHistoryLimit != 3 {
		t.Errorf("module Argo CD fields: sync %+v, respect %v, limit %v", s, m.RespectIgnoreDifferences, m.RevisionHistoryLimit)
	}
}
