package deliver

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/platc/platc/e2e/cluster"
)

// TestCacheLagged: velero's Application as sample/customer left it, its
// CRDs applied ("unchanged") and in the cluster, Missing in Argo CD's
// cluster cache.
func TestCacheLagged(t *testing.T) {
	created := time.Date(2026, 12, 6, 22, 19, 0, 0, time.UTC)
	crd := func(name string) liveResource {
		return liveResource{syncedResource: syncedResource{group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", name: name}, version: "v1", health: "Missing", sync: "OutOfSync"}
	}
	deploy := liveResource{syncedResource: syncedResource{group: "apps", kind: "Deployment", namespace: "velero", name: "velero"}, version: "v1", health: "Healthy", sync: "Synced"}
	velero := func() *App {
		return &App{Sync: "OutOfSync", Health: "Healthy", phase: "Succeeded", resources: []liveResource{
			crd("backups.velero.io"), deploy, crd("schedules.velero.io"),
		}}
	}
	inCluster := func(r liveResource) (time.Time, bool, error) {
		if r.name == "schedules.velero.io" {
			return created, true, nil
		}
		return created.Add(-time.Second), true, nil
	}
	lagged, since, err := cacheLagged(velero(), inCluster)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CustomResourceDefinition backups.velero.io", "CustomResourceDefinition schedules.velero.io"}; !reflect.DeepEqual(lagged, want) {
		t.Errorf("lagged = %q, want %q", lagged, want)
	}
	if !since.Equal(created) {
		t.Errorf("since = %s, want the last creation, %s", since, created)
	}

	for name, tc := range map[string]struct {
		app  func(*App)
		live func(liveResource) (time.Time, bool, error)
	}{
		"not in the cluster": {nil, func(liveResource) (time.Time, bool, error) { return time.Time{}, false, nil }},
		"a resource out of sync, not missing": {func(a *App) {
			a.resources = append(a.resources, liveResource{syncedResource: deploy.syncedResource, health: "Healthy", sync: "OutOfSync"})
		}, inCluster},
		"synced":                   {func(a *App) { a.Sync = "Synced" }, inCluster},
		"its sync still running":   {func(a *App) { a.phase = "Running" }, inCluster},
		"its last sync failed":     {func(a *App) { a.phase = "Failed" }, inCluster},
		"a resource excluded":      {func(a *App) { a.conditions = []string{"ExcludedResourceWarning"} }, inCluster},
		"nothing out of sync, yet": {func(a *App) { a.resources = []liveResource{deploy} }, inCluster},
	} {
		a := velero()
		if tc.app != nil {
			tc.app(a)
		}
		if lagged, _, err := cacheLagged(a, tc.live); err != nil || lagged != nil {
			t.Errorf("%s: lagged = %q (%v), want none", name, lagged, err)
		}
	}
	boom := errors.New("boom")
	if _, _, err := cacheLagged(velero(), func(liveResource) (time.Time, bool, error) { return time.Time{}, false, boom }); err != boom {
		t.Errorf("a failed read: err = %v, want it", err)
	}
}

func TestLagBound(t *testing.T) {
	since := time.Date(2026, 12, 6, 22, 19, 0, 0, time.UTC)
	lagging := &App{Verdict: VerdictWaiting, lagged: []string{"CustomResourceDefinition backups.velero.io"}, lagSince: since}
	later := &App{Verdict: VerdictWaiting, lagged: []string{"CustomResourceDefinition x.example.com"}, lagSince: since.Add(time.Minute)}
	ok := &App{Verdict: VerdictOK}
	kwok := &App{Verdict: VerdictKwok}
	waiting := &App{Verdict: VerdictWaiting}

	// 22:19 + the watch's 10 min + the Application's 2 min and 1 min of
	// jitter + a minute's margin.
	if got, want := lagBound([]*App{ok, lagging, kwok}, 2*time.Minute, time.Minute), since.Add(14*time.Minute); !got.Equal(want) {
		t.Errorf("lagBound = %s, want %s", got, want)
	}
	if got, want := lagBound([]*App{lagging, later}, 2*time.Minute, time.Minute), since.Add(15*time.Minute); !got.Equal(want) {
		t.Errorf("lagBound of two = %s, want the later's, %s", got, want)
	}
	for name, apps := range map[string][]*App{
		"another waits on something else": {lagging, waiting},
		"none waits":                      {ok, kwok},
	} {
		if got := lagBound(apps, 2*time.Minute, time.Minute); !got.IsZero() {
			t.Errorf("%s: lagBound = %s, want none", name, got)
		}
	}
	if got := lagBound([]*App{lagging}, 0, 0); !got.IsZero() {
		t.Errorf("no resync: lagBound = %s, want none (the controller never compares it again by itself)", got)
	}
}

func TestResyncOf(t *testing.T) {
	if r, j := resyncOf(cluster.ArgoCD{}); r != 2*time.Minute || j != time.Minute {
		t.Errorf("defaults: %s, %s; want 2m, 1m", r, j)
	}
	cfg := cluster.ArgoCD{CM: map[string]string{"timeout.reconciliation": "180s", "timeout.reconciliation.jitter": "0s"}}
	if r, j := resyncOf(cfg); r != 3*time.Minute || j != 0 {
		t.Errorf("argocd-cm's: %s, %s; want 3m, 0s", r, j)
	}
}
