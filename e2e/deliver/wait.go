package deliver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/platc/platc/e2e/cluster"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RGD is what the cluster says of one ResourceGraphDefinition.
type RGD struct {
	Env   string `json:"environment"`
	Name  string `json:"name"`
	State string `json:"state"`
	// CRD is the instance CRD kro made, and whether it is established.
	CRD         string `json:"crd"`
	Established bool   `json:"established"`
	Error       string `json:"error,omitempty"`
}

// Instance is what the cluster says of one stack instance.
type Instance struct {
	Env       string `json:"environment"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
}

// State is an environment's state at one moment.
type State struct {
	Apps      []*App
	RGDs      []*RGD
	Instances []*Instance
}

// Settled reports whether every Application is ok or unreachable and
// every RGD Active with its CRD established.
func (s *State) Settled() bool {
	for _, a := range s.Apps {
		if !a.Settled() {
			return false
		}
	}
	for _, r := range s.RGDs {
		if r.State != "Active" || !r.Established {
			return false
		}
	}
	return len(s.Apps) > 0
}

// Settled reports whether the Application's verdict is final: ok, or
// one this machine cannot do better than (unreachable, blocked, unsigned,
// denied by a window).
func (a *App) Settled() bool {
	switch a.Verdict {
	case VerdictOK, VerdictUnreachable, VerdictBlocked, VerdictUnsigned, VerdictWindow, VerdictKwok:
		return true
	}
	return false
}

// Count counts Applications by verdict.
func (s *State) Count() map[string]int {
	n := map[string]int{}
	for _, a := range s.Apps {
		n[a.Verdict]++
	}
	return n
}

// Read reads the environment's state now.
func (e *Env) Read(ctx context.Context) (*State, error) {
	s := &State{Apps: e.apps()}
	if err := e.kwokVerdicts(ctx, s.Apps); err != nil {
		return nil, err
	}
	rgds, err := e.Cluster.Dynamic.Resource(rgdGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, u := range rgds.Items {
		r := &RGD{Env: e.Name, Name: u.GetName()}
		r.State, _, _ = unstructured.NestedString(u.Object, "status", "state")
		group, _, _ := unstructured.NestedString(u.Object, "spec", "schema", "group")
		if group == "" {
			group = "kro.run"
		}
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "schema", "kind")
		version, _, _ := unstructured.NestedString(u.Object, "spec", "schema", "apiVersion")
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["status"] != "True" {
				if msg, _ := m["message"].(string); msg != "" && r.Error == "" {
					r.Error = fmt.Sprintf("%s: %s", m["type"], msg)
				}
			}
		}
		mapping, err := e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}, version)
		if err != nil {
			e.Cluster.Mapper.Reset()
			mapping, err = e.Cluster.Mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}, version)
		}
		if err == nil {
			r.CRD = mapping.Resource.Resource + "." + group
			crd, err := e.Cluster.Dynamic.Resource(crdGVR).Get(ctx, r.CRD, metav1.GetOptions{})
			r.Established = err == nil && cluster.Established(crd)
			list, err := e.Cluster.Dynamic.Resource(mapping.Resource).List(ctx, metav1.ListOptions{})
			if err == nil {
				for _, i := range list.Items {
					in := &Instance{Env: e.Name, Kind: kind, Namespace: i.GetNamespace(), Name: i.GetName()}
					in.State, _, _ = unstructured.NestedString(i.Object, "status", "state")
					conds, _, _ := unstructured.NestedSlice(i.Object, "status", "conditions")
					for _, c := range conds {
						m, _ := c.(map[string]any)
						if msg, _ := m["message"].(string); m["status"] != "True" && msg != "" {
							in.Error = fmt.Sprintf("%s: %s", m["type"], msg)
							break
						}
					}
					s.Instances = append(s.Instances, in)
				}
			}
		}
		s.RGDs = append(s.RGDs, r)
	}
	stuckBelow(s.Apps, s.Instances)
	if err := e.cacheLags(ctx, s.Apps); err != nil {
		return nil, err
	}
	return s, nil
}

// Wait waits until the environment settles (Settled, and the same for
// two reads in a row) or timeout passes, printing a line whenever the
// counts change, and returns the last state. Where at the timeout every
// Application that waits waits only on Argo CD's cluster cache (its
// resources are in the cluster, and the cache has not seen them:
// cacheLagged), it waits on until Argo CD has corrected its cache by
// itself (lagBound), and says so.
func (e *Env) Wait(ctx context.Context, timeout time.Duration) (*State, error) {
	deadline := time.Now().Add(timeout)
	var last string
	var lagUntil time.Time // the deadline moved for the cache's lag
	stable := 0
	for {
		s, err := e.Read(ctx)
		if err != nil {
			return nil, err
		}
		if err := e.syncByHand(ctx, s.Apps); err != nil {
			return s, err
		}
		line := summary(s)
		if line != last {
			fmt.Fprintf(e.log, "e2e: %s: %s (%s)\n", e.label, line, time.Since(e.started).Round(time.Second))
			last, stable = line, 0
		}
		if s.Settled() {
			stable++
			if stable >= 2 {
				return s, nil
			}
		}
		if err := e.Cluster.Exited(); err != nil {
			return s, err
		}
		if now := time.Now(); now.After(deadline) && lagUntil.IsZero() {
			if until := lagBound(s.Apps, e.resync, e.jitter); now.Before(until) {
				lagUntil, deadline = until, until
				var lagged []string
				for _, a := range s.Apps {
					if a.Verdict == VerdictWaiting {
						lagged = append(lagged, fmt.Sprintf("%s/%s (%d resources)", a.Namespace, a.Name, len(a.lagged)))
					}
				}
				fmt.Fprintf(e.log, "e2e: %s: after %s, %s wait only on Argo CD's cluster cache, which has not seen resources that are in the cluster: waiting until %s, by when it has listed them again and compared the Applications (%s)\n",
					e.label, timeout, strings.Join(lagged, ", "), until.UTC().Format("15:04:05"), time.Since(e.started).Round(time.Second))
			}
		}
		if time.Now().After(deadline) {
			for _, a := range s.Apps {
				if a.Verdict == VerdictWaiting {
					a.Verdict = VerdictFailed
				}
			}
			if !lagUntil.IsZero() {
				return s, fmt.Errorf("%s: not settled after %s, nor by %s, when Argo CD's cluster cache should have caught up: %s", e.label, timeout, lagUntil.UTC().Format("15:04:05"), line)
			}
			return s, fmt.Errorf("%s: not settled after %s: %s", e.label, timeout, line)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(1500 * time.Millisecond):
		}
	}
}

func summary(s *State) string {
	n := s.Count()
	var parts []string
	parts = append(parts, fmt.Sprintf("%d Applications: %d ok, %d not healthy on kwok, %d unreachable, %d blocked, %d unsigned, %d waiting", len(s.Apps), n[VerdictOK], n[VerdictKwok], n[VerdictUnreachable], n[VerdictBlocked], n[VerdictUnsigned], n[VerdictWaiting]))
	active := 0
	for _, r := range s.RGDs {
		if r.State == "Active" && r.Established {
			active++
		}
	}
	parts = append(parts, fmt.Sprintf("%d/%d RGDs active", active, len(s.RGDs)))
	ready := 0
	for _, i := range s.Instances {
		if i.State == "ACTIVE" {
			ready++
		}
	}
	parts = append(parts, fmt.Sprintf("%d/%d instances active", ready, len(s.Instances)))
	return strings.Join(parts, ", ")
}

// Table writes the state as a table: one line per Application.
func (s *State) Table() string {
	var b strings.Builder
	rows := [][]string{{"ENVIRONMENT", "APPLICATION", "SYNC", "HEALTH", "VERDICT", "CONDITION OR ERROR"}}
	for _, a := range s.Apps {
		msg := a.Error
		if len(msg) > 160 {
			msg = msg[:157] + "..."
		}
		if a.Cause != "" {
			msg = "needs " + a.Cause + ", unreachable: " + msg
		}
		if a.Verdict == VerdictKwok {
			msg = "not healthy on kwok: " + strings.Join(a.Kwok, "; ")
		}
		if a.Verdict == VerdictUnreachable && len(a.NotServed) > 0 {
			msg = "not served: " + strings.Join(a.NotServed, "; ") + ": " + msg
		}
		if a.ByHand != "" {
			msg = "synced by hand (" + a.ByHand + ") " + msg
		}
		rows = append(rows, []string{a.Env, a.Namespace + "/" + a.Name, or(a.Sync, "-"), or(a.Health, "-"), a.Verdict, strings.ReplaceAll(msg, "\n", " ")})
	}
	for _, r := range s.RGDs {
		est := "crd not established"
		if r.Established {
			est = "crd " + r.CRD
		}
		rows = append(rows, []string{r.Env, "rgd/" + r.Name, or(r.State, "-"), est, "", r.Error})
	}
	for _, i := range s.Instances {
		rows = append(rows, []string{i.Env, i.Kind + " " + i.Namespace + "/" + i.Name, or(i.State, "-"), "", "", i.Error})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
			} else {
				fmt.Fprintf(&b, "%-*s  ", widths[i], c)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
