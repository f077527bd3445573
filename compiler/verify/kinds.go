package verify

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// The kinds an object may have: Kubernetes' own at the environment's
// version, and those the platform defines (CRDs of charts, folders and
// platc, stack instance kinds, API versions the environment declares).
// An unknown kind in a built-in group, or one not served at that version,
// is an error; so is an unknown kind in a group the platform defines,
// except in a shared group (sharedGroups), where only a near-miss spelling
// is a warning. A group nothing defines is left to the cluster: an
// operator may bring it.

// builtinKind is a built-in kind and the Kubernetes 1.x minors serving it,
// from introduced until removed (0: since before 1.0, or still served).
type builtinKind struct {
	introduced, removed int
	replacement         schema.GroupVersionKind
}

// The methods k8s.io/api generates for a type that is not GA
// (zz_generated.prerelease-lifecycle.go); a replacement only where there
// is one.
type (
	introduced  interface{ APILifecycleIntroduced() (major, minor int) }
	removed     interface{ APILifecycleRemoved() (major, minor int) }
	replacement interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
)

// builtinKinds are Kubernetes' own kinds by group/version (client-go's
// scheme at the linked version, plus the API server's two groups it leaves
// out), with the versions serving each.
var builtinKinds = sync.OnceValue(func() map[string]map[string]builtinKind {
	out := map[string]map[string]builtinKind{
		"apiextensions.k8s.io/v1":        {"CustomResourceDefinition": {}},
		"apiextensions.k8s.io/v1beta1":   {"CustomResourceDefinition": {introduced: 16, removed: 22, replacement: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}}},
		"apiregistration.k8s.io/v1":      {"APIService": {}},
		"apiregistration.k8s.io/v1beta1": {"APIService": {introduced: 7, removed: 22, replacement: schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}}},
	}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if !strings.HasPrefix(t.PkgPath(), "k8s.io/api/") || gvk.Version == "__internal" {
			continue // meta's options and events, registered in every group
		}
		var k builtinKind
		obj := reflect.New(t).Interface()
		if l, ok := obj.(introduced); ok {
			_, k.introduced = l.APILifecycleIntroduced()
		}
		if l, ok := obj.(removed); ok {
			_, k.removed = l.APILifecycleRemoved()
		}
		if l, ok := obj.(replacement); ok {
			k.replacement = l.APILifecycleReplacement()
		}
		gv := gvk.GroupVersion().String()
		if out[gv] == nil {
			out[gv] = map[string]builtinKind{}
		}
		out[gv][gvk.Kind] = k
	}
	return out
})

// builtinGroups are the API groups of Kubernetes' own kinds, each with
// its versions: a CRD cannot add a kind to them.
var builtinGroups = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for gv := range builtinKinds() {
		g := group(gv)
		out[g] = append(out[g], strings.TrimPrefix(gv, g+"/"))
	}
	for _, vs := range out {
		slices.Sort(vs)
	}
	return out
})

