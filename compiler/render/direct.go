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
	b.WriteString("# Direct apply of environment " + comment(env.Name) + ": what its Applications deploy, in their order,\n")
	b.WriteString("# with helm and kubectl instead of Argo CD (no reconciliation, no prune, no self-heal).\n")
	b.WriteString("# Run from the repository root: bash " + comment(ShellQuote(path.Join(p.OutDir, dir, "plan.sh"))) + "\n")
	b.WriteString("set -euo pipefail\n")
	b.WriteString("values=" + ShellQuote(path.Join(p.OutDir, dir, "values")) + "\n")
	var walk func(parent string)
	walk = func(parent string) {
		for _, m := range r.ordered(children[parent]) {
			fmt.Fprintf(&b, "\n# %s (wave %d)\n", comment(m.Name), r.info.Waves[m.Name])
			switch m.Kind.Info().DirectApply {
			case model.DirectMembers:
				walk(m.Name)
			case model.DirectHelm:
				c := r.spec.ChartIn(env, m.Chart)
				b.WriteString(r.helmUpgrade(env, m, dir, &files, append(chartRef(c), "--version", c.Version)...) + "\n")
				if m.Manifests != "" {
					b.WriteString(r.applyFolder(env, m, m.Manifests).String() + "\n")
				}
				r.directExtraSources(&b, env, m, dir, &files)
			case model.DirectKubectl:
				if r.info.Charts[m.Name] {
					// A chart of this repository, with its defaults,
					// as Argo CD renders the folder.
					b.WriteString(r.helmUpgrade(env, m, dir, &files, m.DirIn(env)) + "\n")
					r.directExtraSources(&b, env, m, dir, &files)
					continue
				}
				if m.CreateNamespaceIn(env) {
					create := shellCommand("kubectl", "create", "namespace", m.NamespaceIn(env), "--dry-run=client", "-o", "yaml")
					apply := shellCommand("kubectl", "apply", "-f", "-")
					b.WriteString(create.String() + " | " + apply.String() + "\n")
				}
				apply := shellCommand("kubectl", "apply", "--server-side", "--namespace", m.NamespaceIn(env))
				switch {
				case m.Kustomize != nil:
					// Argo CD edits the kustomization; the plan builds
					// one over it with the same options.
					k := path.Join(dir, "kustomize", m.Name)
					files = append(files, File{Path: path.Join(k, "kustomization.yaml"), Objects: []*object.Map{kustomizationOver(path.Join(p.OutDir, k), m, m.DirIn(env))}, Values: true})
					apply.arg("-k", path.Join(p.OutDir, k))
				case r.info.KustomizationDirs[m.DirIn(env)]:
					apply.arg("-k", m.DirIn(env))
				case m.Directory != nil:
					// The files Argo CD reads with the directory's
					// options, one by one.
					for _, f := range r.info.DirectoryFiles[m.Name] {
						apply.arg("-f", f)
					}
				default:
					apply.arg("-f", m.DirIn(env))
				}
				b.WriteString(apply.String() + "\n")
				r.directExtraSources(&b, env, m, dir, &files)
			case model.DirectSkipped:
				b.WriteString("# skipped: kro turns stacks into Argo CD Applications, which need Argo CD\n")
			default:
				panic(fmt.Sprintf("render: direct apply of module kind %v is not defined", m.Kind))
			}
		}
	}
	walk("")
	return append(files, File{Path: path.Join(dir, "plan.sh"), Text: b.String()})
}

// applyFolder is the kubectl apply of a folder of this repository, a
// kustomization or plain manifests.
func (r *renderer) applyFolder(env *model.Environment, m *model.Module, dir string) *shellWords {
	flag := "-f"
	if r.info.KustomizationDirs[dir] {
		flag = "-k"
	}
	return shellCommand("kubectl", "apply", "--server-side", "--namespace", m.NamespaceIn(env), flag, dir)
}

