package deliver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platc/platc/compiler/model"
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

	// label names the environment in progress lines.
	label   string
	orch    *orchestrator
	watch   *watcher
	stop    context.CancelFunc
	log     io.Writer
	started time.Time
	// resync and jitter are the controller's application resync period
	// and its jitter (resyncOf).
	resync, jitter time.Duration
}

// EnvOptions say how to deliver an environment.
type EnvOptions struct {
	// Binaries are the control plane's programs; ProgramsDir their module.
	Binaries    cluster.Binaries
	ProgramsDir string
	// Dir is the cluster's data folder.
	Dir string
	Log io.Writer
	// Nice is the scheduling priority of the cluster's programs
	// (cluster.Options.Nice).
	Nice int
}

// Deliver starts a cluster for the environment env, installs Argo CD as
// platc's values for it say (out/deploy/gitops/argocd/argocd-values*.yaml),
// the CRDs of the kinds the cluster's orchestrator provides (with a
// stand-in that provisions them), kro (its CRDs and controller: see
// StartKro), and applies the environment's root Application from the
// platform's repository.
func (r *Rig) Deliver(ctx context.Context, env string, opts EnvOptions) (_ *Env, err error) {
	if r.Spec.Environment(env) == nil {
		return nil, fmt.Errorf("the spec has no environment %q (it has %s)", env, strings.Join(r.Environments(), ", "))
	}
	label := env
	if r.name != "" {
		label = r.name + "/" + env
	}
	c, err := cluster.Start(ctx, cluster.Options{
		Name: label, Dir: opts.Dir, Binaries: opts.Binaries, ProgramsDir: opts.ProgramsDir, Log: opts.Log,
		ArgoCDNamespace: r.Spec.Platform.ArgoCDNamespace, Nice: opts.Nice,
	})
	if err != nil {
		return nil, err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e := &Env{Name: env, label: label, Cluster: c, Rig: r, stop: stop, log: opts.Log}
	defer func() {
		if err != nil {
			e.Stop()
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
	if err := c.StartArgoCD(ctx, cfg); err != nil {
		return nil, err
	}
	e.resync, e.jitter = resyncOf(cfg)
	// A destination is a cluster Argo CD knows by name: its operator
	// registered it (argocd cluster add); here each name, the
	// environment's and its modules' own, is the environment's own API
	// server.
	named := map[string]bool{"in-cluster": true}
	spec := r.Spec.Environment(env)
	dests := []model.Destination{spec.Destination}
	for _, m := range r.Spec.Modules {
		dests = append(dests, m.DestinationIn(spec))
	}
	for _, d := range dests {
		if d.Name != "" && !named[d.Name] {
			named[d.Name] = true
			if err := c.Apply(ctx, c.ArgoCDNamespace(), clusterSecret(c, d.Name)); err != nil {
				return nil, err
			}
		}
	}
	for i, s := range r.Charts {
		if err := c.Apply(ctx, c.ArgoCDNamespace(), s.repositorySecrets(c.ArgoCDNamespace(), i)...); err != nil {
			return nil, err
		}
	}
	prims, err := installPrimitives(ctx, c)
	if err != nil {
		return nil, err
	}
	e.orch = &orchestrator{c: c, prims: prims, done: map[string]bool{}}
	go e.orch.run(wctx)
	// With the gates the spec says its kro runs with (platc checked the
	// stacks with them, and that the kro chart's values agree).
	if err := c.StartKro(ctx, r.Spec.Platform.Kro.FeatureGates); err != nil {
		return nil, err
	}
	if e.watch, err = startWatcher(wctx, c); err != nil {
		return nil, err
	}
	e.started = time.Now()
	if err := e.ApplyRoot(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.log, "e2e: %s: root Application applied\n", label)
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
	return e.Cluster.Apply(ctx, e.Cluster.ArgoCDNamespace(), objs...)
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
	seq   map[string]int       // namespace/name -> order first seen
	seen  map[string]time.Time // namespace/name -> when first seen
	next  int
	store cache.Store
	// byHand are the Applications the harness synced by hand: why, and
	// the revision it synced.
	byHand map[string]handSync
}

func startWatcher(ctx context.Context, c *cluster.Cluster) (*watcher, error) {
	w := &watcher{seq: map[string]int{}, seen: map[string]time.Time{}, byHand: map[string]handSync{}}
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
			w.seen[key] = time.Now()
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
	// annotation), or the kro instance it is for, as Kind/name.
	Parent   string `json:"parent,omitempty"`
	Wave     int    `json:"wave"`
	Sync     string `json:"sync"`
	Health   string `json:"health"`
	Revision string `json:"revision,omitempty"`
	// Error is the first condition's message, or a failed operation's.
	Error string `json:"error,omitempty"`
	// Verdict is one of the Verdict constants.
	Verdict string `json:"verdict"`
	// Cause is the unreachable module a blocked one needs, or the
	// Application not healthy on kwok that one of VerdictKwok waits on.
	Cause string `json:"cause,omitempty"`
	// Charts are the chart versions it is delivered with, served on
	// loopback; RealChart says they are all real charts (Source.Corpus).
	Charts    []string `json:"charts,omitempty"`
	RealChart bool     `json:"realChart,omitempty"`
	// NotServed are its chart versions this machine does not serve, and
	// why (its verdict is then unreachable).
	NotServed []string `json:"notServed,omitempty"`
	// ByHand says why the harness synced it by hand, as a person would:
	// its sync policy is manual, or a sync window held its automated
	// sync.
	ByHand       string `json:"syncedByHand,omitempty"`
	handRevision string // the revision synced by hand
	automated    bool
	project      string
	seen         time.Time
	seq          int
	hosts        []string // hosts of its chart sources
	phase        string
	// syncs are the kro instances and Applications it syncs (its
	// status.resources; Argo CD 3 keeps their health out of the
	// Application, so the harness reads it from them).
	syncs []syncedResource
	// oci are its chart sources a loopback OCI registry serves.
	oci []chartSource
	// resources are all it syncs, with their health (which the
	// controller keeps in the Application: persistHealth).
	resources []liveResource
	// Kwok says why it is Synced and not Healthy, where that is only
	// what kwok cannot play (VerdictKwok).
	Kwok []string `json:"kwok,omitempty"`
	// conditions are the types of its conditions.
	conditions []string
	// lagged are the resources Argo CD's cluster cache has not seen yet,
	// where it waits only on them, and lagSince when the last of them was
	// created (cacheLagged).
	lagged   []string
	lagSince time.Time
}

// liveResource is a resource an Application syncs, with its health as
// Argo CD judges it.
type liveResource struct {
	syncedResource
	version, health, message string
	// sync is its sync status: Synced, OutOfSync.
	sync string
}

// syncedResource is a resource an Application syncs, as its status lists it.
type syncedResource struct{ group, kind, namespace, name string }

// Verdicts of an Application.
const (
	// VerdictOK: Synced and Healthy.
	VerdictOK = "ok"
	// VerdictUnreachable: its one problem is a chart repository this
	// machine cannot reach, or a version of a served one that is not
	// vendored.
	VerdictUnreachable = "unreachable"
	// VerdictWaiting: none of the others yet.
	VerdictWaiting = "waiting"
	// VerdictBlocked: it needs a kind that a module it needs, one
	// whose chart is unreachable, would have installed (App.Cause); or
	// it is Synced and Progressing only because kro instances or
	// Applications it syncs wait on Applications that are unreachable or
	// blocked (Argo CD judges a kro instance's health by its Ready
	// condition): stuckBelow.
	VerdictBlocked = "blocked"
	// VerdictUnsigned: its project requires commits signed with GnuPG
	// keys this machine does not have (signatureKeys).
	VerdictUnsigned = "unsigned"
	// VerdictWindow: a sync window of its project denies every sync now,
	// by hand too.
	VerdictWindow = "window"
	// VerdictFailed: still waiting when the wait ended.
	VerdictFailed = "failed"
)

// apps reads every Application's state from the watch.
func (e *Env) apps() []*App {
	e.watch.mu.Lock()
	defer e.watch.mu.Unlock()
	var apps []*App
	for _, obj := range e.watch.store.List() {
		u := obj.(*unstructured.Unstructured)
		key := u.GetNamespace() + "/" + u.GetName()
		a := &App{Env: e.Name, Namespace: u.GetNamespace(), Name: u.GetName(), seq: e.watch.seq[key], seen: e.watch.seen[key], ByHand: e.watch.byHand[key].why, handRevision: e.watch.byHand[key].revision}
		a.project, _, _ = unstructured.NestedString(u.Object, "spec", "project")
		if auto, ok, _ := unstructured.NestedMap(u.Object, "spec", "syncPolicy", "automated"); ok {
			enabled, set, _ := unstructured.NestedBool(auto, "enabled")
			a.automated = !set || enabled
		}
		a.Wave, _ = strconv.Atoi(u.GetAnnotations()["argocd.argoproj.io/sync-wave"])
		if id := u.GetAnnotations()["argocd.argoproj.io/tracking-id"]; id != "" {
			a.Parent, _, _ = strings.Cut(id, ":")
		}
		// kro labels what it creates with the instance it is for.
		if l := u.GetLabels(); l["kro.run/instance-name"] != "" {
			a.Parent = l["kro.run/instance-kind"] + "/" + l["kro.run/instance-name"]
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
			if t, _ := m["type"].(string); t != "" {
				a.conditions = append(a.conditions, t)
			}
			if msg, _ := m["message"].(string); msg != "" && a.Error == "" {
				a.Error = fmt.Sprintf("%s: %s", m["type"], msg)
			}
		}
		if msg, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "message"); a.Error == "" && a.phase != "Succeeded" {
			a.Error = msg
		}
		for _, src := range e.chartSources(u) {
			if src.host != "" {
				a.hosts = append(a.hosts, src.host)
				if src.pin != nil && src.pin.Why != "" {
					a.NotServed = append(a.NotServed, src.pin.String()+": "+src.pin.Why)
				}
			} else if src.pin != nil {
				a.Charts = append(a.Charts, src.pin.Chart+" "+src.pin.Version)
				a.RealChart = src.pin.Real && (a.RealChart || len(a.Charts) == 1)
				if src.digest != "" {
					a.oci = append(a.oci, src)
				}
			}
		}
		if len(a.NotServed) > 0 {
			a.RealChart = false
		}
		resources, _, _ := unstructured.NestedSlice(u.Object, "status", "resources")
		for _, raw := range resources {
			m, _ := raw.(map[string]any)
			var r syncedResource
			r.group, _ = m["group"].(string)
			r.kind, _ = m["kind"].(string)
			r.namespace, _ = m["namespace"].(string)
			r.name, _ = m["name"].(string)
			if r.group == "kro.run" && r.kind != "ResourceGraphDefinition" || r.group == "argoproj.io" && r.kind == "Application" {
				a.syncs = append(a.syncs, r)
			}
			lr := liveResource{syncedResource: r}
			lr.version, _ = m["version"].(string)
			lr.health, _, _ = unstructured.NestedString(m, "health", "status")
			lr.message, _, _ = unstructured.NestedString(m, "health", "message")
			lr.sync, _ = m["status"].(string)
			a.resources = append(a.resources, lr)
		}
		a.Verdict = verdict(a)
		apps = append(apps, a)
	}
	e.blocked(apps)
	slices.SortFunc(apps, func(x, y *App) int {
		return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
	})
	return apps
}

// notVendored stands for the host of a chart version that a repository
// served on loopback has no archive of: the real repository has it, and
// this machine cannot reach it.
const notVendored = "(not vendored)"

// chartSource is one chart source of an Application as the rig serves it.
type chartSource struct {
	// host is the host Argo CD must reach for it where the rig does not
	// serve it (notVendored where a loopback server lacks the version);
	// empty where it is served.
	host string
	// pin is the spec's pin of the chart version, where one is known.
	pin *ChartPin
	// digest is, for a chart a loopback OCI registry serves, the digest
	// of the manifest it serves for the version's tag: the revision Argo
	// CD resolves the tag to.
	digest string
}

// chartSources are an Application's chart sources (and Git repositories
// the rig does not stand in for, by host): for each, whether this machine
// serves it and the pin it is.
func (e *Env) chartSources(u *unstructured.Unstructured) []chartSource {
	var sources []any
	if s, ok, _ := unstructured.NestedMap(u.Object, "spec", "source"); ok {
		sources = append(sources, s)
	}
	ss, _, _ := unstructured.NestedSlice(u.Object, "spec", "sources")
	sources = append(sources, ss...)
	var out []chartSource
	for _, s := range sources {
		m, _ := s.(map[string]any)
		url, _ := m["repoURL"].(string)
		chart, isChart := m["chart"].(string)
		if !isChart && !strings.HasPrefix(url, "oci://") {
			// A Git repository the rig does not stand in for
			// (Rewrite made those file:// URLs): another host.
			if _, rest, ok := strings.Cut(url, "://"); ok && !strings.HasPrefix(url, "file://") {
				host, _, _ := strings.Cut(rest, "/")
				out = append(out, chartSource{host: host})
			}
			continue
		}
		repo := url
		if !isChart {
			// An OCI source: the repository's last element is the
			// chart.
			i := strings.LastIndex(url, "/")
			repo, chart = url[:i], url[i+1:]
		}
		version, _ := m["targetRevision"].(string)
		_, rest, _ := strings.Cut(url, "://")
		host, _, _ := strings.Cut(rest, "/")
		from, digest := repo, ""
		for _, cs := range e.Rig.Charts {
			if sameRepo(repo, cs.To) {
				from, host = cs.From, ""
				if !cs.serves(chart, version) {
					host = notVendored
				}
				digest = cs.manifestDigest(chart, version)
			}
		}
		src := chartSource{host: host, digest: digest}
		for _, p := range e.Rig.Pins {
			if sameRepo(p.RepoURL, from) && p.Chart == chart && p.Version == version {
				src.pin = p
			}
		}
		out = append(out, src)
	}
	return out
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

// stuckBelow marks as blocked a waiting Application that is Synced and
// Progressing because what it syncs cannot become Healthy here: kro
// instances (whose health Argo CD judges by their Ready condition) that
// wait on Applications of theirs that are unreachable or blocked, and
// Applications that are; every other instance and Application it syncs
// is active or ok. It repeats until nothing changes, so that a parent of
// a blocked Application is blocked too.
func stuckBelow(apps []*App, instances []*Instance) {
	active := map[string]bool{} // instance Kind/name
	for _, in := range instances {
		if in.State == "ACTIVE" {
			active[in.Kind+"/"+in.Name] = true
		}
	}
	// Only waiting Applications change, to blocked: which are ok is
	// known once.
	ok := map[string]bool{} // Application ns/name
	for _, a := range apps {
		ok[a.Namespace+"/"+a.Name] = a.Verdict == VerdictOK
	}
	for changed := true; changed; {
		changed = false
		stuck := map[string]string{} // Application ns/name, or instance Kind/name: the Application that cannot be delivered
		onKwok := map[string]bool{}  // causes that are only kwok's
		for _, a := range apps {
			if a.Verdict != VerdictUnreachable && a.Verdict != VerdictBlocked && a.Verdict != VerdictKwok {
				continue
			}
			cause := a.Namespace + "/" + a.Name
			if a.Cause != "" && (a.Verdict == VerdictBlocked || a.Verdict == VerdictKwok) {
				cause = a.Cause
			}
			if a.Verdict == VerdictKwok {
				onKwok[cause] = true
			}
			stuck[a.Namespace+"/"+a.Name] = cause
			if _, ok := stuck[a.Parent]; !ok && strings.Contains(a.Parent, "/") {
				stuck[a.Parent] = cause
			}
		}
		for _, a := range apps {
			if a.Verdict != VerdictWaiting || a.Sync != "Synced" || a.Health != "Progressing" {
				continue
			}
			var causes []string
			for _, r := range a.syncs {
				key, fine := r.kind+"/"+r.name, active
				if r.kind == "Application" {
					key, fine = r.namespace+"/"+r.name, ok
				}
				if fine[key] {
					continue
				}
				if stuck[key] == "" {
					causes = nil
					break
				}
				causes = append(causes, stuck[key])
			}
			if len(causes) > 0 {
				slices.Sort(causes)
				a.Verdict, a.Cause, changed = VerdictBlocked, causes[0], true
				// Where all it waits on is only kwok's, so is it.
				if !slices.ContainsFunc(causes, func(c string) bool { return !onKwok[c] }) {
					a.Verdict = VerdictKwok
					a.Kwok = []string{"what it syncs waits on " + strings.Join(slices.Compact(causes), ", ") + ", not healthy on kwok"}
				}
			}
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
	if strings.Contains(a.Error, "GIT/GPG: Failed verifying revision") {
		return VerdictUnsigned
	}
	if a.ByHand != "" && strings.Contains(strings.ToLower(a.Error), "sync window") {
		return VerdictWindow
	}
	for _, h := range a.hosts {
		if h == notVendored && a.Error != "" {
			return VerdictUnreachable
		}
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

// heldFor is how long an Application may stay OutOfSync with its
// automated sync never attempted before the harness takes it for held by
// a sync window and syncs it by hand.
const heldFor = 20 * time.Second

// handSync is a sync the harness made by hand.
type handSync struct{ why, revision string }

// syncByHand syncs each Application a person would sync, once per
// revision: one that is OutOfSync and not being synced, whose sync policy
// is manual, or whose automated sync has not run for heldFor (a sync
// window holds it; the window's manualSync lets a person sync). It records
// why.
func (e *Env) syncByHand(ctx context.Context, apps []*App) error {
	for _, a := range apps {
		if a.Verdict != VerdictWaiting || a.Sync != "OutOfSync" || (a.ByHand != "" && a.handRevision == a.Revision) || a.phase == "Running" {
			continue
		}
		why := "its sync policy is manual"
		if a.automated {
			// A new revision held as the first was: no need to wait
			// again.
			if a.ByHand == "" && (a.phase != "" || time.Since(a.seen) < heldFor) {
				continue
			}
			// Only a project's sync window holds an automated sync:
			// where its project has none, the controller has not come
			// to it yet (a large chart takes a while to compare).
			if windows, err := e.projectWindows(ctx, a.project); err != nil || !windows {
				continue
			}
			why = fmt.Sprintf("its automated sync did not run in %s: a sync window holds it", heldFor)
		}
		patch, err := e.syncOperation(ctx, a)
		if err == nil {
			_, err = e.Cluster.Dynamic.Resource(appGVR).Namespace(a.Namespace).Patch(ctx, a.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		}
		if err != nil {
			return fmt.Errorf("sync %s/%s by hand: %w", a.Namespace, a.Name, err)
		}
		e.watch.mu.Lock()
		e.watch.byHand[a.Namespace+"/"+a.Name] = handSync{why, a.Revision}
		e.watch.mu.Unlock()
		fmt.Fprintf(e.log, "e2e: %s: %s/%s synced by hand (%s)\n", e.label, a.Namespace, a.Name, why)
	}
	return nil
}

// projectWindows reports whether an Application's project (in Argo CD's
// namespace; "default" where it names none) has sync windows.
func (e *Env) projectWindows(ctx context.Context, project string) (bool, error) {
	if project == "" {
		project = "default"
	}
	p, err := e.Cluster.Dynamic.Resource(projectGVR).Namespace(e.Cluster.ArgoCDNamespace()).Get(ctx, project, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	windows, _, _ := unstructured.NestedSlice(p.Object, "spec", "syncWindows")
	return len(windows) > 0, nil
}

// clusterSecret registers the cluster's own API server in Argo CD under
// name, as `argocd cluster add` does (a Secret of type cluster).
func clusterSecret(c *cluster.Cluster, name string) *unstructured.Unstructured {
	config, _ := json.Marshal(map[string]any{
		"bearerToken":     c.Token,
		"tlsClientConfig": map[string]any{"caData": base64.StdEncoding.EncodeToString(c.CA)},
	})
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{
			"name": "cluster-" + name, "namespace": c.ArgoCDNamespace(),
			"labels": map[string]any{"argocd.argoproj.io/secret-type": "cluster"},
		},
		"stringData": map[string]any{"name": name, "server": c.Server, "config": string(config)},
	}}
}

// syncOperation is the operation that asks Argo CD to sync an Application
// now, as its API server makes it for a person's sync (server/application,
// Sync): the Application's own sync options and retry (or 5 attempts,
// what it needs may still be on its way), pruning as its automated policy
// would.
func (e *Env) syncOperation(ctx context.Context, a *App) ([]byte, error) {
	u, err := e.Cluster.Dynamic.Resource(appGVR).Namespace(a.Namespace).Get(ctx, a.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	sync := map[string]any{}
	if opts, ok, _ := unstructured.NestedStringSlice(u.Object, "spec", "syncPolicy", "syncOptions"); ok {
		sync["syncOptions"] = opts
	}
	if prune, ok, _ := unstructured.NestedBool(u.Object, "spec", "syncPolicy", "automated", "prune"); ok {
		sync["prune"] = prune
	}
	retry, ok, _ := unstructured.NestedMap(u.Object, "spec", "syncPolicy", "retry")
	if !ok {
		retry = map[string]any{"limit": int64(5)}
	}
	return json.Marshal(map[string]any{"operation": map[string]any{
		"initiatedBy": map[string]any{"username": "platc-e2e"},
		"sync":        sync,
		"retry":       retry,
	}})
}
