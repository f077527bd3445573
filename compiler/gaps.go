package compiler

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/model"
)

// A Gap is a part of the platform that a compilation did not check, and
// how to check it: the CLI says each in a note (not-checked) and names
// them all in the summary of a command that checks, so that a clean run
// means what it says.
type Gap struct {
	Kind GapKind
	// Names are what was not checked, sorted: charts, Applications
	// (environment/name), clients or modules, as Kind says.
	Names []string
	// Notes say it at length, with the names and what to do: one, or
	// one per chart folder for unbuilt charts; none where a problem of
	// the log says it already.
	Notes []string
}

// GapKind is what a Gap leaves unchecked; the words are the JSON
// report's.
type GapKind string

// The kinds of Gap, in the order the summary names them.
const (
	// GapUnlockedCharts: pinned charts without a lock (no lock file, or
	// no entry in it), which are not rendered. Names: the charts (with
	// the version, where the lock has others).
	GapUnlockedCharts GapKind = "unlocked-charts"
	// GapUncachedCharts: locked charts that neither platc's cache nor the
	// vendor folder holds, which are not rendered. Names: the charts.
	GapUncachedCharts GapKind = "uncached-charts"
	// GapValuesOutOfReach: Applications whose chart is rendered without
	// a values file out of reach (not a client's: GapClientValues says
	// those). Names: environment/Application.
	GapValuesOutOfReach GapKind = "values-out-of-reach"
	// GapClientValues: clients whose values repository is neither the
	// platform's nor a checkout given (-client-repo), so that none of
	// their values files is read. Names: the clients.
	GapClientValues GapKind = "client-values"
	// GapUnreadFolders: path modules whose folder is another
	// repository's or a plugin renders it. Names: the modules.
	GapUnreadFolders GapKind = "unread-folders"
	// GapExtraFolders: modules with further sources (extraSources)
	// that are folders of other repositories, which platc does not read
	// (their charts, and this repository's folders, it checks as the
	// module's own). Names: the modules.
	GapExtraFolders GapKind = "extra-folders"
	// GapRemoteBases: path modules whose kustomization reads a remote
	// base or file, which platc does not fetch. Names: the modules.
	GapRemoteBases GapKind = "remote-bases"
	// GapInflatedCharts: path modules whose kustomization inflates Helm
	// charts, which platc does not. Names: the modules.
	GapInflatedCharts GapKind = "inflated-charts"
	// GapUnbuiltCharts: charts of the repository's folders whose
	// dependencies are not at hand (not locked, not fetched, no
	// Chart.lock). Names: the folders.
	GapUnbuiltCharts GapKind = "unbuilt-charts"
)

// What says in a few words what was not checked, for a summary: a count
// of charts or Applications, or up to three names of clients or modules.
func (g Gap) What() string {
	n := len(g.Names)
	switch g.Kind {
	case GapUnlockedCharts:
		return diag.Plural(n, "chart without a lock", "charts without a lock")
	case GapUncachedCharts:
		return diag.Plural(n, "locked chart neither cached nor vendored", "locked charts neither cached nor vendored")
	case GapValuesOutOfReach:
		return "the charts of " + diag.Plural(n, "Application", "Applications") + " with a values file out of reach"
	case GapClientValues:
		return "the values files of " + g.names("client", "clients")
	case GapUnreadFolders:
		return "the unread " + pick(n, "folder", "folders") + " of " + g.names("module", "modules")
	case GapExtraFolders:
		return "the further folders of " + g.names("module", "modules")
	case GapRemoteBases:
		return "the remote bases of " + g.names("module", "modules")
	case GapInflatedCharts:
		return "the Helm charts inflated by the " + pick(n, "folder", "folders") + " of " + g.names("module", "modules")
	case GapUnbuiltCharts:
		return "the " + pick(n, "chart", "charts") + " in " + g.names("folder", "folders") + " without " + pick(n, "its", "their") + " dependencies"
	}
	panic("compiler: a gap of unknown kind " + string(g.Kind))
}

