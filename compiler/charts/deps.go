package charts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"
	"sigs.k8s.io/yaml"
)

// A chart folder of the repository may name dependencies (Chart.yaml's
// dependencies, with Chart.lock beside it) that its charts/ folder does
// not hold. Argo CD's repo server then meets Helm's missing-dependency
// error, runs `helm dependency build` in the folder and renders again
// (reposerver/repository/repository.go, helmTemplate and runHelmBuild,
// and util/helm/helm.go, IsMissingDependencyErr and DependencyBuild, of
// Argo CD). That build (pkg/downloader/manager.go, Manager.Build, of Helm)
// is ported here, offline: Helm's own checks of Chart.lock against
// Chart.yaml, file:// dependencies packed from the repository's folders,
// and every other dependency taken from the lock file of platc's chart
// cache (charts.lock, by repository, chart and version), which `platc
// charts pull` fills.

// Dependency is a dependency that `helm dependency build` downloads from
// a chart repository for a chart folder: an entry of its Chart.lock.
type Dependency struct {
	// Folder is the chart's folder, relative to the repository's root.
	Folder string
	// Name, Repository and Version are the entry's (Version exact, as a
	// lock has it).
	Name, Repository, Version string
}

func (d Dependency) String() string {
	return d.Name + " " + d.Version + " of " + d.Repository
}

// isMissingDependency is Argo CD's IsMissingDependencyErr: a render that
// failed for a dependency missing in charts/, which the repo server
// builds.
func isMissingDependency(msg string) bool {
	return strings.Contains(msg, "found in requirements.yaml, but missing in charts") ||
		strings.Contains(msg, "found in Chart.yaml, but missing in charts/ directory")
}

// depPlan is what `helm dependency build` does with a chart folder, as
// far as it can be told offline: the files it leaves, what it adds to
// charts/, or Helm's error, or why platc cannot tell.
type depPlan struct {
	// needed: the folder's charts/ lacks a dependency of Chart.yaml of an
	// installable chart, so that the repo server builds them.
	needed bool
	keep   []*archive.BufferedFile // the folder's files the build leaves
	local  []localDep              // file:// dependencies, packed into charts/
	remote []Dependency            // downloaded from chart repositories
	// removed are the files of charts/ the build deletes (outdated
	// dependencies), for the build's digest.
	removed []string
	rules   *ignore.Rules
	// err is Helm's error: the build fails.
	err error
	// skip says why platc cannot tell what the build does.
	skip string
}

// localDep is a file:// dependency: a folder of the repository, packed
// into charts/ as chartutil.Save packs it.
type localDep struct {
	file   string // charts/<name>-<version>.tgz
	name   string // its chart's name
	files  []*archive.BufferedFile
	digest string // FolderDigest of files
}

// planBuild is Manager.Build of Helm over the chart in dir (its files as
// Helm loads them, and its .helmignore rules), up to the downloads.
func planBuild(fsys fs.FS, dir string, files []*archive.BufferedFile, rules *ignore.Rules) *depPlan {
	p := &depPlan{rules: rules}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		p.err = err
		return p
	}
	req := ch.Metadata.Dependencies
	switch ch.Metadata.Type {
	case "", "application":
		p.needed = len(req) > 0 && checkDependencies(ch, req) != nil
	}
	lock := ch.Lock
	lockName, reqName := "Chart.lock", "Chart.yaml"
	if ch.Metadata.APIVersion == chart.APIVersionV1 {
		lockName, reqName = "requirements.lock", "requirements.yaml"
	}
	if lock == nil {
		p.skip = fmt.Sprintf("it has no %s, so Argo CD resolves the versions of its dependencies when it renders it (helm dependency update, online); run helm dependency update in %s and commit %s, then platc charts pull", lockName, dir, lockName)
		return p
	}
	for _, d := range req {
		// "@name" or "alias:name"
		if strings.HasPrefix(d.Repository, "@") || strings.HasPrefix(d.Repository, "alias:") {
			p.skip = fmt.Sprintf("%s names the repository of dependency %s by its alias %s, which Argo CD resolves from its own repository settings, not known offline; write the repository's URL there to have it checked", reqName, d.Name, d.Repository)
			return p
		}
	}
	// The repositories Argo CD adds to Helm before the build: those of
	// Chart.yaml's dependencies with an https URL (getHelmDependencyRepos
	// of reposerver/repository/repository.go; oci:// ones are logged in
	// to, not added).
	added := addedRepos(files)
	var v2Sum string
	if ch.Metadata.APIVersion == chart.APIVersionV1 {
		if v2Sum, err = hashV2Req(req); err != nil {
			p.err = errors.New("the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies")
			return p
		}
	}
	if p.err = resolveRepoNames(fsys, dir, req, added); p.err != nil {
		return p
	}
	if sum, err := hashReq(req, lock.Dependencies); err != nil || sum != lock.Digest {
		if ch.Metadata.APIVersion != chart.APIVersionV1 {
			p.err = errors.New("the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies with 'helm dependency update'")
			return p
		}
		if v2Sum != lock.Digest {
			p.err = errors.New("the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies")
			return p
		}
	}
	if p.err = hasAllRepos(lock.Dependencies, added); p.err != nil {
		return p
	}
	p.err = p.downloadAll(fsys, dir, files, lock.Dependencies)
	return p
}