// directExtraSources writes the plan's lines for m's further sources:
// each chart rendered as Argo CD renders it (helm template, under the
// module's release name unless the source names its own) and applied,
// each folder of this repository applied; another repository's folder
// is not fetched.
func (r *renderer) directExtraSources(b *strings.Builder, env *model.Environment, m *model.Module, dir string, files *[]File) {
	for i, x := range m.ExtraSourcesIn(env) {
		switch {
		case x.Chart != "":
			c := r.spec.ChartIn(env, x.Chart)
			helm := shellCommand("helm", "template", releaseName(x.Helm, m)).arg(chartRef(c)...).arg("--version", c.Version, "--namespace", m.NamespaceIn(env))
			if x.Helm == nil || !x.Helm.SkipCrds {
				helm.arg("--include-crds")
			}
			if len(x.Values) > 0 {
				name := fmt.Sprintf("%s.source-%d.yaml", m.Name, i+1)
				*files = append(*files, File{Path: path.Join(dir, "values", name), Objects: []*object.Map{valuesDocument(x.Values)}, Values: true})
				helm.arg("--values").raw(`"$values"/` + ShellQuote(name))
			}
			if x.Helm != nil {
				helmParameters(helm, x.Helm.Parameters)
			}
			apply := shellCommand("kubectl", "apply", "--server-side", "--namespace", m.NamespaceIn(env), "-f", "-")
			b.WriteString(helm.String() + " | " + apply.String() + "\n")
		case x.RepoURL == "" && x.Directory != nil:
			// The files Argo CD reads with the directory's options.
			apply := shellCommand("kubectl", "apply", "--server-side", "--namespace", m.NamespaceIn(env))
			for _, f := range r.info.SourceFiles[x] {
				apply.arg("-f", f)
			}
			b.WriteString(apply.String() + "\n")
		case x.RepoURL == "":
			b.WriteString(r.applyFolder(env, m, x.Dir).String() + "\n")
		default:
			b.WriteString("# skipped: folder " + comment(x.Dir) + " of " + comment(x.RepoURL) + ", another repository, which the plan does not fetch\n")
		}
	}
}

// shellWords is one command line of the plan. Every argument is quoted for
// the shell (arg), so a spec string is always one word and never code;
// raw adds platc's own shell text, which never holds a spec string unquoted.
type shellWords struct{ words []string }

func shellCommand(args ...string) *shellWords { return new(shellWords).arg(args...) }

func (w *shellWords) arg(args ...string) *shellWords {
	for _, a := range args {
		w.words = append(w.words, ShellQuote(a))
	}
	return w
}

func (w *shellWords) raw(s string) *shellWords {
	w.words = append(w.words, s)
	return w
}

func (w *shellWords) String() string { return strings.Join(w.words, " ") }

// ShellQuote quotes s as one word for a POSIX shell (sh, bash): as it is
// when it holds only characters no shell treats specially, otherwise in
// single quotes, inside which nothing is special but the quote itself
// (written as a closing quote, an escaped quote and an opening one). The
// plan stays readable for the names and paths of a typical spec, and a
// hostile one ($(...), `...`, ;, a space, a newline) stays one argument.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, shellSpecial) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSpecial reports whether a shell may read r as anything but itself
// in an unquoted word. '=' and '@' are plain outside the first word of a
// command and outside patterns; '~' is special only at a word's start,
// and is quoted everywhere to keep the rule simple.
func shellSpecial(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_./:=@%+,", r)
}

// comment makes s safe in a shell comment: a line break would end the
// comment and start a command.
func comment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// valuesDocument makes a values tree a document, keys sorted.
func valuesDocument(values map[string]any) *object.Map {
	doc := object.NewMap()
	for _, k := range slices.Sorted(maps.Keys(values)) {
		doc.Set(k, values[k])
	}
	return doc
}