// Fix says how to check what was not: a command to run or a flag to
// pass; "" where platc cannot, offline.
func (g Gap) Fix() string {
	switch g.Kind {
	case GapUnlockedCharts, GapUncachedCharts, GapUnbuiltCharts:
		return "run platc charts pull"
	case GapValuesOutOfReach:
		return "pass -client-repo"
	case GapClientValues:
		if len(g.Names) == 1 {
			return "pass -client-repo " + g.Names[0] + "=DIR"
		}
		return "pass -client-repo CLIENT=DIR for each"
	}
	return ""
}

// names are up to three names, or their number.
func (g Gap) names(one, many string) string {
	if len(g.Names) > 3 {
		return diag.Plural(len(g.Names), one, many)
	}
	return pick(len(g.Names), one, many) + " " + diag.List(g.Names)
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// gaps says what the compilation of spec left unchecked, in the order
// of the kinds: the charts r did not render, the clients' values out of
// reach, the folders platc does not read, and those it builds without
// what they fetch or inflate (which verify reports in log: remote-base
// warnings, not-checked notes).
func gaps(spec *model.Spec, opts Options, r *charts.Renderer, log *diag.Log) []Gap {
	var out []Gap
	add := func(g Gap) {
		if len(g.Names) > 0 {
			out = append(out, g)
		}
	}
	if r != nil {
		unrendered := r.Unrendered()
		if names := unrendered[charts.NoLock]; len(names) > 0 && r.LockBroken {
			add(Gap{Kind: GapUnlockedCharts, Names: names, Notes: []string{fmt.Sprintf("%s not rendered, since %s cannot be read (its error says why): %s",
				diag.Plural(len(names), "chart is", "charts are"), path.Join(opts.SpecDir, charts.LockFile), strings.Join(names, ", "))}})
		} else if len(names) > 0 {
			add(Gap{Kind: GapUnlockedCharts, Names: names, Notes: []string{fmt.Sprintf("%s not rendered, since %s has no %s: %s; run platc charts pull (it uses the network) to lock, fetch and render them",
				diag.Plural(len(names), "chart is", "charts are"), opts.SpecDir, charts.LockFile, strings.Join(names, ", "))}})
		} else {
			// Each pin missing from the lock is a warning (chart-unlocked).
			add(Gap{Kind: GapUnlockedCharts, Names: unrendered[charts.NotLocked]})
		}
		if names := unrendered[charts.Missing]; len(names) > 0 {
			add(Gap{Kind: GapUncachedCharts, Names: names, Notes: []string{fmt.Sprintf("%s not rendered, since neither platc's cache nor %s holds them: %s; run platc charts pull (it uses the network), or platc charts vendor where they are cached",
				diag.Plural(len(names), "locked chart is", "locked charts are"), path.Join(opts.SpecDir, charts.VendorDir), strings.Join(names, ", "))}})
		}
		if dirs, notes := r.UnbuiltFolders(opts.SpecDir); len(dirs) > 0 {
			add(Gap{Kind: GapUnbuiltCharts, Names: dirs, Notes: notes})
		}
		if apps := r.PartialApps(); len(apps) > 0 {
			shown, more := apps, ""
			if len(apps) > 3 {
				shown, more = apps[:3], fmt.Sprintf(" and %d more", len(apps)-3)
			}
			add(Gap{Kind: GapValuesOutOfReach, Names: apps, Notes: []string{fmt.Sprintf("%s rendered without a value file out of reach, so Helm's errors and the schema are not judged there: %s%s; give the client's checkout with -client-repo",
				diag.Plural(len(apps), "Application's chart is", "Applications' charts are"), strings.Join(shown, ", "), more)}})
		}
	}
	add(clientGap(spec, opts))
	add(unreadGap(spec))
	add(extraFoldersGap(spec))
	add(folderGap(GapRemoteBases, diag.RemoteBase, spec, log))
	add(folderGap(GapInflatedCharts, diag.NotChecked, spec, log))
	return out
}

// clientGap names the clients whose values repository is out of reach.
func clientGap(spec *model.Spec, opts Options) Gap {
	var names, repos []string
	for _, cl := range layers.OutOfReach(spec, layers.Options{Repos: opts.ClientRepos}) {
		names = append(names, cl.Name)
		repos = append(repos, fmt.Sprintf("%s (%s)", cl.Name, cl.Values.RepoURL))
	}
	slices.Sort(names)
	slices.Sort(repos)
	g := Gap{Kind: GapClientValues, Names: names}
	if len(names) == 1 {
		g.Notes = []string{fmt.Sprintf("the values repository of client %s is not read: its values files are not checked, and its Applications' charts are rendered without them; pass -client-repo %s=DIR, DIR a checkout of it", repos[0], names[0])}
	} else if len(names) > 1 {
		g.Notes = []string{fmt.Sprintf("the values repositories of %d clients are not read: their values files are not checked, and their Applications' charts are rendered without them: %s; pass -client-repo CLIENT=DIR for each, DIR a checkout of it", len(names), diag.List(repos))}
	}
	return g
}

// unreadGap names the path modules whose folders platc does not read, so
// that their objects are not checked: another repository's, or one a
// config management plugin renders.
func unreadGap(spec *model.Spec) Gap {
	var names, unread []string
	for _, m := range spec.Modules {
		if m.Kind.Info().Syncs != model.SyncsRepoFolder {
			continue
		}
		switch {
		case m.RepoURL != "":
			unread = append(unread, fmt.Sprintf("%s (of %s)", m.Name, m.RepoURL))
		case m.Plugin != nil:
			unread = append(unread, m.Name+" (a plugin renders it)")
		default:
			continue
		}
		names = append(names, m.Name)
	}
	g := Gap{Kind: GapUnreadFolders, Names: names}
	if len(unread) == 1 {
		g.Notes = []string{"the folder of module " + unread[0] + " is not read, so its objects are not checked"}
	} else if len(unread) > 1 {
		g.Notes = []string{fmt.Sprintf("the folders of %d modules are not read, so their objects are not checked: %s", len(unread), diag.List(unread))}
	}
	return g
}

// extraFoldersGap names the modules with further sources that are
// folders of other repositories, which platc does not read: their
// objects are not checked.
func extraFoldersGap(spec *model.Spec) Gap {
	var names, what []string
	for _, m := range spec.Modules {
		if !m.Kind.Takes("extraSources") {
			continue
		}
		var dirs []string
		for _, x := range m.AllExtraSources(spec) {
			if dir := x.Dir + " of " + x.RepoURL; x.Chart == "" && x.RepoURL != "" && !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		if len(dirs) > 0 {
			names = append(names, m.Name)
			what = append(what, fmt.Sprintf("%s (%s)", m.Name, strings.Join(dirs, "; ")))
		}
	}
	g := Gap{Kind: GapExtraFolders, Names: names}
	if len(what) == 1 {
		g.Notes = []string{"the further folders of module " + what[0] + " are not read, so their objects are not checked"}
	} else if len(what) > 1 {
		g.Notes = []string{fmt.Sprintf("the further folders of %d modules are not read, so their objects are not checked: %s", len(what), diag.List(what))}
	}
	return g
}

// folderGap names the modules whose folders verify reported in log with
// id: a remote base, or Helm charts inflated.
func folderGap(kind GapKind, id diag.ID, spec *model.Spec, log *diag.Log) Gap {
	byPath := map[string]string{}
	for _, m := range spec.Modules {
		byPath[m.Path] = m.Name
	}
	var names []string
	for _, p := range log.Problems() {
		if name, ok := byPath[p.Path]; ok && p.ID == id && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return Gap{Kind: kind, Names: names}
}