// addedRepos are the URLs of the repositories Argo CD adds for the chart
// (getHelmDependencyRepos of Argo CD: Chart.yaml's dependencies whose
// repository is an https URL).
func addedRepos(files []*archive.BufferedFile) []string {
	var deps struct {
		Dependencies []struct {
			Repository string `json:"repository"`
		} `json:"dependencies"`
	}
	for _, f := range files {
		if f.Name == "Chart.yaml" {
			_ = yaml.Unmarshal(f.Data, &deps)
		}
	}
	var urls []string
	for _, d := range deps.Dependencies {
		if u, err := url.Parse(d.Repository); err == nil && u.Scheme == "https" {
			urls = append(urls, d.Repository)
		}
	}
	return urls
}

func isOCI(repo string) bool { return strings.HasPrefix(repo, "oci://") }

// resolveRepoNames is Manager.resolveRepoNames of Helm, for dependencies
// named by URL (an alias is not planned): a file:// folder must exist,
// and a repository that is no URL must be one Helm knows.
func resolveRepoNames(fsys fs.FS, dir string, req []*chart.Dependency, added []string) error {
	var missing []string
	for _, d := range req {
		switch {
		case d.Repository == "":
		case strings.HasPrefix(d.Repository, "file://"):
			if _, err := localPath(fsys, dir, d.Name, d.Repository); err != nil {
				return err
			}
		case isOCI(d.Repository):
		case slices.ContainsFunc(added, func(u string) bool { return urlEqual(u, d.Repository) }):
		default:
			if _, err := url.ParseRequestURI(d.Repository); err != nil {
				missing = append(missing, d.Repository)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := fmt.Sprintf("no repository definition for %s. Please add them via 'helm repo add'", strings.Join(missing, ", "))
	if slices.ContainsFunc(missing, func(r string) bool { return !strings.Contains(r, "//") }) {
		msg += `
Note that repositories must be URLs or aliases. For example, to refer to the "example"
repository, use "https://charts.example.com/" or "@example" instead of
"example". Don't forget to add the repo, too ('helm repo add').`
	}
	return errors.New(msg)
}

// hasAllRepos is Manager.hasAllRepos of Helm: every dependency the lock
// downloads from a chart repository is of one Helm knows (Argo CD adds
// only https ones).
func hasAllRepos(deps []*chart.Dependency, added []string) error {
	var missing []string
	for _, d := range deps {
		if strings.HasPrefix(d.Repository, "file://") || isOCI(d.Repository) || d.Repository == "" {
			continue
		}
		if !slices.ContainsFunc(added, func(u string) bool { return urlEqual(u, strings.TrimSuffix(d.Repository, "/")) }) {
			missing = append(missing, d.Repository)
		}
	}
	if len(missing) > 0 {
		// ErrRepoNotFound, as pkg/cmd/dependency_build.go words it.
		return errors.New("no repository definition for " + strings.Join(missing, ", ") + ". Please add the missing repos via 'helm repo add'")
	}
	return nil
}

// urlEqual is internal/urlutil.Equal of Helm.
func urlEqual(a, b string) bool {
	au, err := url.Parse(a)
	if err != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	bu, err := url.Parse(b)
	if err != nil {
		return false
	}
	for _, u := range []*url.URL{au, bu} {
		if u.Path == "" {
			u.Path = "/"
		}
		u.Path = filepath.Clean(u.Path)
	}
	return au.String() == bu.String()
}

// hashReq is internal/resolver.HashReq of Helm: the digest Chart.lock
// records of Chart.yaml's dependencies and its own.
func hashReq(req, lock []*chart.Dependency) (string, error) {
	return hashJSON([2][]*chart.Dependency{req, lock})
}

// hashV2Req is internal/resolver.HashV2Req of Helm: the digest of a lock
// written by Helm 2.
func hashV2Req(req []*chart.Dependency) (string, error) {
	return hashJSON(map[string][]*chart.Dependency{"dependencies": req})
}

func hashJSON(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}

// localPath is internal/resolver.GetLocalPath of Helm: the folder a
// file:// repository names, relative to the chart's folder, which must
// exist in the repository (Argo CD's repo server has the repository
// alone).
// A folder outside the repository is platc's message, which names the
// Chart.yaml and the dependency.
func localPath(fsys fs.FS, dir, name, repo string) (string, error) {
	p := strings.TrimPrefix(repo, "file://")
	full := path.Join(dir, p)
	if strings.HasPrefix(p, "/") || full == ".." || strings.HasPrefix(full, "../") {
		if strings.HasPrefix(p, "/") {
			full = p
		}
		return "", fmt.Errorf("%s: dependency %s names %s, the folder %s, which is outside the repository: Argo CD's repo server has the repository alone; move the chart into the repository and name its folder from %s", path.Join(dir, "Chart.yaml"), name, repo, full, dir)
	}
	if _, err := fs.Stat(fsys, full); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("directory %s not found", full)
	} else if err != nil {
		return "", err
	}
	return full, nil
}

// downloadAll is Manager.downloadAll of Helm, offline: each dependency of
// the lock in its order (the first failure ends it), then safeMoveDeps.
func (p *depPlan) downloadAll(fsys fs.FS, dir string, files []*archive.BufferedFile, deps []*chart.Dependency) error {
	for _, f := range files {
		if f.Name == "charts" {
			return fmt.Errorf("%q is not a directory", path.Join(dir, "charts"))
		}
	}
	localNames := map[string]bool{} // dependencies without a repository
	seen := map[Dependency]bool{}
	for _, d := range deps {
		switch {
		case d.Repository == "":
			// Assumed to be in charts/: only its version is checked.
			localNames[d.Name] = true
			folder := path.Join(dir, "charts", d.Name)
			var sub []*archive.BufferedFile
			for _, f := range files {
				if rest, ok := strings.CutPrefix(f.Name, "charts/"+d.Name+"/"); ok {
					sub = append(sub, &archive.BufferedFile{Name: rest, ModTime: f.ModTime, Data: f.Data})
				}
			}
			if len(sub) == 0 {
				return fmt.Errorf("unable to load chart '%s': lstat %s: no such file or directory", folder, folder)
			}
			ch, err := loader.LoadFiles(sub)
			if err != nil {
				return fmt.Errorf("unable to load chart '%s': %w", folder, err)
			}
			constraint, err := semver.NewConstraint(d.Version)
			if err != nil {
				return fmt.Errorf("dependency %s has an invalid version/constraint format: %w", d.Name, err)
			}
			v, err := semver.NewVersion(ch.Metadata.Version)
			if err != nil {
				return fmt.Errorf("invalid version %s for dependency %s: %w", d.Version, d.Name, err)
			}
			if !constraint.Check(v) {
				return fmt.Errorf("dependency %s at version %s does not satisfy the constraint %s", d.Name, ch.Metadata.Version, d.Version)
			}
		case strings.HasPrefix(d.Repository, "file://"):
			// tarFromLocalDir.
			folder, err := localPath(fsys, dir, d.Name, d.Repository)
			if err != nil {
				return err
			}
			lfiles, _, err := folderFiles(fsys, folder)
			if err != nil {
				return err
			}
			ch, err := loader.LoadFiles(lfiles)
			if err != nil {
				return err
			}
			constraint, err := semver.NewConstraint(d.Version)
			if err != nil {
				return fmt.Errorf("dependency %s has an invalid version/constraint format: %w", d.Name, err)
			}
			v, err := semver.NewVersion(ch.Metadata.Version)
			if err != nil {
				return err
			}
			if !constraint.Check(v) {
				return fmt.Errorf("can't get a valid version for dependency %s", d.Name)
			}
			p.local = append(p.local, localDep{file: ch.Name() + "-" + ch.Metadata.Version + ".tgz", name: ch.Name(), files: lfiles, digest: FolderDigest(lfiles)})
		default:
			dep := Dependency{Folder: dir, Name: d.Name, Repository: d.Repository, Version: d.Version}
			if !seen[dep] { // Helm downloads each chart URL once
				seen[dep] = true
				p.remote = append(p.remote, dep)
			}
		}
	}
	p.safeMoveDeps(files, localNames)
	return nil
}

// safeMoveDeps is Manager.safeMoveDeps of Helm: the archives the build
// adds to charts/ replace those of the same name, and every other chart
// archive there is deleted, but for those of dependencies without a
// repository; folders and files that are no chart stay.
func (p *depPlan) safeMoveDeps(files []*archive.BufferedFile, localNames map[string]bool) {
	added := map[string]bool{}
	for _, l := range p.local {
		added[l.file] = true
	}
	for _, d := range p.remote {
		added[d.file()] = true
	}
	for _, f := range files {
		name, ok := strings.CutPrefix(f.Name, "charts/")
		if !ok || strings.Contains(name, "/") {
			p.keep = append(p.keep, f)
			continue
		}
		if added[name] {
			p.removed = append(p.removed, f.Name)
			continue
		}
		ch, err := loader.LoadArchive(bytes.NewReader(f.Data))
		if err != nil || localNames[ch.Name()] {
			p.keep = append(p.keep, f) // "Could not verify ... for deletion", or local
			continue
		}
		p.removed = append(p.removed, f.Name)
	}
}

// file is the name Helm gives the downloaded archive in charts/.
func (d Dependency) file() string { return d.Name + "-" + d.Version + ".tgz" }

// ignored reports whether Helm's loader, reading the folder after the
// build, ignores the file name of it (name or a parent folder matched by
// its .helmignore).
func (p *depPlan) ignored(name string) bool {
	if p.rules == nil {
		return false
	}
	parts := strings.Split(name, "/")
	for i := range parts {
		if p.rules.Ignore(strings.Join(parts[:i+1], "/"), fileInfo{name: parts[i], dir: i < len(parts)-1}) {
			return true
		}
	}
	return false
}

// fileInfo is the fs.FileInfo of a file the build writes, for .helmignore.
type fileInfo struct {
	name string
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return 0 }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

// FolderDependencies are the dependencies that Argo CD's repo server
// downloads from chart repositories when it renders the chart in the
// folder dir of fsys, for `platc charts pull`: none where its charts/
// holds every dependency Chart.yaml names (the repo server builds
// nothing), or where the build fails before it downloads (platc vet says
// why). why says what keeps platc from telling (no Chart.lock, a
// repository alias), "" otherwise.
func FolderDependencies(fsys fs.FS, dir string) (deps []Dependency, why string) {
	files, rules, err := folderFiles(fsys, dir)
	if err != nil {
		return nil, ""
	}
	p := planBuild(fsys, dir, files, rules)
	if !p.needed || p.err != nil {
		return nil, ""
	}
	return p.remote, p.skip
}
