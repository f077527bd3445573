package render

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// DirectApplyDir returns the folder, relative to the output root, of an
// environment's direct-apply plan.
func DirectApplyDir(env string) string { return path.Join(DirectApplyRoot, env) }

// directApply renders the plan of ADR 0001's workstation path
// (QUICKSTART_DIRECT_APPLY=1 make quickstart): the same charts at the same
// versions with the same values, and the same repository folders, in the
// same order as the Applications, installed by helm and kubectl instead of
// Argo CD. It is made from the same model as the Applications, so the two
// cannot drift apart: each chart's values file holds exactly the
// Application's valuesObject.
func (r *renderer) directApply(env *model.Environment, children map[string][]*model.Module) []File {
	dir := DirectApplyDir(env.Name)
	p := &r.spec.Platform
	var b strings.Builder
	var files []File
	b.WriteString("# Direct apply of environment " + env.Name + ": what its Applications deploy, in their order,\n")
	b.WriteString("# with helm and kubectl instead of Argo CD (no reconciliation, no prune, no self-heal).\n")
	b.WriteString("# Run from the repository root: bash " + path.Join(p.OutDir, dir, "plan.sh") + "\n")
	b.WriteString("set -euo pipefail\n")
	b.WriteString("values=" + path.Join(p.OutDir, dir, "values") + "\n")
	var walk func(parent string)
	walk = func(parent string) {
		for _, m := range r.ordered(children[parent]) {
			fmt.Fprintf(&b, "\n# %s (wave %d)\n", m.Name, r.info.Waves[m.Name])
			switch m.Kind {
			case model.KindGroup:
				walk(m.Name)
			case model.KindChart:
				c := r.spec.Chart(m.Chart)
				args := []string{"helm", "upgrade", "--install", m.Name}
				if c.OCI() {
					args = append(args, argocd.SourceRepo(c))
				} else {
					args = append(args, c.Chart, "--repo", c.RepoURL)
				}
				args = append(args, "--version", c.Version, "--namespace", m.Namespace)
				if m.CreateNamespace {
					args = append(args, "--create-namespace")
				}
				if values := r.values(env, m); len(values) > 0 {
					files = append(files, File{Path: path.Join(dir, "values", m.Name+".yaml"), Objects: []*object.Map{valuesDocument(values)}, Values: true})
					args = append(args, "--values", "\"$values/"+m.Name+".yaml\"")
				}
				args = append(args, "--wait")
				b.WriteString(strings.Join(args, " ") + "\n")
			case model.KindPath:
				if m.CreateNamespace {
					fmt.Fprintf(&b, "kubectl create namespace %s --dry-run=client -o yaml | kubectl apply -f -\n", m.Namespace)
				}
				flag := "-f"
				if r.info.Kustomizations[m.Name] {
					flag = "-k"
				}
				fmt.Fprintf(&b, "kubectl apply --server-side --namespace %s %s %s\n", m.Namespace, flag, m.Dir)
			case model.KindStacks, model.KindDefinitions:
				b.WriteString("# skipped: kro turns stacks into Argo CD Applications, which need Argo CD\n")
			}
		}
	}
	walk("")
	return append(files, File{Path: path.Join(dir, "plan.sh"), Text: b.String()})
}

// valuesDocument makes a values tree a document, keys sorted.
func valuesDocument(values map[string]any) *object.Map {
	doc := object.NewMap()
	for _, k := range slices.Sorted(maps.Keys(values)) {
		doc.Set(k, values[k])
	}
	return doc
}
