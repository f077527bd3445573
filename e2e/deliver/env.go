package deliver

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platc/platc/e2e/cluster"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

var (
	appGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	rgdGVR = schema.GroupVersionResource{Group: "kro.run", Version: "v1alpha1", Resource: "resourcegraphdefinitions"}
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// Env is one environment of a platform delivered to a cluster of its own.
type Env struct {
	Name    string
	Cluster *cluster.Cluster
	Rig     *Rig

	orch    *orchestrator
	watch   *watcher
	stop    context.CancelFunc
	log     io.Writer
	started time.Time
}

// EnvOptions say how to deliver an environment.
type EnvOptions struct {
	// Binaries are the control plane's programs; ProgramsDir their module.
	Binaries    cluster.Binaries
	ProgramsDir string
	// Dir is the cluster's data folder.
	Dir string
	// ControllerFlags are added to Argo CD's application controller.
	ControllerFlags []string
	Log             io.Writer
}

// Deliver starts a cluster for the environment env, installs Argo CD as
// platc's values for it say (out/deploy/gitops/argocd/argocd-values*.yaml),
// the CRDs of the kinds the cluster's orchestrator provides (with a
// stand-in that provisions them), kro (its CRDs and controller: see
// StartKro), and applies the environment's root Application from the
// platform's repository.
func (r *Rig) Deliver(ctx context.Context, env string, opts EnvOptions) (e *Env, err error) {
	if r.Spec.Environment(env) == nil {
		return nil, fmt.Errorf("the spec has no environment %q (it has %s)", env, strings.Join(r.Environments(), ", "))
	}
	c, err := cluster.Start(ctx, cluster.Options{
		Name: env, Dir: opts.Dir, Binaries: opts.Binaries, ProgramsDir: opts.ProgramsDir, Log: opts.Log,
	})
	if err != nil {
		return nil, err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e = &Env{Name: env, Cluster: c, Rig: r, stop: stop, log: opts.Log}
	defer func() {
		if err != nil {
			e.Stop()
			e = nil
		}
	}()
	values, err := r.ArgoCDValues(env)
	if err != nil {
		return nil, err
	}
	cfg, err := cluster.ChartValues(values)
	if err != nil {
		return nil, fmt.Errorf("the Argo CD values platc renders for %s: %w", env, err)
	}
	cfg.ControllerFlags = opts.ControllerFlags
	if err := c.StartArgoCD(ctx, cfg); err != nil {
		return nil, err
	}
	prims, err := installPrimitives(ctx, c)
	if err != nil {
		return nil, err
	}
	e.orch = &orchestrator{c: c, prims: prims, done: map[string]bool{}}
	go e.orch.run(wctx)
	if err := c.StartKro(ctx); err != nil {
		return nil, err
	}
	if e.watch, err = startWatcher(wctx, c); err != nil {
		return nil, err
	}
	e.started = time.Now()
	if err := e.ApplyRoot(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.log, "e2e: %s: root Application applied\n", env)
	return e, nil
}

// ApplyRoot applies the environment's root Application as the platform's
// repository holds it at HEAD (as `make sync` applies it).
func (e *Env) ApplyRoot(ctx context.Context) error {
	data, err := os.ReadFile(e.Rig.RootFile(e.Name))
	if err != nil {
		return err
	}
	objs, err := cluster.Decode(data)
	if err != nil {
		return err
	}
	return e.Cluster.Apply(ctx, cluster.ArgoCDNamespace, objs...)
}

// Stop stops the environment's cluster.
func (e *Env) Stop() {
	if e.stop != nil {
		e.stop()
	}
	e.Cluster.Stop()
}

// Refresh asks Argo CD to compare every Application with Git again now,
// as a push webhook does for the Applications of the pushed repository:
// a hard refresh, so that a moved branch or tag is read again.
func (e *Env) Refresh(ctx context.Context) error {
	list, err := e.Cluster.Dynamic.Resource(appGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
	for _, a := range list.Items {
		if _, err := e.Cluster.Dynamic.Resource(appGVR).Namespace(a.GetNamespace()).Patch(ctx, a.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// A watcher records the order in which Applications first appear, for
// the check of sync waves, and keeps every Application's last state.
type watcher struct {
	mu    sync.Mutex
	seq   map[string]int // namespace/name -> order first seen
	next  int
	store cache.Store
}

func startWatcher(ctx context.Context, c *cluster.Cluster) (*watcher, error) {
	w := &watcher{seq: map[string]int{}}
	f := dynamicinformer.NewDynamicSharedInformerFactory(c.Dynamic, 0)
	inf := f.ForResource(appGVR).Informer()
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		w.mu.Lock()
		key := u.GetNamespace() + "/" + u.GetName()
		if _, seen := w.seq[key]; !seen {
			w.seq[key] = w.next
			w.next++
		}
		w.mu.Unlock()
	}})
	w.store = inf.GetStore()
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("%s: the watch of Applications did not start", c.Name)
	}
	return w, nil
}

// App is what the cluster says of one Application.
type App struct {
	Env       string `json:"environment"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Parent is the Application that created it (its tracking
	// annotation), or the kro instance that owns it, as Kind/name.
	Parent   string `json:"parent,omitempty"`
	Wave     int    `json:"wave"`
	Sync     string `json:"sync"`
	Health   string `json:"health"`
	Revision string `json:"revision,omitempty"`
	// Error is the first condition's message, or a failed operation's.
	Error string `json:"error,omitempty"`
	// Verdict: ok, unreachable (a chart repository this machine cannot
	// reach, and nothing else), blocked, or waiting.
	Verdict string `json:"verdict"`
	// Cause is the unreachable module a blocked one needs.
	Cause string `json:"cause,omitempty"`
	seq   int
	hosts []string // hosts of its chart sources
	phase string
}

// Verdicts of an Application.
const (
	VerdictOK          = "ok"
	VerdictUnreachable = "unreachable"
	VerdictWaiting     = "waiting"
	// VerdictBlocked: it needs a kind that a module it needs, one
	// whose chart is unreachable, would have installed (App.Cause).
	VerdictBlocked = "blocked"
	VerdictFailed  = "failed"
)

// apps reads every Application's state from the watch.
func (e *Env) apps() []*App {
	e.watch.mu.Lock()
	defer e.watch.mu.Unlock()
	var apps []*App
	for _, obj := range e.watch.store.List() {
		u := obj.(*unstructured.Unstructured)
		a := &App{Env: e.Name, Namespace: u.GetNamespace(), Name: u.GetName(), seq: e.watch.seq[u.GetNamespace()+"/"+u.GetName()]}
		a.Wave, _ = strconv.Atoi(u.GetAnnotations()["argocd.argoproj.io/sync-wave"])
		if id := u.GetAnnotations()["argocd.argoproj.io/tracking-id"]; id != "" {
			a.Parent, _, _ = strings.Cut(id, ":")
		}
		for _, o := range u.GetOwnerReferences() {
			a.Parent = o.Kind + "/" + o.Name
		}
		a.Sync, _, _ = unstructured.NestedString(u.Object, "status", "sync", "status")
		a.Health, _, _ = unstructured.NestedString(u.Object, "status", "health", "status")
		a.Revision, _, _ = unstructured.NestedString(u.Object, "status", "sync", "revision")
		if a.Revision == "" {
			revs, _, _ := unstructured.NestedStringSlice(u.Object, "status", "sync", "revisions")
			a.Revision = strings.Join(revs, ",")
		}
		a.phase, _, _ = unstructured.NestedString(u.Object, "status", "operationState", "phase")
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if msg, _ := m["message"].(string); msg != "" {
				a.Error = fmt.Sprintf("%s: %s", m["type"], msg)
				break
			}
		}
		if msg, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "message"); a.Error == "" && a.phase != "Succeeded" {
			a.Error = msg
		}
		a.hosts = chartHosts(u)
		a.Verdict = verdict(a)
		apps = append(apps, a)
	}
	e.blocked(apps)
	slices.SortFunc(apps, func(x, y *App) int {
		return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
	})
	return apps
}

// chartHosts are the hosts of an Application's chart sources.
func chartHosts(u *unstructured.Unstructured) []string {
	var sources []any
	if s, ok, _ := unstructured.NestedMap(u.Object, "spec", "source"); ok {
		sources = append(sources, s)
	}
	ss, _, _ := unstructured.NestedSlice(u.Object, "spec", "sources")
	sources = append(sources, ss...)
	var hosts []string
	for _, s := range sources {
		m, _ := s.(map[string]any)
		url, _ := m["repoURL"].(string)
		_, isChart := m["chart"]
		if !isChart && !strings.HasPrefix(url, "oci://") {
			continue
		}
		_, rest, _ := strings.Cut(url, "://")
		host, _, _ := strings.Cut(rest, "/")
		hosts = append(hosts, host)
	}
	return hosts
}

// missingKind is how Argo CD says that a kind an Application syncs is
// not served (yet).
func missingKind(msg string) bool {
	return strings.Contains(msg, "the server could not find the requested resource") ||
		strings.Contains(msg, "could not find the requested resource") ||
		strings.Contains(msg, "no matches for kind")
}

// blocked marks a waiting Application of a module as blocked when what it
// syncs needs a kind that is not served and a module it needs (or one
// that module needs) is unreachable: that module would have installed it.
func (e *Env) blocked(apps []*App) {
	byName := map[string]*App{}
	for _, a := range apps {
		if a.Namespace == e.Cluster.ArgoCDNamespace() {
			byName[a.Name] = a
		}
	}
	needs := map[string][]string{}
	for _, m := range e.Rig.Spec.Modules {
		needs[m.Name] = m.Needs
	}
	for _, a := range apps {
		if a.Verdict != VerdictWaiting || !missingKind(a.Error) {
			continue
		}
		seen := map[string]bool{}
		var walk func(string) string
		walk = func(m string) string {
			for _, n := range needs[m] {
				if seen[n] {
					continue
				}
				seen[n] = true
				if b := byName[n]; b != nil && b.Verdict == VerdictUnreachable {
					return n
				}
				if u := walk(n); u != "" {
					return u
				}
			}
			return ""
		}
		if cause := walk(a.Name); cause != "" {
			a.Verdict = VerdictBlocked
			a.Cause = cause
		}
	}
}

// verdict judges an Application: ok when Synced and Healthy;
// unreachable when its one problem is a chart repository on another
// host than this one (the error names the host); else waiting.
func verdict(a *App) string {
	if a.Sync == "Synced" && a.Health == "Healthy" {
		return VerdictOK
	}
	for _, h := range a.hosts {
		if h != "" && !strings.HasPrefix(h, "127.0.0.1") && !strings.HasPrefix(h, "localhost") && strings.Contains(a.Error, h) {
			return VerdictUnreachable
		}
	}
	return VerdictWaiting
}

// WaveOrder checks that Argo CD created the child Applications of each
// Application (the root, an apps file's group) in the order of their sync
// waves, as platc computed them: a child of a lower wave never appears
// after one of a higher wave.
func (e *Env) WaveOrder(s *State) *Check {
	children := map[string][]*App{}
	for _, a := range s.Apps {
		if a.Parent != "" && !strings.Contains(a.Parent, "/") {
			children[a.Parent] = append(children[a.Parent], a)
		}
	}
	c := &Check{Name: "sync waves applied in platc's order", Env: e.Name, Pass: true}
	var notes []string
	for _, parent := range slices.Sorted(maps.Keys(children)) {
		kids := children[parent]
		slices.SortFunc(kids, func(x, y *App) int { return x.seq - y.seq })
		waves := map[int]bool{}
		for i, k := range kids {
			waves[k.Wave] = true
			if i > 0 && k.Wave < kids[i-1].Wave {
				c.Pass = false
				notes = append(notes, fmt.Sprintf("%s: %s (wave %d) appeared after %s (wave %d)", parent, k.Name, k.Wave, kids[i-1].Name, kids[i-1].Wave))
			}
		}
		if c.Pass {
			notes = append(notes, fmt.Sprintf("%s: %d in %d waves", parent, len(kids), len(waves)))
		}
	}
	c.Detail = strings.Join(notes, "; ")
	return c
}
