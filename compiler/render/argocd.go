package render

import (
	"cmp"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/rgd"
)

// instancesProject is the AppProject platc renders for the Applications kro
// creates from the instances module m delivers in env, where they would
// otherwise use Argo CD's default project (argocd.InstancesProject), or nil.
// It has the default project's breadth where platc cannot know better (the
// cluster-scoped kinds the charts create), and names what it knows: the
// charts' and the clients' repositories, the namespaces the Applications
// deploy to (each instance's, expressions other than its name and namespace
// read as "*"), and the namespace the Applications live in.
func (r *renderer) instancesProject(env *model.Environment, m *model.Module) *object.Map {
	if m.Kind.Info().Syncs != model.SyncsInstances {
		return nil
	}
	var repos, namespaces []string
	for _, inst := range r.instances(env, m) {
		st := inst.Stack.Model
		if _, generated := argocd.InstancesProject(env, inst.Client.Stack(st.Name), m.Name); !generated {
			continue
		}
		repos = append(repos, inst.Client.Values.RepoURL)
		for _, sm := range st.Modules {
			if c := r.spec.Chart(sm.Chart); c != nil {
				repos = append(repos, argocd.SourceRepo(c))
			}
			// The instance's own name and namespace are known; any
			// other expression may be any string.
			ns := strings.ReplaceAll(cmp.Or(sm.Namespace, st.Namespace), "${schema.metadata.name}", inst.Name())
			ns = strings.ReplaceAll(ns, "${schema.metadata.namespace}", inst.Namespace)
			namespaces = append(namespaces, templateGlob(ns))
		}
	}
	if len(repos) == 0 {
		return nil
	}
	slices.Sort(repos)
	slices.Sort(namespaces)
	var dests []any
	for _, ns := range slices.Compact(namespaces) {
		dests = append(dests, object.NewMap().Set("server", argocd.InClusterServer).Set("namespace", ns))
	}
	name, _ := argocd.InstancesProject(env, nil, m.Name)
	spec := object.NewMap().
		Set("description", "The Applications kro creates for the stack instances of module "+m.Name+" (Argo CD's default project holds none outside its namespace).").
		Set("sourceRepos", slices.Compact(repos)).
		Set("destinations", dests).
		// platc does not render the charts, so it cannot name the
		// cluster-scoped kinds they create: every one, as in Argo CD's
		// default project.
		Set("clusterResourceWhitelist", []any{object.NewMap().Set("group", "*").Set("kind", "*")}).
		Set("sourceNamespaces", []string{m.Namespace})
	return r.appProject(name, spec, nil, nil)
}

// instances are the instances module m delivers in env.
func (r *renderer) instances(env *model.Environment, m *model.Module) []*rgd.Instance {
	var out []*rgd.Instance
	for _, inst := range r.stacks.Instances {
		if inst.Env == env && r.info.Instances[inst.Stack.Model.Name] == m {
			out = append(out, inst)
		}
	}
	return out
}

// install is what env's Argo CD installation needs: the namespaces of the
// Applications kro creates (application.namespaces), and the health check
// of Applications where the platform asks for it.
func (r *renderer) install(env *model.Environment, children map[string][]*model.Module) argocd.Install {
	in := argocd.Install{ApplicationHealth: r.spec.Platform.ApplicationHealth, KustomizeBuildOptions: r.spec.Platform.KustomizeBuildOptions}
	for _, p := range env.Projects {
		in.Impersonation = in.Impersonation || len(p.DestinationServiceAccounts) > 0
	}
	for _, ms := range children {
		for _, m := range ms {
			if m.Kind.Info().Syncs == model.SyncsInstances && m.Namespace != r.spec.Platform.ArgoCDNamespace && len(r.instances(env, m)) > 0 {
				in.ApplicationNamespaces = append(in.ApplicationNamespaces, m.Namespace)
			}
		}
	}
	return in
}

// templateGlob reads a kro template as an Argo CD glob: each ${...} any
// string.
func templateGlob(s string) string {
	var b strings.Builder
	for {
		start := strings.Index(s, "${")
		if start < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:start])
		depth, end := 0, len(s)
		for i := start + 1; i < len(s); i++ {
			if s[i] == '{' {
				depth++
			} else if s[i] == '}' {
				if depth--; depth == 0 {
					end = i + 1
					break
				}
			}
		}
		if !strings.HasSuffix(b.String(), "*") {
			b.WriteString("*")
		}
		s = s[end:]
	}
}