// releaseName is the Helm release of a chart of module m, of helm options
// h (the module's, or a further source's): their releaseName, or, as Argo
// CD names it, the Application's name.
func releaseName(h *model.Helm, m *model.Module) string {
	if h != nil && h.ReleaseName != "" {
		return h.ReleaseName
	}
	return m.Name
}

// chartRef is how helm names chart c: its OCI reference, or its name in
// its repository.
func chartRef(c *model.Chart) []string {
	if c.OCI() {
		return []string{c.OCIRef()}
	}
	return []string{c.Chart, "--repo", c.RepoURL}
}

// helmUpgrade is the helm upgrade --install of module m's chart (chart:
// its reference, then its version where it has one), with the module's
// helm options, the values files of this repository (read from the
// repository root, where the plan runs), its values (a values file of
// the plan, in folder dir, added to files) and its parameters, in the
// order in which Argo CD gives them to Helm.
func (r *renderer) helmUpgrade(env *model.Environment, m *model.Module, dir string, files *[]File, chart ...string) string {
	h := m.HelmIn(env)
	helm := shellCommand("helm", "upgrade", "--install", releaseName(h, m)).arg(chart...).arg("--namespace", m.NamespaceIn(env))
	if m.CreateNamespaceIn(env) {
		helm.arg("--create-namespace")
	}
	if h == nil {
		h = &model.Helm{}
	}
	if h.SkipCrds {
		helm.arg("--skip-crds")
	}
	if h.PassCredentials {
		helm.arg("--pass-credentials")
	}
	for _, f := range h.ValueFiles {
		if h.IgnoreMissingValueFiles && ShellQuote(f) == f {
			// Passed where it exists, as Argo CD skips a missing one.
			helm.raw("$(test -f " + f + " && echo --values " + f + ")")
			continue
		}
		helm.arg("--values", f)
	}
	if values := r.values(env, m); len(values) > 0 {
		*files = append(*files, File{Path: path.Join(dir, "values", m.Name+".yaml"), Objects: []*object.Map{valuesDocument(values)}, Values: true})
		helm.arg("--values").raw(`"$values"/` + ShellQuote(m.Name+".yaml"))
	}
	helmParameters(helm, h.Parameters)
	return helm.arg("--wait").String()
}

// helmParameters are a chart module's parameters, as Argo CD passes them
// to helm: --set, or --set-string with forceString, the value expanded
// (check allows only "$$" in it) and its commas escaped.
func helmParameters(helm *shellWords, params []*model.HelmParameter) {
	for _, p := range params {
		flag := "--set"
		if p.ForceString {
			flag = "--set-string"
		}
		v, _ := argocd.Envsubst(p.Value, nil)
		helm.arg(flag, p.Name+"="+argocd.HelmSetValue(v))
	}
}

// kustomizationOver is a kustomization, in the folder at, of a path
// module's kustomization with its kustomize options, as Argo CD applies
// them (kustomize edit set nameprefix, namesuffix, image; add label,
// annotation; its patches).
func kustomizationOver(at string, m *model.Module, dir string) *object.Map {
	rel := strings.Repeat("../", strings.Count(at, "/")+1) + dir
	out := object.NewMap().
		Set("apiVersion", "kustomize.config.k8s.io/v1beta1").
		Set("kind", "Kustomization").
		Set("resources", []string{rel})
	// The Application's options, in the same order, but images, which a
	// kustomization writes as fields.
	kustomizeOptions(m.Kustomize).Each(func(key string, v any) {
		if key == "images" {
			v = listOf(m.Kustomize.Images, func(s string) any {
				img := argocd.ParseImage(s)
				im := object.NewMap().Set("name", img.Name)
				setNonZero(im, "newName", img.NewName)
				setNonZero(im, "newTag", img.NewTag)
				setNonZero(im, "digest", img.Digest)
				return im
			})
		}
		out.Set(key, v)
	})
	return out
}
