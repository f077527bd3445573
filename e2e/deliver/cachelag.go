package deliver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/platc/platc/e2e/cluster"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Argo CD finds the live state of what an Application syncs in its
// cluster cache (gitops-engine's pkg/cache), which a watch of every kind
// keeps. A resource it syncs but does not track (a CustomResourceDefinition:
// the repo server puts no tracking annotation on one,
// reposerver/repository's GenerateManifests) is found there by its key
// only, and its arrival there asks no Application to be compared again.
// The cache handles each event of its CRD watch in turn, and for each it
// runs discovery and loads the whole OpenAPI schema again (cluster.go,
// watchEvents): where platforms install dozens of CRDs at once on a busy
// machine (two control planes on two cores here), that watch falls minutes
// behind, and a CRD applied late stays Missing in its Application (OutOfSync),
// however often it is synced ("unchanged"), until the watch's events
// reach it or the watch is listed again: every watchResync, after which
// the Application is compared at its next resync (argocd-cm's
// timeout.reconciliation, plus its jitter). Argo CD corrects it by itself;
// the harness waits for that (Wait), and says so.

// watchResync is how long the cluster cache keeps a watch before it lists
// the kind again and restarts it (Argo CD's controller/cache
// clusterCacheWatchResyncDuration; ARGOCD_CLUSTER_CACHE_WATCH_RESYNC_DURATION,
// which neither platc's values nor the harness set).
const watchResync = 10 * time.Minute

// lagMargin is added to the time by which Argo CD has corrected its
// cache: the controller compares Applications one after another from a
// queue, on a busy machine.
const lagMargin = time.Minute

// Argo CD's defaults for an Application's resync and its jitter
// (argocd-application-controller's --app-resync, --app-resync-jitter).
const (
	defaultResync = 120 * time.Second
	defaultJitter = 60 * time.Second
)

// resyncOf is the controller's application resync period and its jitter
// as the Argo CD configuration sets them (argocd-cm's
// timeout.reconciliation and timeout.reconciliation.jitter, which its
// manifest gives the controller as ARGOCD_RECONCILIATION_TIMEOUT and
// ARGOCD_RECONCILIATION_JITTER).
func resyncOf(cfg cluster.ArgoCD) (resync, jitter time.Duration) {
	resync, jitter = defaultResync, defaultJitter
	if d, err := time.ParseDuration(cfg.CM["timeout.reconciliation"]); err == nil {
		resync = d
	}
	if d, err := time.ParseDuration(cfg.CM["timeout.reconciliation.jitter"]); err == nil {
		jitter = d
	}
	return resync, jitter
}

// cacheLags finds each waiting Application whose cache lags: see
// cacheLagged. Its error says so, where no condition or failed operation
// says something else.
func (e *Env) cacheLags(ctx context.Context, apps []*App) error {
	for _, a := range apps {
		if a.Verdict != VerdictWaiting {
			continue
		}
		lagged, since, err := cacheLagged(a, func(r liveResource) (time.Time, bool, error) {
			obj, _, err := e.liveObject(ctx, r)
			if err != nil || obj == nil {
				return time.Time{}, false, err
			}
			created, _, _ := unstructured.NestedString(obj, "metadata", "creationTimestamp")
			t, _ := time.Parse(time.RFC3339, created)
			return t, true, nil
		})
		if err != nil {
			return err
		}
		a.lagged, a.lagSince = lagged, since
		if len(lagged) > 0 && a.Error == "" {
			a.Error = lagError(lagged, since)
		}
	}
	return nil
}

// cacheLagged says which resources of an Application Argo CD's cluster
// cache has not seen, and when the last of them was created: where the
// Application is OutOfSync, its last sync succeeded and none of its
// conditions says a resource is excluded or not watched, and every
// resource it reports OutOfSync is one it reports Missing that exists in
// the cluster (live: whether, and since when; Argo CD's key is looked up,
// its namespace as Argo CD says it).
func cacheLagged(a *App, live func(liveResource) (time.Time, bool, error)) ([]string, time.Time, error) {
	if a.Sync != "OutOfSync" || a.phase != "Succeeded" {
		return nil, time.Time{}, nil
	}
	for _, c := range a.conditions {
		if c == "ExcludedResourceWarning" {
			return nil, time.Time{}, nil
		}
	}
	var lagged []string
	var since time.Time
	for _, r := range a.resources {
		if r.sync != "OutOfSync" {
			continue
		}
		if r.health != "Missing" {
			return nil, time.Time{}, nil
		}
		created, exists, err := live(r)
		if err != nil || !exists {
			return nil, time.Time{}, err
		}
		lagged = append(lagged, r.kind+" "+strings.TrimPrefix(r.namespace+"/"+r.name, "/"))
		if created.After(since) {
			since = created
		}
	}
	if len(lagged) == 0 {
		return nil, time.Time{}, nil
	}
	return lagged, since, nil
}

// lagError says what an Application whose cache lags waits on.
func lagError(lagged []string, since time.Time) string {
	what := lagged[0]
	if len(lagged) > 1 {
		what = fmt.Sprintf("%d resources (%s, ...)", len(lagged), lagged[0])
	}
	return fmt.Sprintf("Argo CD's cluster cache has not seen %s, in the cluster since %s: its watch is behind, and lists again every %s", what, since.UTC().Format("15:04:05"), watchResync)
}

// lagBound is when Argo CD has corrected its cluster cache for every
// waiting Application, where each waits only on that (cacheLagged): the
// last of their resources' creation, plus watchResync (the watch has been
// listed again since), the Application's resync and its jitter (it has
// been compared again since), and lagMargin. It is zero where an
// Application waits on anything else, or none waits, or the controller
// never compares Applications by itself (resync 0).
func lagBound(apps []*App, resync, jitter time.Duration) time.Time {
	if resync <= 0 {
		return time.Time{}
	}
	var last time.Time
	for _, a := range apps {
		if a.Verdict != VerdictWaiting {
			continue
		}
		if len(a.lagged) == 0 {
			return time.Time{}
		}
		if a.lagSince.After(last) {
			last = a.lagSince
		}
	}
	if last.IsZero() {
		return time.Time{}
	}
	return last.Add(watchResync + resync + jitter + lagMargin)
}
