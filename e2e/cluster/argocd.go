package cluster

import (
	"context"
	_ "embed"
	"fmt"
	"github.com/platc/platc/compiler/upstream"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// ArgoCD configures the Argo CD installation, as its Helm chart's values
// would (the values platc renders for an environment, argocd-values.yaml).
type ArgoCD struct {
	// Params are argocd-cmd-params-cm's data (the chart's
	// configs.params).
	Params map[string]string
	// CM is added over argocd-cm's data (the chart's configs.cm).
	CM map[string]string
}

// chartDefaults are the argo-cd chart's own configs.cm and configs.params
// (argo-cd-chart.yaml: those of upstream.ArgoCDChart, which make
// bootstrap-argocd installs).
//
//go:embed argo-cd-chart.yaml
var chartDefaults []byte

// ChartDefaults are the values of the argo-cd chart that make
// bootstrap-argocd installs (upstream.ArgoCDChart) for the ConfigMaps an
// installation here honours, as its templates write them into argocd-cm
// and argocd-cmd-params-cm (templates/_helpers.tpl, argo-cd.config.cm
// and argo-cd.config.params: an empty value is left out, the others
// written as strings). The presets its templates add (the URL of
// global.domain, the addresses of the repo server and redis, the log
// format and level) name the chart's Services, which the processes here
// do not use: they are left out.
func ChartDefaults() (ArgoCD, error) {
	a, err := chartConfigs(chartDefaults, true)
	if err != nil {
		return ArgoCD{}, fmt.Errorf("argo-cd-chart.yaml: %w", err)
	}
	return a, nil
}

// ChartValues reads the values of Argo CD's chart that an installation
// here can honour, configs.params and configs.cm, over the chart's own
// (ChartDefaults), as helm lays a release's values over its chart's.
// Any other value is an error, so that nothing platc renders for Argo CD
// is silently dropped.
func ChartValues(data []byte) (ArgoCD, error) {
	a, err := ChartDefaults()
	if err != nil {
		return ArgoCD{}, err
	}
	over, err := chartConfigs(data, false)
	if err != nil {
		return ArgoCD{}, err
	}
	maps.Copy(a.Params, over.Params)
	maps.Copy(a.CM, over.CM)
	// The chart writes no key of argocd-cm whose value is empty.
	maps.DeleteFunc(a.CM, func(_, v string) bool { return v == "" })
	return a, nil
}

// chartConfigs reads configs.params and configs.cm of a chart's values;
// chart says they are the chart's own, whose create and annotations are
// its switches, not data.
func chartConfigs(data []byte, chart bool) (ArgoCD, error) {
	var values map[string]any
	if err := yaml.Unmarshal(data, &values); err != nil {
		return ArgoCD{}, err
	}
	a := ArgoCD{Params: map[string]string{}, CM: map[string]string{}}
	for key, v := range values {
		if key != "configs" {
			return ArgoCD{}, fmt.Errorf("argo-cd chart value %s: the harness installs only configs.params and configs.cm", key)
		}
		configs, _ := v.(map[string]any)
		for ckey, cv := range configs {
			m, ok := cv.(map[string]any)
			if !ok {
				return ArgoCD{}, fmt.Errorf("argo-cd chart value configs.%s is not a map", ckey)
			}
			data := map[string]string{}
			for k, v := range m {
				if chart && (k == "create" || k == "annotations") {
					continue
				}
				switch v := v.(type) {
				case string:
					if v == "" && chart {
						continue // the chart's template leaves it out
					}
					data[k] = v
				case bool, int, int64, float64:
					data[k] = fmt.Sprint(v)
				default:
					return ArgoCD{}, fmt.Errorf("argo-cd chart value configs.%s.%s is not a scalar", ckey, k)
				}
			}
			switch ckey {
			case "params":
				maps.Copy(a.Params, data)
			case "cm":
				maps.Copy(a.CM, data)
			default:
				return ArgoCD{}, fmt.Errorf("argo-cd chart value configs.%s: the harness installs only configs.params and configs.cm", ckey)
			}
		}
	}
	return a, nil
}

// StartArgoCD installs Argo CD's CRDs and configuration in its namespace (as its test/manifests/base does, with the default AppProject
// that argocd-server would create), then starts redis (Debian's
// redis-server), the repo server and the application controller as
// local processes, each with the environment its manifest gives it from
// argocd-cmd-params-cm and argocd-cm.
func (c *Cluster) StartArgoCD(ctx context.Context, cfg ArgoCD) error {
	start := time.Now()
	root, err := moduleDir(ctx, c.opts.ProgramsDir, "github.com/argoproj/argo-cd/v3")
	if err != nil {
		return err
	}
	redis, err := exec.LookPath("redis-server")
	if err != nil {
		return fmt.Errorf("Argo CD needs redis: install Debian's redis-server (apt-get install redis-server): %w", err)
	}
	if err := c.Apply(ctx, "", namespace(c.ArgoCDNamespace())); err != nil {
		return err
	}
	var objs []*unstructured.Unstructured
	for _, glob := range []string{"manifests/crds/*-crd.yaml", "manifests/base/config/argocd-*.yaml"} {
		files, _ := filepath.Glob(filepath.Join(root, glob))
		if len(files) == 0 {
			return fmt.Errorf("no %s in Argo CD's module (%s)", glob, root)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			o, err := Decode(data)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			objs = append(objs, o...)
		}
	}
	for _, o := range objs {
		switch o.GetName() {
		case "argocd-cm":
			mergeData(o, cfg.CM)
		case "argocd-cmd-params-cm":
			mergeData(o, cfg.Params)
		}
	}
	objs = append(objs, defaultProject(c.ArgoCDNamespace()))
	if err := c.Apply(ctx, c.ArgoCDNamespace(), objs...); err != nil {
		return err
	}

	ports, err := freePorts(4)
	if err != nil {
		return err
	}
	redisPort, repoPort, repoMetrics, controllerMetrics := ports[0], ports[1], ports[2], ports[3]
	if _, err := c.procs.start(c.Dir, "redis", redis, []string{
		"--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", c.Dir,
	}, nil); err != nil {
		return err
	}
	redisAddr := "127.0.0.1:" + strconv.Itoa(redisPort)

	data := filepath.Join(c.Dir, "argocd")
	for _, d := range []string{"tls", "ssh", "gpg/keys", "gpg/source", "cmp", "home", "bin", "tmp"} {
		if err := os.MkdirAll(filepath.Join(data, d), 0o700); err != nil {
			return err
		}
	}
	path, err := imagePath(root, filepath.Join(data, "bin"), c.opts.Binaries)
	if err != nil {
		return err
	}
	common := []string{
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + c.Kubeconfig,
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(data, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(data, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(data, "gpg/keys"),
		"ARGOCD_GPG_DATA_PATH=" + filepath.Join(data, "gpg/source"),
		"ARGOCD_PLUGINSOCKFILEPATH=" + filepath.Join(data, "cmp"),
		"ARGOCD_GPG_ENABLED=false",
		// git and helm keep their configuration and caches here, and
		// the repo server its clones (in the temporary folder, as
		// /tmp/_argocd-repo): a cluster of its own shares none with
		// another's, nor with an earlier run's.
		"TMPDIR=" + filepath.Join(data, "tmp"),
		"HOME=" + filepath.Join(data, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(data, "home", ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(data, "home", ".cache"),
		"GIT_CONFIG_NOSYSTEM=1",
		"PATH=" + path + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	repoEnv, err := componentEnv(root, "manifests/base/repo-server/argocd-repo-server-deployment.yaml", cfg)
	if err != nil {
		return err
	}
	if _, err := c.procs.start(c.Dir, "argocd-repo-server", c.opts.Binaries.Path("cmd"), []string{
		"--port", strconv.Itoa(repoPort), "--metrics-port", strconv.Itoa(repoMetrics),
		"--redis", redisAddr, "--loglevel", "info",
	}, append(append(common, repoEnv...), "ARGOCD_BINARY_NAME=argocd-repo-server")); err != nil {
		return err
	}
	controllerEnv, err := componentEnv(root, "manifests/base/application-controller/argocd-application-controller-statefulset.yaml", cfg)
	if err != nil {
		return err
	}
	if _, err := c.procs.start(c.Dir, "argocd-application-controller", c.opts.Binaries.Path("cmd"), []string{
		"--redis", redisAddr, "--repo-server", "127.0.0.1:" + strconv.Itoa(repoPort),
		"--metrics-port", strconv.Itoa(controllerMetrics), "--loglevel", "info",
	}, append(append(common, persistHealth(controllerEnv)...), "ARGOCD_BINARY_NAME=argocd-application-controller")); err != nil {
		return err
	}
	if err := c.waitHTTP(ctx, "argocd-repo-server", "http://127.0.0.1:"+strconv.Itoa(repoMetrics)+"/metrics", nil, 60*time.Second); err != nil {
		return err
	}
	if err := c.waitHTTP(ctx, "argocd-application-controller", "http://127.0.0.1:"+strconv.Itoa(controllerMetrics)+"/metrics", nil, 60*time.Second); err != nil {
		return err
	}
	fmt.Fprintf(c.opts.Log, "e2e: %s: Argo CD %s (application controller, repo server, redis) ready in %s\n", c.Name, upstream.ArgoCD, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// persistHealthEnv makes the application controller keep each resource's
// health in its Application's status (argocd-cmd-params-cm's
// controller.resource.health.persist; off by default since Argo CD 3.0),
// so that the report can say which resources keep an Application from
// being Healthy. It changes where health is kept, not how it is judged
// nor what is synced; where platc's values set it, theirs stands.
const persistHealthEnv = "ARGOCD_APPLICATION_CONTROLLER_PERSIST_RESOURCE_HEALTH"

func persistHealth(env []string) []string {
	for _, e := range env {
		if strings.HasPrefix(e, persistHealthEnv+"=") {
			return env
		}
	}
	return append(env, persistHealthEnv+"=true")
}

// imagePath makes dir the folder of the programs Argo CD's image puts in
// /usr/local/bin beside argocd (its Dockerfile): helm and kustomize, as
// built, and the wrapper scripts of its module's hack folder, which the
// repo server runs (git-verify-wrapper.sh on every manifest generation,
// gpg-wrapper.sh for signatures). The scripts are copied to be made
// executable: the module cache holds them read-only.
func imagePath(root, dir string, bins Binaries) (string, error) {
	for _, name := range []string{"helm", "kustomize"} {
		if err := os.Symlink(bins.Path(name), filepath.Join(dir, name)); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	for _, name := range []string{"git-verify-wrapper.sh", "gpg-wrapper.sh"} {
		data, err := os.ReadFile(filepath.Join(root, "hack", name))
		if err != nil {
			return "", fmt.Errorf("Argo CD's %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// componentEnv is the environment a component's manifest gives its
// container from argocd-cmd-params-cm and argocd-cm: each variable whose
// key the configuration sets, as the kubelet would set it.
func componentEnv(root, manifest string, cfg ArgoCD) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, manifest))
	if err != nil {
		return nil, err
	}
	objs, err := Decode(data)
	if err != nil || len(objs) != 1 {
		return nil, fmt.Errorf("%s: not one object (%v)", manifest, err)
	}
	containers, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "template", "spec", "containers")
	if len(containers) == 0 {
		return nil, fmt.Errorf("%s: no container", manifest)
	}
	envs, _, _ := unstructured.NestedSlice(containers[0].(map[string]any), "env")
	var out []string
	for _, e := range envs {
		e, _ := e.(map[string]any)
		name, _ := e["name"].(string)
		ref, _, _ := unstructured.NestedMap(e, "valueFrom", "configMapKeyRef")
		key, _ := ref["key"].(string)
		var from map[string]string
		switch ref["name"] {
		case "argocd-cmd-params-cm":
			from = cfg.Params
		case "argocd-cm":
			from = cfg.CM
		}
		if v, ok := from[key]; ok {
			out = append(out, name+"="+v)
		}
	}
	slices.Sort(out)
	return out, nil
}

func mergeData(cm *unstructured.Unstructured, data map[string]string) {
	if len(data) == 0 {
		return
	}
	m, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if m == nil {
		m = map[string]string{}
	}
	for k, v := range data {
		m[k] = v
	}
	unstructured.SetNestedStringMap(cm.Object, m, "data")
}

func namespace(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name},
	}}
}

// defaultProject is the AppProject argocd-server creates at its start
// (server/server.go, initializeDefaultProject): every source, every
// destination, every cluster-scoped kind.
func defaultProject(namespace string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"name": "default", "namespace": namespace},
		"spec": map[string]any{
			"sourceRepos":              []any{"*"},
			"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
			"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
		},
	}}
}

// StartKro installs kro's CRDs from its module (helm/crds) and starts its
// controller with the feature gates given (a gate not named at kro's
// default), passed as kro's chart passes its values' config.featureGates:
// --feature-gates name=value,...
func (c *Cluster) StartKro(ctx context.Context, gates map[string]bool) error {
	start := time.Now()
	root, err := moduleDir(ctx, c.opts.ProgramsDir, "github.com/kubernetes-sigs/kro")
	if err != nil {
		return err
	}
	if err := c.InstallKroCRDs(ctx, root); err != nil {
		return err
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(ports[0]),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(ports[1]),
	}
	if len(gates) > 0 {
		var set []string
		for _, name := range slices.Sorted(maps.Keys(gates)) {
			set = append(set, name+"="+strconv.FormatBool(gates[name]))
		}
		args = append(args, "--feature-gates="+strings.Join(set, ","))
	}
	if _, err := c.procs.start(c.Dir, "kro", c.opts.Binaries.Path("controller"), args, nil); err != nil {
		return err
	}
	if err := c.waitHTTP(ctx, "kro", "http://127.0.0.1:"+strconv.Itoa(ports[1])+"/readyz", nil, 60*time.Second); err != nil {
		return err
	}
	fmt.Fprintf(c.opts.Log, "e2e: %s: kro %s ready in %s\n", c.Name, upstream.Kro, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// InstallKroCRDs applies the CRDs of kro's module (root, or found in the
// module cache when empty).
func (c *Cluster) InstallKroCRDs(ctx context.Context, root string) error {
	if root == "" {
		var err error
		if root, err = moduleDir(ctx, c.opts.ProgramsDir, "github.com/kubernetes-sigs/kro"); err != nil {
			return err
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "helm", "crds", "*.yaml"))
	if len(files) == 0 {
		return fmt.Errorf("no CRDs in kro's module (%s/helm/crds)", root)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		objs, err := Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := c.Apply(ctx, "", objs...); err != nil {
			return err
		}
	}
	return nil
}
