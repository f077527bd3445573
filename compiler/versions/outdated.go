package versions

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"
	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// Index is what outdated reads of a classic Helm repository's
// index.yaml: the versions of each chart, and when the index was
// generated.
type Index struct {
	Generated string
	Versions  map[string][]string // by chart name, as listed
}

// ParseIndex reads a repository's index.yaml (Helm's repo.IndexFile:
// apiVersion, entries of chart versions, generated).
func ParseIndex(data []byte) (*Index, error) {
	var raw struct {
		APIVersion string `yaml:"apiVersion"`
		Generated  string `yaml:"generated"`
		Entries    map[string][]struct {
			Version string `yaml:"version"`
		} `yaml:"entries"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a chart repository index: %v", err)
	}
	if raw.APIVersion == "" && raw.Entries == nil {
		return nil, fmt.Errorf("not a chart repository index: no apiVersion and no entries")
	}
	ix := &Index{Generated: raw.Generated, Versions: map[string][]string{}}
	for name, entries := range raw.Entries {
		for _, e := range entries {
			ix.Versions[name] = append(ix.Versions[name], e.Version)
		}
	}
	return ix, nil
}

// Update is what a repository offers beyond one version: every newer
// release, and the newest patch (same major and minor), minor (same
// major) and release. Pre-releases count only for a version that is one.
type Update struct {
	Newer  []string `json:"newer"` // oldest first
	Patch  string   `json:"patch,omitempty"`
	Minor  string   `json:"minor,omitempty"`
	Latest string   `json:"latest,omitempty"`
}

// Updates is what available offers beyond current. Versions that are not
// semantic versions are ignored, as Helm ignores them.
func Updates(current string, available []string) Update {
	cur := canonical(current)
	u := Update{Newer: []string{}}
	if cur == "" {
		return u
	}
	pre := semver.Prerelease(cur) != ""
	seen := map[string]bool{}
	for _, v := range available {
		c := canonical(v)
		if c == "" || seen[c] || semver.Compare(c, cur) <= 0 || (semver.Prerelease(c) != "" && !pre) {
			continue
		}
		seen[c] = true
		u.Newer = append(u.Newer, v)
	}
	slices.SortFunc(u.Newer, func(a, b string) int { return semver.Compare(canonical(a), canonical(b)) })
	for _, v := range u.Newer {
		c := canonical(v)
		if semver.MajorMinor(c) == semver.MajorMinor(cur) {
			u.Patch = v
		}
		if semver.Major(c) == semver.Major(cur) {
			u.Minor = v
		}
		u.Latest = v
	}
	return u
}

// canonical is a chart version as x/mod/semver reads it (a leading v,
// which Helm's versions may lack), or "".
func canonical(v string) string {
	c := "v" + strings.TrimPrefix(v, "v")
	if !semver.IsValid(c) {
		return ""
	}
	return c
}

// Source is where the versions of a chart were read.
type Source struct {
	URL string `json:"url"` // the index, or the registry's tag list
	// Generated is when the index says it was generated; Read, when
	// platc read it (RFC 3339, UTC).
	Generated string `json:"generated,omitempty"`
	Read      string `json:"read"`
	// Cached says it was read from platc's copy, not online; Unreachable
	// says why, when platc tried online first.
	Cached      bool   `json:"cached,omitempty"`
	Unreachable string `json:"unreachable,omitempty"`
}

// String says where the versions were read and the index's date (or,
// without one, when it was read).
func (s *Source) String() string {
	var notes []string
	if s.Cached {
		notes = append(notes, "platc's copy")
		if s.Generated == "" {
			notes = append(notes, "read "+s.Read)
		}
	}
	if s.Generated != "" {
		notes = append(notes, "generated "+s.Generated)
	}
	if s.Unreachable != "" {
		notes = append(notes, "online: "+s.Unreachable)
	}
	if len(notes) == 0 {
		return s.URL
	}
	return s.URL + " (" + strings.Join(notes, "; ") + ")"
}

// Outdated is one chart at one version, in the environments that run it,
// and what its repository offers beyond.
type Outdated struct {
	Name         string   `json:"name"` // charts.<name>
	Chart        string   `json:"chart"`
	RepoURL      string   `json:"repoURL"`
	Version      string   `json:"version"`
	Platform     bool     `json:"platform,omitempty"` // the platform's pin names it
	Environments []string `json:"environments"`
	Update
	Source *Source `json:"source,omitempty"`
	// Problem says why the repository's versions are not known.
	Problem string `json:"problem,omitempty"`
	// Pos and Path are where the version is written: the platform's
	// pin, or the first environment's own.
	Pos      diag.Pos `json:"-"`
	Path     string   `json:"path"`
	Position string   `json:"position"`
}

// Lookup returns the versions a repository offers of a chart, and where
// they were read; a failure says why they could not be.
type Lookup func(c *model.Chart) ([]string, *Source, error)

// FindOutdated lists, for each version of the named (or all) charts the
// spec runs, the environments running it and the newer versions lookup
// finds, asking each repository once per chart.
func FindOutdated(spec *model.Spec, charts []string, lookup Lookup) []Outdated {
	var out []Outdated
	type result struct {
		versions []string
		src      *Source
		err      error
	}
	for _, cv := range spec.ChartVersions() {
		c := cv.Chart
		if len(charts) > 0 && !slices.Contains(charts, c.Name) {
			continue
		}
		envs := []string{}
		for _, env := range spec.Environments {
			if spec.ChartIn(env, c.Name).Version == cv.Version {
				envs = append(envs, env.Name)
			}
		}
		o := Outdated{Name: c.Name, Chart: c.Chart, RepoURL: c.RepoURL, Version: cv.Version, Platform: cv.Platform, Environments: envs, Update: Update{Newer: []string{}}}
		o.Pos, o.Path = c.At("version"), c.FieldPath("version")
		if !cv.Platform {
			p := spec.Environment(cv.Envs[0]).Pin(c.Name)
			o.Pos, o.Path = p.At("version"), p.FieldPath("version")
		}
		o.Position = o.Pos.String()
		out = append(out, o)
	}
	// Repositories are slow and independent: ask a few at a time.
	var names []string
	for _, o := range out {
		if !slices.Contains(names, o.Name) {
			names = append(names, o.Name)
		}
	}
	results := make([]result, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &results[i]
			r.versions, r.src, r.err = lookup(spec.Chart(name))
		})
	}
	wg.Wait()
	for i := range out {
		o := &out[i]
		r := results[slices.Index(names, o.Name)]
		if r.err != nil {
			o.Problem = r.err.Error()
			continue
		}
		o.Source = r.src
		o.Update = Updates(o.Version, r.versions)
	}
	return out
}

// OutdatedText writes the list as a table: each chart version, the
// environments that run it, the newest patch, minor and release the
// repository offers, then where each repository's versions were read.
func OutdatedText(w io.Writer, list []Outdated) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "chart\tversion\tenvironments\tpatch\tminor\tlatest\tnewer")
	var sources []string
	seen := map[string]bool{}
	for _, o := range list {
		envs := cmp.Or(strings.Join(o.Environments, ", "), "(none)")
		if o.Problem != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t?\t?\t?\tnot known: see below\n", o.Name, o.Version, envs)
			if !seen[o.Name] {
				sources = append(sources, fmt.Sprintf("  %s: %s", o.Name, o.Problem))
				seen[o.Name] = true
			}
			continue
		}
		newer := "up to date"
		if len(o.Newer) > 0 {
			newer = fmt.Sprintf("%d newer", len(o.Newer))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Name, o.Version, envs, cmp.Or(o.Patch, "-"), cmp.Or(o.Minor, "-"), cmp.Or(o.Latest, "-"), newer)
		if !seen[o.Name] && o.Source != nil {
			sources = append(sources, fmt.Sprintf("  %s: %s", o.Name, o.Source))
			seen[o.Name] = true
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(sources) > 0 {
		fmt.Fprintln(w, "\nversions read from:")
		for _, s := range sources {
			fmt.Fprintln(w, s)
		}
	}
	return nil
}