// minorOf is the minor version of a Kubernetes version ("1.34.0",
// "v1.34"), or -1.
func minorOf(version string) int {
	parts := strings.Split(strings.TrimPrefix(version, "v"), ".")
	if len(parts) < 2 || parts[0] != "1" {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err != nil {
		return -1
	}
	return n
}

// envKinds are the kinds the platform defines in one environment: group
// -> kinds (nil where only the group is known, as for a CRD known by name).
type envKinds struct {
	env    *model.Environment
	groups map[string]map[string]bool
	served map[string]bool // group/version the cluster serves, as the environment says
	// verdicts are kindProblem's, by apiVersion and kind (verdict).
	verdicts map[[2]string]kindVerdict
}

func newEnvKinds(env *model.Environment) *envKinds {
	k := &envKinds{env: env, groups: map[string]map[string]bool{}, served: map[string]bool{}, verdicts: map[[2]string]kindVerdict{}}
	for _, gv := range env.Kubernetes.APIVersions {
		k.served[gv] = true
	}
	return k
}

// define adds the kind of group; kind "" says only that the group has
// kinds platc does not see.
func (k *envKinds) define(group, kind string) {
	kinds := k.groups[group]
	if kinds == nil {
		kinds = map[string]bool{}
		k.groups[group] = kinds
	}
	kinds[cmp.Or(kind, "*")] = true
}

// verdict is kindProblem's, memoized per apiVersion and kind.
func (k *envKinds) verdict(apiVersion, kind string) kindVerdict {
	key := [2]string{apiVersion, kind}
	v, ok := k.verdicts[key]
	if !ok {
		v = kindProblem(k.env, k, apiVersion, kind)
		k.verdicts[key] = v
	}
	return v
}

// platformKinds are env's kinds that do not depend on its charts
// (platformGroups, and the API versions env declares). The result is a
// fresh copy, for the charts' CRDs to be added to.
func (v *verifier) platformKinds(env *model.Environment) *envKinds {
	k := newEnvKinds(env)
	v.groupsOnce.Do(func() { v.groups = v.platformGroups() })
	for g, kinds := range v.groups {
		k.groups[g] = maps.Clone(kinds)
	}
	return k
}

// envKindsOf are env's kinds for the folders' objects: with its charts'
// CRDs where rendered (renderedKindsExist keeps them), else platformKinds.
func (v *verifier) envKindsOf(env *model.Environment) *envKinds {
	v.envKindsMu.Lock()
	k := v.envKinds[env]
	v.envKindsMu.Unlock()
	if k != nil {
		return k
	}
	return v.platformKinds(env)
}

// platformGroups are the kinds the spec defines everywhere, by group:
// platc's CRDs, stack instance kinds, and the groups of folder CRDs ("*":
// kinds platc does not see).
func (v *verifier) platformGroups() map[string]map[string]bool {
	k := &envKinds{groups: map[string]map[string]bool{}}
	if val := v.validator(); val != nil {
		for _, gvk := range val.Kinds() { // apiVersion/kind
			k.define(group(path.Dir(gvk)), path.Base(gvk))
		}
	}
	for _, s := range v.in.Spec.Stacks {
		k.define(s.Group, s.Kind)
	}
	// A folder's CRD is known by its name, <plural>.<group>.
	for _, m := range v.in.Spec.Modules {
		for _, dir := range m.RepoFolders(v.in.Spec) {
			for _, o := range v.in.Folders.build(dir).Objects {
				if _, g, ok := strings.Cut(o.Name, "."); ok && o.Kind == "CustomResourceDefinition" {
					k.define(g, "")
				}
			}
		}
	}
	return k.groups
}

// sharedGroups are embedded CRD groups where other projects define kinds
// too: an unknown kind there is left to the cluster unless it is spelled
// like a known one.
var sharedGroups = map[string]string{
	"argoproj.io": "Argo CD, Argo Workflows, Argo Rollouts and Argo Events",
	"kro.run":     "kro and every ResourceGraphDefinition that names no group",
}

// kindVerdict is what kindProblem says of a kind: nothing (msg ""), an
// unknown-kind error, or a shared-group-kind warning.
type kindVerdict struct {
	id  diag.ID
	msg string
}

// can says whether an object of the kind can be synced: it cannot, or,
// for a warning, may not.
func (k kindVerdict) can() string {
	if k.id == diag.SharedGroupKind {
		return "may not"
	}
	return "cannot"
}

// kindProblem says what is wrong with the kind of an object of
// apiVersion in env.
func kindProblem(env *model.Environment, k *envKinds, apiVersion, kind string) kindVerdict {
	if msg := builtinKindProblem(env, apiVersion, kind); msg != "" {
		return kindVerdict{diag.UnknownKind, msg}
	}
	g := group(apiVersion)
	if _, ok := builtinGroups()[g]; ok || k.served[apiVersion] || k.served[apiVersion+"/"+kind] {
		return kindVerdict{}
	}
	kinds, ok := k.groups[g]
	if !ok || kinds["*"] || kinds[kind] {
		return kindVerdict{} // the cluster's, or an operator's: not known offline
	}
	known := slices.Sorted(maps.Keys(kinds))
	if who, ok := sharedGroups[g]; ok {
		s := diag.Suggest(kind, known)
		if s == "" {
			return kindVerdict{} // another project's, most likely
		}
		return kindVerdict{diag.SharedGroupKind, fmt.Sprintf("no CRD of the platform defines kind %s in group %s, which %s share, and it is spelled like %s: fix the kind, or if another project's CRD defines it, add %q to environments.%s.kubernetes.apiVersions", kind, g, who, s, apiVersion+"/"+kind, env.Name)}
	}
	return kindVerdict{diag.UnknownKind, fmt.Sprintf("no CRD of the platform defines kind %s in group %s, which defines %s%s; if the cluster has it otherwise, add %q to environments.%s.kubernetes.apiVersions", kind, g, diag.List(known), diag.DidYouMean(kind, known), apiVersion, env.Name)}
}

// builtinKindProblem says what is wrong with a kind of Kubernetes' own
// groups at env's version, or "" (also for a kind of another group).
func builtinKindProblem(env *model.Environment, apiVersion, kind string) string {
	g := group(apiVersion)
	versions, ok := builtinGroups()[g]
	if !ok {
		return ""
	}
	kinds, ok := builtinKinds()[apiVersion]
	if !ok {
		return fmt.Sprintf("Kubernetes serves no API version %s: use %s", apiVersion, diag.List(servedVersions(g, versions, minorOf(env.Kubernetes.Version))))
	}
	b, ok := kinds[kind]
	if !ok {
		return fmt.Sprintf("Kubernetes defines no kind %s in %s%s", kind, apiVersion, diag.DidYouMean(kind, slices.Sorted(maps.Keys(kinds))))
	}
	minor := minorOf(env.Kubernetes.Version)
	switch {
	case minor < 0:
	case b.removed > 0 && minor >= b.removed:
		use := ""
		if r := b.replacement; r.Kind != "" {
			use = fmt.Sprintf(": use %s %s", r.GroupVersion().String(), r.Kind)
		}
		return fmt.Sprintf("Kubernetes %s no longer serves %s %s (removed in 1.%d)%s", env.Kubernetes.Version, apiVersion, kind, b.removed, use)
	case b.introduced > 0 && minor < b.introduced:
		return fmt.Sprintf("Kubernetes %s does not serve %s %s (it does from 1.%d): raise environments.%s.kubernetes.version, or use another version of the kind", env.Kubernetes.Version, apiVersion, kind, b.introduced, env.Name)
	}
	return ""
}

// servedVersions are group g's quoted API versions serving a kind at the
// Kubernetes minor (all where unknown).
func servedVersions(g string, versions []string, minor int) []string {
	var out []string
	for _, v := range versions {
		gv := v
		if g != "" {
			gv = g + "/" + v
		}
		for _, k := range builtinKinds()[gv] {
			if minor < 0 || (k.removed == 0 || minor < k.removed) && minor >= k.introduced {
				out = append(out, strconv.Quote(gv))
				break
			}
		}
	}
	return out
}
