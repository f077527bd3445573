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
			switch m.Kind {
			case model.KindGroup:
				walk(m.Name)
			case model.KindChart:
				c := r.spec.Chart(m.Chart)
				helm := shellCommand("helm", "upgrade", "--install", m.Name)
				if c.OCI() {
					helm.arg(argocd.SourceRepo(c))
				} else {
					helm.arg(c.Chart, "--repo", c.RepoURL)
				}
				helm.arg("--version", c.Version, "--namespace", m.Namespace)
				if m.CreateNamespace {
					helm.arg("--create-namespace")
				}
				if values := r.values(env, m); len(values) > 0 {
					files = append(files, File{Path: path.Join(dir, "values", m.Name+".yaml"), Objects: []*object.Map{valuesDocument(values)}, Values: true})
					helm.arg("--values").raw(`"$values"/` + ShellQuote(m.Name+".yaml"))
				}
				helm.arg("--wait")
				b.WriteString(helm.String() + "\n")
			case model.KindPath:
				if r.info.Charts[m.Name] {
					// A chart of this repository, with its defaults,
					// as Argo CD renders the folder.
					helm := shellCommand("helm", "upgrade", "--install", m.Name, m.Dir, "--namespace", m.Namespace)
					if m.CreateNamespace {
						helm.arg("--create-namespace")
					}
					b.WriteString(helm.arg("--wait").String() + "\n")
					continue
				}
				if m.CreateNamespace {
					create := shellCommand("kubectl", "create", "namespace", m.Namespace, "--dry-run=client", "-o", "yaml")
					apply := shellCommand("kubectl", "apply", "-f", "-")
					b.WriteString(create.String() + " | " + apply.String() + "\n")
				}
				flag := "-f"
				if r.info.Kustomizations[m.Name] {
					flag = "-k"
				}
				b.WriteString(shellCommand("kubectl", "apply", "--server-side", "--namespace", m.Namespace, flag, m.Dir).String() + "\n")
			case model.KindStacks, model.KindDefinitions:
				b.WriteString("# skipped: kro turns stacks into Argo CD Applications, which need Argo CD\n")
			default:
				panic(fmt.Sprintf("render: direct apply of module kind %v is not defined", m.Kind))
			}
		}
	}
	walk("")
	return append(files, File{Path: path.Join(dir, "plan.sh"), Text: b.String()})
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
