// Package charts is what platc knows of the Helm charts it pins: the lock
// file (each pin's archive by its sha256 digest), the archives themselves
// (from platc's chart cache or a vendor folder of the repository, each
// verified against the lock on use), the one command that reaches the
// network (Pull, from an HTTP chart repository's index.yaml or an OCI
// registry), and the render of a chart as Argo CD's repo server
// renders it (`helm template` of Helm, here with Helm's Go SDK),
// with the checks of values against the chart (its values.schema.json,
// the keys its values.yaml and templates know).
//
// It renders one chart for one request and says what it found; it does
// not know which Applications exist (render's and rgd's job) nor where a
// value is set in the spec (verify places each answer).
package charts

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
	"go.yaml.in/yaml/v3"
)

// LockFile is the name of the lock file, in the spec's folder.
const LockFile = "charts.lock"

// VendorDir is the folder, in the spec's folder, where `platc charts
// vendor` copies the locked archives for CI without network.
const VendorDir = "charts/vendor"

// Lock is the lock file: each pinned chart's archive by digest.
type Lock struct {
	Charts []Entry `yaml:"charts"`
}

// Entry locks one chart version of one repository.
type Entry struct {
	// Name is the spec's name for the chart (charts.<name>), for people;
	// an entry is found by repository, chart and version.
	Name    string `yaml:"name"`
	RepoURL string `yaml:"repoURL"`
	Chart   string `yaml:"chart"`
	Version string `yaml:"version"`
	// Digest is the sha256 digest of the chart's archive (.tgz), as
	// "sha256:<hex>".
	Digest string `yaml:"digest"`
	// ManifestDigest is the digest of the OCI manifest the archive was
	// pulled by (OCI registries only).
	ManifestDigest string `yaml:"manifestDigest,omitempty"`
}

// File is the archive's file name in the vendor folder.
func (e *Entry) File() string { return e.Chart + "-" + e.Version + ".tgz" }

// Find returns the entry for a chart version of a repository, or nil.
func (l *Lock) Find(repoURL, chart, version string) *Entry {
	if l == nil {
		return nil
	}
	for i := range l.Charts {
		e := &l.Charts[i]
		if e.RepoURL == repoURL && e.Chart == chart && e.Version == version {
			return e
		}
	}
	return nil
}

// ParseLock reads a lock file strictly: unknown fields, a malformed digest
// and an entry locked twice are errors. A YAML syntax error is a
// *diag.SyntaxError without a file.
func ParseLock(data []byte) (*Lock, error) {
	var l Lock
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			return &Lock{}, nil
		}
		if se := diag.NewSyntaxError("", data, err); se != nil {
			return nil, se
		}
		return nil, err
	}
	seen := map[[3]string]bool{}
	for i, e := range l.Charts {
		if e.RepoURL == "" || e.Chart == "" || e.Version == "" {
			return nil, fmt.Errorf("entry %d: repoURL, chart and version are required", i+1)
		}
		if err := CheckFileName(e.Chart, e.Version); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		for _, d := range []struct{ field, value string }{{"digest", e.Digest}, {"manifestDigest", e.ManifestDigest}} {
			if (d.value != "" || d.field == "digest") && !ValidDigest(d.value) {
				return nil, fmt.Errorf("entry %d (%s %s): %s %q is malformed: a digest is sha256: and 64 lower-case hexadecimal digits", i+1, e.Chart, e.Version, d.field, d.value)
			}
		}
		k := [3]string{e.RepoURL, e.Chart, e.Version}
		if seen[k] {
			return nil, fmt.Errorf("entry %d: %s %s of %s is locked twice", i+1, e.Chart, e.Version, e.RepoURL)
		}
		seen[k] = true
	}
	return &l, nil
}

// CheckFileName says why a chart's name and version cannot name its
// archive in the vendor folder (Entry.File), or nil: a name that is not
// one file name (a folder, .., a name that starts with a dot) would write
// elsewhere.
func CheckFileName(chart, version string) error {
	e := Entry{Chart: chart, Version: version}
	if f := e.File(); strings.ContainsAny(f, "/\\\x00") || strings.HasPrefix(f, ".") || strings.Contains(f, "..") {
		return fmt.Errorf("chart %q version %q is not a chart's name and version: its archive would be %s, which is no file name of the vendor folder (a name without /, \\ or ..)", chart, version, f)
	}
	return nil
}

// Marshal writes the lock file, entries sorted by name then repository,
// chart and version: the same lock, the same bytes.
func (l *Lock) Marshal() []byte {
	entries := slices.Clone(l.Charts)
	slices.SortFunc(entries, func(a, b Entry) int {
		return strings.Compare(a.Name+"\x00"+a.RepoURL+"\x00"+a.Chart+"\x00"+a.Version, b.Name+"\x00"+b.RepoURL+"\x00"+b.Chart+"\x00"+b.Version)
	})
	var b bytes.Buffer
	b.WriteString("# The charts the spec pins, each by the sha256 digest of its archive.\n")
	b.WriteString("# Written by `platc charts pull`; commit it. Every other command reads charts\n")
	b.WriteString("# offline and refuses an archive whose digest is not the one locked here.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(Lock{Charts: entries}); err != nil {
		panic(err) // plain strings always encode
	}
	return b.Bytes()
}

// ValidDigest reports whether d is "sha256:" and 64 lower-case hex digits.
func ValidDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}
