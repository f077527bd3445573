package manifests

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/platc/platc/compiler/diag"
	memcache "github.com/platc/platc/internal/cache"
	"github.com/platc/platc/testkit/cachetest"
)

// Build is BuildRead's objects and problems.
func Build(fsys fs.FS, dir string, c memcache.Cache) ([]Object, []Problem) {
	b := BuildRead(fsys, dir, c)
	return b.Objects, b.Problems
}

// repo makes a repository of files given as path, content pairs.
func repo(files ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(files); i += 2 {
		m[files[i]] = &fstest.MapFile{Data: []byte(files[i+1])}
	}
	return m
}

const configMapA = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"

// kustomizeInMemory builds dir of fsys with plain krusty over kustomize's
// own in-memory file system, as a reference that owes nothing to repoFS.
func kustomizeInMemory(t *testing.T, fsys fstest.MapFS, dir string) resmap.ResMap {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	for name, f := range fsys {
		if err := mem.WriteFile("/"+name, f.Data); err != nil {
			t.Fatal(err)
		}
	}
	m, err := krusty.MakeKustomizer(options()).Run(mem, "/"+dir)
	if err != nil {
		t.Fatalf("reference build of %s: %v", dir, err)
	}
	return m
}

func TestBuild(t *testing.T) {
	kustomization := repo(
		"app/kustomization.yaml", `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: web-
namespace: team-a
resources:
  - deployment.yaml
  - service.yaml
configMapGenerator:
  - name: settings
    literals: [LOG_LEVEL=debug]
`,
		"app/deployment.yaml", "# the app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: app:1\n          envFrom:\n            - configMapRef: {name: settings}\n",
		"app/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: app\n  namespace: elsewhere\n",
	)
	// The generated name's hash is kustomize's: taken from a reference
	// build, not written here.
	var settings string
	for _, r := range kustomizeInMemory(t, kustomization, "app").Resources() {
		if r.GetKind() == "ConfigMap" {
			settings = r.GetName()
		}
	}
	if !strings.HasPrefix(settings, "web-settings-") || len(settings) != len("web-settings-")+10 {
		t.Fatalf("reference build named the ConfigMap %q, want web-settings-<hash>", settings)
	}

	tests := []struct {
		name     string
		fsys     fstest.MapFS
		dir      string
		objects  []Object
		problems []Problem
	}{{
		name: "plain folder",
		fsys: repo(
			"m/a.yaml", "# two documents and a List\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: ns\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: two}\n  - apiVersion: v1\n    kind: ServiceAccount\n    metadata:\n      name: three\n",
			"m/b.yml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n",
			"m/c.json", `{"apiVersion": "v1", "kind": "ConfigMap",
 "metadata": {"name": "four"}}`,
			"m/notes.txt", "not a manifest",
			"m/sub/ignored.yaml", "not: read",
			"m/skipped.yaml", "# +argocd:skip-file-rendering\nnot: an object\n",
		),
		dir: "m",
		objects: []Object{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "one", Namespace: "ns", File: "m/a.yaml", Line: 2},
			{APIVersion: "v1", Kind: "Secret", Name: "two", File: "m/a.yaml", Line: 14},
			{APIVersion: "v1", Kind: "ServiceAccount", Name: "three", File: "m/a.yaml", Line: 17},
			{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader", File: "m/b.yml", Line: 1},
			{APIVersion: "v1", Kind: "ConfigMap", Name: "four", File: "m/c.json", Line: 1},
		},
	}, {
		name: "byte order marks",
		fsys: repo(
			"m/a.json", "\ufeff"+`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}`,
			"m/b.yaml", "\xff\xfek\x00i\x00n\x00d\x00:\x00 \x00X\x00\n\x00",
		),
		dir:      "m",
		objects:  []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "m/a.json", Line: 1}},
		problems: []Problem{{ID: diag.Manifest, File: "m/b.yaml", Line: 1, Msg: "object has no apiVersion and metadata.name: set them (every object needs apiVersion, kind and metadata.name)"}},
	}, {
		// Argo CD reads a key set twice as its last value
		// (sigs.k8s.io/yaml): a warning, and the last name.
		name:    "key set twice in a plain folder",
		fsys:    repo("m/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: last\n"),
		dir:     "m",
		objects: []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "last", File: "m/a.yaml", Line: 1}},
		problems: []Problem{{ID: diag.DuplicateKey, File: "m/a.yaml", Line: 5, Col: 3,
			Msg: "key metadata.name is set twice (first at line 4): Argo CD takes this value and ignores the first; remove one of them"}},
	}, {
		// kustomize reads the kustomization's last value, and fails
		// to write out an object that holds a key twice.
		name: "key set twice in a kustomization and in its object",
		fsys: repo("k/kustomization.yaml", "resources: [a.yaml, b.yaml]\nnamePrefix: x-\nnamePrefix: y-\n",
			"k/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"1\"\n  k: \"2\"\n",
			"k/b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
		dir:     "k",
		objects: []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "y-b", File: "k/b.yaml"}},
		problems: []Problem{
			{ID: diag.Kustomize, File: "k/a.yaml", Line: 7, Col: 3, Msg: "key data.k is set twice (first at line 6): kustomize build fails on an object that holds a key twice, so Argo CD cannot build the folder; remove one of them"},
			{ID: diag.DuplicateKey, File: "k/kustomization.yaml", Line: 3, Col: 1, Msg: "key namePrefix is set twice (first at line 2): kustomize takes this value and ignores the first; remove one of them"},
		},
	}, {
		name:    "kustomization at the repository root",
		fsys:    repo("kustomization.yaml", "resources: [m/a.yaml]\n", "m/a.yaml", configMapA),
		dir:     ".",
		objects: []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "m/a.yaml"}},
	}, {
		name: "kustomization",
		fsys: kustomization,
		dir:  "app",
		objects: []Object{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "web-app", Namespace: "team-a", File: "app/deployment.yaml"},
			{APIVersion: "v1", Kind: "ConfigMap", Name: settings, Namespace: "team-a", File: "app/kustomization.yaml"},
			{APIVersion: "v1", Kind: "Service", Name: "web-app", Namespace: "team-a", File: "app/service.yaml"},
		},
	}, {
		name: "overlay of ../base",
		fsys: repo(
			"k/base/kustomization.yaml", "resources: [cm.yaml]\n",
			"k/base/cm.yaml", configMapA,
			"k/overlay/kustomization.yml", "resources: [../base, extra.yaml]\nnameSuffix: -prod\n",
			"k/overlay/extra.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n",
		),
		dir: "k/overlay",
		objects: []Object{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "a-prod", File: "k/base/cm.yaml"},
			{APIVersion: "v1", Kind: "Secret", Name: "b-prod", File: "k/overlay/extra.yaml"},
		},
	}, {
		name: "Kustomization file name, buildMetadata kept",
		fsys: repo(
			"k/Kustomization", "resources: [cm.yaml]\nbuildMetadata: [managedByLabel]\n",
			"k/cm.yaml", configMapA,
		),
		dir:     "k",
		objects: []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "k/cm.yaml"}},
	}, {
		name: "annotation kustomize cannot add: built again without",
		fsys: repo(
			"k/kustomization.yaml", "resources: [cm.yaml]\n",
			"k/cm.yaml", configMapA+"  annotations: 5\n",
		),
		dir:     "k",
		objects: []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "k/kustomization.yaml"}},
	}, {
		name: "kustomization naming a missing file",
		fsys: repo("k/kustomization.yaml", "resources:\n  - missing.yaml\n"),
		dir:  "k",
		problems: []Problem{{ID: diag.Kustomize, File: "k/kustomization.yaml",
			Msg: "kustomize build fails: accumulating resources: accumulating resources from 'missing.yaml': k/missing.yaml: no such file or directory: fix the kustomization"}},
	}, {
		name: "kustomization naming a file above its folder",
		fsys: repo(
			"k/overlay/kustomization.yaml", "resources: [../base/cm.yaml]\n",
			"k/base/cm.yaml", configMapA,
		),
		dir: "k/overlay",
		problems: []Problem{{ID: diag.Kustomize, File: "k/overlay/kustomization.yaml",
			Msg: "kustomize build fails: accumulating resources: accumulation err='accumulating resources from '../base/cm.yaml': security; file 'k/base/cm.yaml' is not in or below 'k/overlay'': must build at directory: 'k/base/cm.yaml': file is not directory: fix the kustomization"}},
	}, {
		name: "kustomization naming paths outside the repository",
		fsys: repo("k/kustomization.yaml", "resources:\n  - ../../etc\n  - /etc/passwd\n"),
		dir:  "k",
		problems: []Problem{
			{ID: diag.Path, File: "k/kustomization.yaml", Line: 2, Msg: `resources entry "../../etc" is outside the repository: Argo CD builds a kustomization from the repository alone, and platc reads nothing outside it; move what it names into the repository`},
			{ID: diag.Path, File: "k/kustomization.yaml", Line: 3, Msg: `resources entry "/etc/passwd" is outside the repository: Argo CD builds a kustomization from the repository alone, and platc reads nothing outside it; move what it names into the repository`},
		},
	}, {
		name: "a plugin configuration naming a file outside the repository",
		fsys: repo(
			"k/kustomization.yaml", "generators:\n  - gen.yaml\n",
			"k/gen.yaml", "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: g\nfiles:\n  - ../../../etc/hosts\n",
		),
		dir: "k",
		problems: []Problem{{ID: diag.Path, File: "k/kustomization.yaml",
			Msg: `kustomize build reads "../etc/hosts", outside the repository: Argo CD builds a kustomization from the repository alone, and platc reads nothing outside it; move what it needs into the repository`}},
	}, {
		name: "kustomization with helmCharts",
		fsys: repo("k/kustomization.yaml", "helmCharts:\n  - name: redis\n    repo: https://charts.example.com\n"),
		dir:  "k",
		problems: []Problem{{ID: diag.Kustomize, File: "k/kustomization.yaml",
			Msg: "kustomize build fails: trouble configuring builtin HelmChartInflationGenerator with config: ` name: redis repo: https://charts.example.com `: must specify --enable-helm: fix the kustomization"}},
	}, {
		name: "kustomization with an external plugin",
		fsys: repo("k/kustomization.yaml", "transformers:\n  - |\n    apiVersion: example.com/v1\n    kind: Mangler\n    metadata:\n      name: m\n"),
		dir:  "k",
		problems: []Problem{{ID: diag.Kustomize, File: "k/kustomization.yaml",
			Msg: "kustomize build fails: external plugins disabled; unable to load external plugin 'Mangler': fix the kustomization"}},
	}, {
		name: "remote references",
		fsys: repo(
			"k/kustomization.yaml", `resources:
  - https://example.com/deploy.yaml
  - github.com/example/repo//base?ref=v1
  - git@example.com:team/repo.git
  - local.yaml
components:
  - ssh://git@example.com/team/repo.git//c
transformers:
  - |
    apiVersion: builtin
    kind: PatchTransformer
    metadata:
      name: p
    path: HTTPS://example.com/patch.yaml
configMapGenerator:
  - name: c
    files: [key=http://example.com/f]
`,
			"k/local.yaml", configMapA,
		),
		dir: "k",
		problems: []Problem{
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 2, Msg: `resources entry "https://example.com/deploy.yaml" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`},
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 3, Msg: `resources entry "github.com/example/repo//base?ref=v1" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; vendor it into the repository to have them checked`},
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 4, Msg: `resources entry "git@example.com:team/repo.git" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`},
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 7, Msg: `components entry "ssh://git@example.com/team/repo.git//c" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`},
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 9, Msg: `path entry "HTTPS://example.com/patch.yaml" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`},
			{ID: diag.RemoteBase, File: "k/kustomization.yaml", Line: 17, Msg: `files entry "http://example.com/f" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`},
		},
	}, {
		name: "remote file in a plugin configuration",
		fsys: repo(
			"k/kustomization.yaml", "resources: [cm.yaml]\ngenerators: [gen.yaml]\n",
			"k/cm.yaml", configMapA,
			"k/gen.yaml", "apiVersion: builtin\nkind: SecretGenerator\nmetadata:\n  name: s\nenvs:\n  - https://example.com/env\n",
		),
		dir: "k",
		problems: []Problem{{ID: diag.RemoteBase, File: "k/gen.yaml", Line: 6,
			Msg: `envs entry "https://example.com/env" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; pin it to a tag or commit, or vendor it into the repository`}},
	}, {
		name: "remote base of a base",
		fsys: repo(
			"k/overlay/kustomization.yaml", "resources: [../base]\n",
			"k/base/kustomization.yaml", "resources:\n  - https://github.com/example/repo/base?ref=v1\n",
		),
		dir: "k/overlay",
		problems: []Problem{{ID: diag.RemoteBase, File: "k/base/kustomization.yaml", Line: 2,
			Msg: `resources entry "https://github.com/example/repo/base?ref=v1" is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; vendor it into the repository to have them checked`}},
	}, {
		name: "invalid YAML",
		fsys: repo(
			"m/ok.yaml", configMapA,
			"m/bad.yaml", configMapA+"---\napiVersion: v1\nkind: Secret\n  metadata: x\n",
		),
		dir: "m",
		objects: []Object{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "m/bad.yaml", Line: 1},
			{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "m/ok.yaml", Line: 1},
		},
		problems: []Problem{{ID: diag.Manifest, File: "m/bad.yaml", Line: 8, Col: 3, Msg: "invalid YAML: this key is indented under the value of line 7: align it with the keys above it, or quote that value (YAML: mapping values are not allowed in this context)"}},
	}, {
		name: "invalid JSON, two JSON values",
		fsys: repo(
			"m/a.json", "{\"apiVersion\": \"v1\",\n \"kind\": }\n",
			"m/b.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}`+"\n{}\n",
		),
		dir: "m",
		problems: []Problem{
			{ID: diag.Manifest, File: "m/a.json", Line: 2, Msg: "invalid JSON: invalid character '}' looking for beginning of value: fix the syntax"},
			{ID: diag.Manifest, File: "m/b.json", Line: 2, Msg: "more than one JSON value: Argo CD reads one object from each .json file: split the file, or write a List"},
		},
	}, {
		name: "JSON read as encoding/json reads it",
		fsys: repo(
			"m/a.json", "{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"List\",\n\t\"items\": [\n\t\t{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\\/b\"}},\n\t\t{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"x\", \"name\": \"s\", \"namespace\": 5}}\n\t]\n}\n",
			"m/b.json", "",
			"m/c.json", "[1, 2]",
			"m/d.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}} {}`,
		),
		dir: "m",
		objects: []Object{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "a/b", File: "m/a.json", Line: 5},
			{APIVersion: "v1", Kind: "Secret", Name: "s", File: "m/a.json", Line: 6},
		},
		problems: []Problem{
			{ID: diag.Manifest, File: "m/b.json", Line: 1, Msg: "invalid JSON: unexpected end of file: fix the syntax"},
			{ID: diag.Manifest, File: "m/c.json", Line: 1, Msg: "document is not a Kubernetes object: write a mapping with apiVersion, kind and metadata.name, or remove it"},
			{ID: diag.Manifest, File: "m/d.json", Line: 1, Msg: "more than one JSON value: Argo CD reads one object from each .json file: split the file, or write a List"},
		},
	}, {
		name: "documents that are not objects",
		fsys: repo("m/a.yaml", "apiVersion: v1\nmetadata:\n  name: no-kind\n---\nkind: ConfigMap\n---\n- a list\n---\nkind: List\nitems: [plain]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 5\n"),
		dir:  "m",
		problems: []Problem{
			{ID: diag.Manifest, File: "m/a.yaml", Line: 1, Msg: "object has no kind: set it (every object needs apiVersion, kind and metadata.name)"},
			{ID: diag.Manifest, File: "m/a.yaml", Line: 5, Msg: "object has no apiVersion and metadata.name: set them (every object needs apiVersion, kind and metadata.name)"},
			{ID: diag.Manifest, File: "m/a.yaml", Line: 7, Msg: "document is not a Kubernetes object: write a mapping with apiVersion, kind and metadata.name, or remove it"},
			{ID: diag.Manifest, File: "m/a.yaml", Line: 10, Msg: "list item is not a Kubernetes object: write a mapping with apiVersion, kind and metadata.name"},
			{ID: diag.Manifest, File: "m/a.yaml", Line: 12, Msg: "object has no metadata.name: set it (every object needs apiVersion, kind and metadata.name)"},
		},
	}, {
		name: "object without name in a kustomization",
		fsys: repo(
			"k/kustomization.yaml", "resources: [a.yaml]\n",
			"k/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n",
		),
		dir: "k",
		problems: []Problem{{ID: diag.Kustomize, File: "k/kustomization.yaml",
			Msg: "kustomize build fails: accumulating resources: accumulation err='accumulating resources from 'a.yaml': missing metadata.name in object {{v1 ConfigMap} {{ } map[a:b] map[]}}': must build at directory: 'k/a.yaml': file is not directory: fix the kustomization"}},
	}, {
		name: "Helm chart folder",
		fsys: repo("c/Chart.yaml", "name: c\n", "c/values.yaml", "a: b\n", "c/templates/cm.yaml", configMapA),
		dir:  "c",
		problems: []Problem{{ID: diag.Manifest, File: "c/Chart.yaml",
			Msg: "a file named *Chart.yaml makes Argo CD render the folder as a Helm chart, which platc does not build from repository folders: declare a chart module, or rename the file"}},
	}, {
		name: "Jsonnet",
		fsys: repo("m/a.jsonnet", "{}", "m/b.yaml", configMapA),
		dir:  "m",
		objects: []Object{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "a", File: "m/b.yaml", Line: 1},
		},
		problems: []Problem{{ID: diag.Manifest, File: "m/a.jsonnet",
			Msg: `a Jsonnet file, which Argo CD would evaluate and platc does not: write the objects as YAML, or add the "+argocd:skip-file-rendering" marker to the file`}},
	}, {
		name:     "missing folder",
		fsys:     repo("m/a.yaml", configMapA),
		dir:      "nope",
		problems: []Problem{{ID: diag.Missing, File: "nope", Msg: `folder "nope" does not exist: create it or fix the path`}},
	}, {
		name:     "file, not folder",
		fsys:     repo("m/a.yaml", configMapA),
		dir:      "m/a.yaml",
		problems: []Problem{{ID: diag.Missing, File: "m/a.yaml", Msg: `"m/a.yaml" is a file: name the folder that holds the manifests`}},
	}, {
		name:     "path leaving the repository",
		fsys:     repo("m/a.yaml", configMapA),
		dir:      "../m",
		problems: []Problem{{ID: diag.Path, File: "../m", Msg: `"../m" is not a folder of the repository: write a slash path relative to its root, without . or .. elements`}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects, problems := Build(tt.fsys, tt.dir, nil)
			if diff := cmp.Diff(tt.objects, objects); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMessagesMatchKustomizeOnDisk builds failing kustomizations with
// kustomize's own on-disk file system, as Argo CD does, and through
// repoFS: the messages must be the same but for where the repository is.
func TestMessagesMatchKustomizeOnDisk(t *testing.T) {
	fsys := repo(
		"missing/kustomization.yaml", "resources: [missing.yaml]\n",
		"above/kustomization.yaml", "resources: [../base/cm.yaml]\n",
		"base/cm.yaml", configMapA,
		"notdir/kustomization.yaml", "resources: [cm.yaml/x]\n",
		"notdir/cm.yaml", configMapA,
		"nobase/kustomization.yaml", "resources: [../nothere]\n",
		"nokust/kustomization.yaml", "resources: [../base]\n",
		"nofile/kustomization.yaml", "configMapGenerator:\n- name: c\n  files: [missing.txt]\n",
		"nopatch/kustomization.yaml", "patches:\n- path: missing.yaml\n",
	)
	disk := t.TempDir()
	for name, f := range fsys {
		p := filepath.Join(disk, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	disk, err := filepath.EvalSymlinks(disk)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"missing", "above", "notdir", "nobase", "nokust", "nofile", "nopatch"} {
		_, want := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(disk, dir))
		_, got := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(&repoFS{fsys: fsys}, path.Join(root, dir))
		if want == nil || got == nil {
			t.Fatalf("%s: want errors, got %v on disk and %v in repoFS", dir, want, got)
		}
		if w, g := strings.ReplaceAll(want.Error(), disk, root), got.Error(); w != g {
			t.Errorf("%s:\non disk: %s\nrepoFS:  %s", dir, w, g)
		}
	}
}

// TestOriginsChangeNothingElse builds kustomizations with and without the
// origin annotations Build adds: the objects must be the same.
func TestOriginsChangeNothingElse(t *testing.T) {
	fsys := repo(
		"base/kustomization.yaml", "resources: [deploy.yaml]\nconfigMapGenerator:\n- name: cfg\n  literals: [a=b]\n",
		"base/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      volumes:\n      - name: c\n        configMap: {name: cfg}\n",
		"overlay/kustomization.yaml", "resources: [../base]\nnamespace: ns\nnamePrefix: p-\nsecretGenerator:\n- name: s\n  literals: [x=y]\ncommonAnnotations: {team: a}\n",
	)
	for _, dir := range []string{"base", "overlay"} {
		with, err := runKustomize(&repoFS{fsys: fsys, originsIn: dir}, dir)
		if err != nil {
			t.Fatal(err)
		}
		without := kustomizeInMemory(t, fsys, dir)
		if len(with) != without.Size() {
			t.Fatalf("%s: %d objects with origins, %d without", dir, len(with), without.Size())
		}
		for i, r := range without.Resources() {
			w := with[i].DeepCopy()
			if o, _ := w.GetOrigin(); o == nil {
				t.Errorf("%s: %s has no origin", dir, w.CurId())
			}
			if err := w.SetOrigin(nil); err != nil {
				t.Fatal(err)
			}
			a, _ := w.AsYAML()
			b, _ := r.AsYAML()
			if diff := cmp.Diff(string(b), string(a)); diff != "" {
				t.Errorf("%s: object %d (-without +with):\n%s", dir, i, diff)
			}
		}
	}
}

func TestWithOrigins(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"appended", "# c\nresources:\n  - a.yaml\n", "# c\nresources:\n  - a.yaml\nbuildMetadata: [originAnnotations]\n"},
		{"added to the list", "buildMetadata: [managedByLabel]\nresources: [a.yaml]\n", "buildMetadata: [managedByLabel, originAnnotations]\nresources: [a.yaml]\n"},
		{"already there", "buildMetadata: [originAnnotations]\n", "buildMetadata: [originAnnotations]\n"},
		{"JSON", `{"resources": ["a.yaml"]}`, "{\"resources\": [\"a.yaml\"], buildMetadata: [originAnnotations]}\n"},
		{"kept block scalar", "patches:\n  - patch: |+\n      a\n\n", "patches:\n    - patch: |+\n        a\n\nbuildMetadata:\n    - originAnnotations\n"},
		{"not a mapping", "- a\n", "- a\n"},
		{"invalid", "a: [\n", "a: [\n"},
		{"not a list", "buildMetadata: x\n", "buildMetadata: x\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(withOrigins([]byte(tt.in)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemoteRepo(t *testing.T) {
	for ref, want := range map[string]bool{
		"github.com/a/b":                 true,
		"GitHub.com:a/b":                 true,
		"git::https://example.com/a/b":   true,
		"https://example.com/a.yaml":     true,
		"ssh://git@example.com/a":        true,
		"file:///srv/repo":               true,
		"git@example.com:a/b.git":        true,
		"../base":                        false,
		"base":                           false,
		"/etc":                           false,
		"example.com/a/b":                false,
		"deploy.yaml":                    false,
		"configs/github.com/x/file.yaml": false,
	} {
		if got := remoteRepo(ref); got != want {
			t.Errorf("remoteRepo(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	in := "accumulating resources: accumulation err='accumulating resources from 'x.yaml': evalsymlink failure on '" + root + "/k/x.yaml' : lstat " + root + "/k/x.yaml: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '" + root + "/k/x.yaml' : lstat " + root + "/k/x.yaml: no such file or directory"
	if got, want := oneLine(in), "accumulating resources: accumulating resources from 'x.yaml': k/x.yaml: no such file or directory"; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
	if got, want := oneLine("Found multiple kustomization files under: "+root+"\n\tand more.\n"), "Found multiple kustomization files under: . and more"; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
}

// sampleFolders are the folders of the sample platform's repo-path
// modules.
func sampleFolders(t testing.TB) []string {
	entries, err := os.ReadDir("../../sources/manifests")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, "sources/manifests/"+e.Name())
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no folders under sources/manifests")
	}
	return dirs
}

func TestSampleFolders(t *testing.T) {
	fsys := os.DirFS("../..")
	for _, dir := range sampleFolders(t) {
		t.Run(path.Base(dir), func(t *testing.T) {
			objects, problems := Build(fsys, dir, nil)
			for _, p := range problems {
				t.Errorf("%s", p)
			}
			if len(objects) == 0 {
				t.Errorf("%s yields no objects", dir)
			}
			for _, o := range objects {
				if !strings.HasPrefix(o.File, dir+"/") || o.File == dir+"/kustomization.yaml" {
					t.Errorf("%s %s comes from %s, want a resource file of %s", o.Kind, o.Name, o.File, dir)
				}
			}
		})
	}
}

// BenchmarkBuildSamples builds every folder of the sample platform, all of
// them and each alone.
func BenchmarkBuildSamples(b *testing.B) {
	fsys := os.DirFS("../..")
	dirs := sampleFolders(b)
	build := func(b *testing.B, dirs ...string) {
		for b.Loop() {
			for _, dir := range dirs {
				if _, problems := Build(fsys, dir, nil); len(problems) > 0 {
					b.Fatal(problems)
				}
			}
		}
	}
	b.Run("all", func(b *testing.B) { build(b, dirs...) })
	// As a warm run meets them: every folder's outcome is in the cache,
	// and what each build read still reads the same.
	b.Run("all-cached", func(b *testing.B) {
		cache := &cachetest.Memory{}
		for _, dir := range dirs {
			Build(fsys, dir, cache)
		}
		for b.Loop() {
			for _, dir := range dirs {
				if _, problems := Build(fsys, dir, cache); len(problems) > 0 {
					b.Fatal(problems)
				}
			}
		}
	})
	for _, dir := range dirs {
		b.Run(path.Base(dir), func(b *testing.B) { build(b, dir) })
	}
}

// TestBuildConcurrently builds the sample folders from several goroutines
// at once (kustomize keeps process-wide state; run with -race): each result
// must be the sequential one.
func TestBuildConcurrently(t *testing.T) {
	fsys := os.DirFS("../..")
	dirs := sampleFolders(t)
	type result struct {
		objects  []Object
		problems []Problem
	}
	want := map[string]result{}
	for _, dir := range dirs {
		o, p := Build(fsys, dir, nil)
		want[dir] = result{o, p}
	}
	var wg sync.WaitGroup
	for range 4 {
		for _, dir := range dirs {
			wg.Go(func() {
				o, p := Build(fsys, dir, nil)
				if diff := cmp.Diff(want[dir], result{o, p}, cmp.AllowUnexported(result{})); diff != "" {
					t.Errorf("%s (-sequential +concurrent):\n%s", dir, diff)
				}
			})
		}
	}
	wg.Wait()
}

// TestBuildsAreIndependent builds a kustomization with a custom OpenAPI
// schema that makes a kind cluster-scoped, then one without: kustomize
// keeps the schema process-wide, and without a reset the second build would
// still take the kind for cluster-scoped and not give it the
// kustomization's namespace. Argo CD runs each build in a new process.
func TestBuildsAreIndependent(t *testing.T) {
	const thing = "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n"
	fsys := repo(
		"custom/kustomization.yaml", "resources: [thing.yaml]\nnamespace: team\nopenapi:\n  path: schema.json\n",
		"custom/thing.yaml", thing,
		"custom/schema.json", `{"definitions": {}, "paths": {"/apis/example.com/v1/things": {"get": {"x-kubernetes-group-version-kind": {"group": "example.com", "kind": "Thing", "version": "v1"}}}}}`,
		"plain/kustomization.yaml", "resources: [thing.yaml]\nnamespace: team\n",
		"plain/thing.yaml", thing,
	)
	for i, tt := range []struct{ dir, namespace string }{{"plain", "team"}, {"custom", ""}, {"plain", "team"}} {
		objects, problems := Build(fsys, tt.dir, nil)
		want := []Object{{APIVersion: "example.com/v1", Kind: "Thing", Name: "t", Namespace: tt.namespace, File: tt.dir + "/thing.yaml"}}
		if diff := cmp.Diff(want, objects); diff != "" || len(problems) > 0 {
			t.Errorf("build %d of %s: %v (-want +got):\n%s", i+1, tt.dir, problems, diff)
		}
	}
}

// TestReadersOfDuplicateKeys holds platc's reading of a key set twice to
// Argo CD's and kustomize's own: Argo CD's reader of a plain folder's
// files (apimachinery's YAMLOrJSONDecoder, as its repo server and kubectl
// use it) takes the last value; kustomize takes a kustomization's last
// value, and its build fails to write out an object that holds a key
// twice.
func TestReadersOfDuplicateKeys(t *testing.T) {
	u := &unstructured.Unstructured{}
	dec := kubeyaml.NewYAMLOrJSONDecoder(strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: last\n"), 4096)
	if err := dec.Decode(&u); err != nil || u.GetName() != "last" {
		t.Errorf("Argo CD's reader: %v, name %q, want the last", err, u.GetName())
	}
	fsys := repo("k/kustomization.yaml", "resources: [a.yaml]\nnamePrefix: x-\nnamePrefix: y-\n", "k/a.yaml", configMapA)
	m := kustomizeInMemory(t, fsys, "k")
	if got := m.Resources()[0].GetName(); got != "y-a" {
		t.Errorf("kustomize named the object %q, want y-a (the last prefix)", got)
	}
	fsys["k/a.yaml"].Data = []byte(configMapA + "data:\n  k: \"1\"\n  k: \"2\"\n")
	if _, err := kustomizeInMemory(t, fsys, "k").AsYaml(); err == nil || !strings.Contains(err.Error(), `mapping key "k" already defined`) {
		t.Errorf("kustomize build writes out an object that holds a key twice: %v", err)
	}
}

// String formats the problem as file:line:col: msg (file:line: msg when
// the column is unknown, file: msg when the line is).
func (p Problem) String() string {
	if p.Line > 0 && p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return p.File + ": " + p.Msg
}
