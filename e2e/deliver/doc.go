// Package deliver delivers a platform's committed render to a control
// plane of package cluster, and judges what Argo CD and kro make of it.
//
// A Rig holds a work copy of the platform (where platc runs, as a person
// runs it: render, release) and the local Git repositories Argo CD reads in
// place of the platform's and its clients' (Publish copies the work copy
// there with every repository URL rewritten to its file:// stand-in, and
// moves the branches environments follow). The charts the spec vendors and
// locks are served on loopback by platc's test chart servers; with
// Source.Corpus (a folder of real chart archives, ../shared/charts), the
// rig first locks and vendors in its work copy every pin the folder holds.
//
// Rig.Deliver starts a cluster for one environment: Argo CD configured by
// the values platc renders for it, kro, the orchestrator's primitives with
// a stand-in that provisions them, the root Application. Env.Wait watches
// every Application until each is settled: ok (Synced and Healthy),
// unreachable (its chart repository is out of this machine's reach, and
// nothing else is wrong), blocked (it needs the kinds of an unreachable
// one), not healthy on kwok (Synced, and not Healthy only because kwok
// fakes pods: VerdictKwok), unsigned (its project requires signed
// commits), or denied by a sync window. It syncs by hand, once per revision, what a person would
// sync (a manual sync policy, an automated sync a window holds). Where at
// its timeout all that waits waits only on Argo CD's cluster cache (what
// it syncs is in the cluster and the cache has not seen it: a CRD, which
// Argo CD does not track, applied while the cache's CRD watch is behind),
// it waits on until Argo CD has corrected that by itself, and says so
// (cachelag.go). The
// lifecycle steps (Prune, SelfHeal, Release, ClientChange) change the
// platform or the cluster and wait for Argo CD to converge. A Report is the
// table, the e2e: line and the JSON of a run.
//
// Whatever it stands in for (charts, the orchestrator, service accounts,
// clusters by name, a person who syncs) it says so in its report; what
// platc renders it delivers unchanged but for repository URLs.
package deliver
