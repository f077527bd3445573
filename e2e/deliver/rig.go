package deliver

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/cli"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/render"
)

// Source is a platform to deliver: a checkout of its repository.
type Source struct {
	// Dir is the repository root.
	Dir string
	// SpecDir is the spec's folder, relative to Dir (default sources).
	SpecDir string
	// ClientRepos are checkouts of clients' values repositories other
	// than the platform's, by client name (platc's -client-repo): each
	// is delivered as its own repository. A client whose repository has
	// no checkout here gets an empty one.
	ClientRepos map[string]string
	// Name names the platform in progress lines (golden/stacks): several
	// may be delivered at once.
	Name string
	// Corpus is a folder of real chart archives (index.json lists each:
	// name, version, repoURL, file, sha256): the rig locks and vendors,
	// in its work copy, every chart version the spec pins that the
	// corpus holds, so that it is served, and delivered, with its real
	// chart. A corpus that is not there fails the rig.
	Corpus string
}

// A Rig holds what a delivery reads: a work copy of the platform, where
// platc runs as a person would run it, and the Git repositories Argo CD
// reads, which Publish fills from the work copy with the repositories'
// URLs rewritten to the local ones.
type Rig struct {
	// Work is the work copy: the platform's repository root.
	Work    string
	SpecDir string
	// Spec is the compiled spec of the work copy, as last compiled.
	Spec *model.Spec
	// OutDir is the output root, relative to Work.
	OutDir string
	// Platform is the platform's repository; Clients the values
	// repositories of clients that are not the platform's, by URL.
	Platform *Repo
	Clients  map[string]*Repo

	// Charts are the loopback servers of the vendored charts.
	Charts []*chartServer
	// Pins are the chart versions the spec pins, and whether each is
	// served (and why not).
	Pins []*ChartPin

	name string // Source.Name
	// checkouts are the copies of Source.ClientRepos, by client, until
	// the clients' repositories exist.
	checkouts map[string]string
	urls      map[string]string // rendered URL -> what Argo CD reads
	log       io.Writer
}

// NewRig copies src into dir (dir/work, and dir/git/<repo> for each
// repository), compiles it, requires its committed output to be what its
// spec renders, and publishes it as each repository's first commit.
func NewRig(src Source, dir string, log io.Writer) (*Rig, error) {
	r := &Rig{
		Work: filepath.Join(dir, "work"), SpecDir: src.SpecDir,
		Clients: map[string]*Repo{}, checkouts: map[string]string{}, urls: map[string]string{},
		log: log, name: src.Name,
	}
	if r.SpecDir == "" {
		r.SpecDir = compiler.DefaultSpecDir
	}
	if err := os.MkdirAll(r.Work, 0o755); err != nil {
		return nil, err
	}
	if err := copyTree(src.Dir, r.Work, nil); err != nil {
		return nil, err
	}
	for client, checkout := range src.ClientRepos {
		work := filepath.Join(dir, "clients", client)
		if err := os.MkdirAll(work, 0o755); err != nil {
			return nil, err
		}
		if err := copyTree(checkout, work, nil); err != nil {
			return nil, err
		}
		r.checkouts[client] = work
	}
	var err error
	if r.Pins, err = readPins(r.Work, r.SpecDir); err != nil {
		return nil, err
	}
	if src.Corpus != "" {
		// Named as from the repository, as a person finds it.
		label := src.Corpus
		if rel, err := filepath.Rel(src.Dir, src.Corpus); err == nil {
			label = rel
		}
		if err := vendorCorpus(r.Work, r.SpecDir, src.Corpus, label, r.Pins); err != nil {
			return nil, err
		}
	}
	// With the charts locked and vendored, the compilation renders and
	// checks each as Argo CD's repo server will.
	if err := r.Check(); err != nil {
		return nil, err
	}
	if r.Platform, err = NewRepo(filepath.Join(dir, "git", "platform"), r.Spec.Platform.RepoURL); err != nil {
		return nil, err
	}
	r.urls[r.Platform.URL] = r.Platform.FileURL()
	for _, c := range r.Spec.Clients {
		url := c.Values.RepoURL
		if url == r.Platform.URL || r.Clients[url] != nil {
			continue
		}
		repo, err := NewRepo(filepath.Join(dir, "git", "client-"+c.Name), url)
		if err != nil {
			return nil, err
		}
		// Its work copy is the checkout of the first client that has
		// one; with none, the repository starts empty.
		for _, other := range r.Spec.Clients {
			if other.Values.RepoURL == url && repo.Work == "" {
				repo.Work = r.checkouts[other.Name]
			}
		}
		if repo.Work == "" {
			repo.Work = filepath.Join(dir, "clients", c.Name)
			if err := os.MkdirAll(repo.Work, 0o755); err != nil {
				return nil, err
			}
		}
		r.Clients[url] = repo
		r.urls[url] = repo.FileURL()
	}
	r.checkouts = nil
	if r.Charts, err = serveCharts(filepath.Join(r.Work, r.SpecDir)); err != nil {
		return nil, err
	}
	servedPins(r.Pins, r.Charts)
	for _, p := range r.Pins {
		p.Platform = src.Name
	}
	for _, s := range r.Charts {
		r.urls[s.From] = s.To
		fmt.Fprintf(log, "e2e: serving %s (%s) on %s\n", s.From, strings.Join(s.Charts, ", "), s.To)
	}
	for _, p := range r.Pins {
		if !p.Served {
			fmt.Fprintf(log, "e2e: %s: not served: %s\n", p, p.Why)
		}
	}
	if _, err := r.Publish("platform: the render under test"); err != nil {
		return nil, err
	}
	// The render under test is the release each pinned environment
	// pins (and any environment that names a tag): the tag names this
	// commit.
	tagged := map[string]bool{}
	for _, e := range r.Spec.Environments {
		if (e.Pinned || releaseTag.MatchString(e.Revision)) && !tagged[e.Revision] {
			if err := r.Platform.Tag(e.Revision); err != nil {
				return nil, err
			}
			tagged[e.Revision] = true
		}
	}
	// So is a release a module of this repository reads at.
	for _, rev := range r.moduleRevisions() {
		if releaseTag.MatchString(rev) && !tagged[rev] {
			if err := r.Platform.Tag(rev); err != nil {
				return nil, err
			}
			tagged[rev] = true
		}
	}
	return r, nil
}

// moduleRevisions are the revisions of this repository that path modules
// read at, their own or an environment's for them.
func (r *Rig) moduleRevisions() []string {
	var revs []string
	for _, m := range r.Spec.Modules {
		if m.RepoURL != "" {
			continue
		}
		if m.Revision != "" {
			revs = append(revs, m.Revision)
		}
		for _, e := range r.Spec.Environments {
			if s := e.Settings[m.Name]; s != nil && s.Revision != "" {
				revs = append(revs, s.Revision)
			}
		}
	}
	return revs
}

// Close stops the rig's chart servers.
func (r *Rig) Close() {
	for _, s := range r.Charts {
		s.close()
	}
}

// Platc runs a platc command in the work copy (as `platc <command> -C
// <work> args...`).
func (r *Rig) Platc(command string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	code := cli.Main(append([]string{command, "-C", r.Work}, args...), &out, &errb)
	if code != cli.ExitOK {
		return out.String(), errb.String(), fmt.Errorf("platc %s %s: exit %d:\n%s%s", command, strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String(), errb.String(), nil
}

// ClientRepo is a client's own repository, or nil where its values are
// in the platform's.
func (r *Rig) ClientRepo(client string) *Repo {
	for _, c := range r.Spec.Clients {
		if c.Name == client {
			return r.Clients[c.Values.RepoURL]
		}
	}
	return nil
}

// clientRepos are the compiler's checkouts of the clients' repositories:
// their work copies, or the copies of Source.ClientRepos before those
// exist.
func (r *Rig) clientRepos() map[string]layers.Repo {
	repos := map[string]layers.Repo{}
	for client, dir := range r.checkouts {
		repos[client] = layers.Repo{FS: os.DirFS(dir), Dir: dir}
	}
	if r.checkouts == nil {
		for _, c := range r.Spec.Clients {
			if repo := r.Clients[c.Values.RepoURL]; repo != nil {
				repos[c.Name] = layers.Repo{FS: os.DirFS(repo.Work), Dir: repo.Work}
			}
		}
	}
	return repos
}

// Check compiles the work copy and requires its output folder to hold
// exactly what its spec renders: a delivery tests the committed render.
func (r *Rig) Check() error {
	res := compiler.Compile(os.DirFS(r.Work), compiler.Options{SpecDir: r.SpecDir, ClientRepos: r.clientRepos()})
	if res.Log.HasErrors() {
		return fmt.Errorf("the platform has problems; platc vet says:\n%s", res.Log.String())
	}
	r.Spec, r.OutDir = res.Spec, res.OutDir
	for _, o := range res.Outputs {
		have, err := os.ReadFile(filepath.Join(r.Work, filepath.FromSlash(o.Path)))
		if err != nil || !bytes.Equal(have, o.Data) {
			return fmt.Errorf("%s is not what the spec renders: run platc render and commit, then deliver", o.Path)
		}
	}
	return nil
}

// Publish commits the work copy to the platform's repository (and each
// client's work copy to its own), with every repository URL in the
// output folder rewritten to the local repository's, and returns the
// platform's commit.
func (r *Rig) Publish(message string) (string, error) {
	out := r.OutDir + "/"
	if err := copyTree(r.Work, r.Platform.Dir, func(rel string, data []byte) []byte {
		if !strings.HasPrefix(rel, out) {
			return data
		}
		return r.Rewrite(data)
	}); err != nil {
		return "", err
	}
	for _, repo := range r.Clients {
		if err := copyTree(repo.Work, repo.Dir, nil); err != nil {
			return "", err
		}
		if _, err := repo.Commit(message); err != nil {
			return "", err
		}
	}
	// A branch an environment or a client follows moves with each
	// commit; a tag stays where it was made (NewRig, Release).
	for _, c := range r.Spec.Clients {
		if repo := r.Clients[c.Values.RepoURL]; repo != nil {
			if err := repo.Follow(c.Values.Revision); err != nil {
				return "", err
			}
		}
	}
	commit, err := r.Platform.Commit(message)
	if err != nil {
		return "", err
	}
	for _, e := range r.Spec.Environments {
		if !e.Pinned {
			if err := r.Platform.Follow(e.Revision); err != nil {
				return "", err
			}
		}
	}
	for _, rev := range r.moduleRevisions() {
		if err := r.Platform.Follow(rev); err != nil {
			return "", err
		}
	}
	return commit, nil
}

// Rewrite replaces every URL the rig stands in for with its local one.
// Longer URLs are replaced first, so that one that extends another keeps
// its own.
func (r *Rig) Rewrite(data []byte) []byte {
	from := make([]string, 0, len(r.urls))
	for u := range r.urls {
		from = append(from, u)
	}
	slices.SortFunc(from, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, u := range from {
		pairs = append(pairs, u, r.urls[u])
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(data)))
}

// RootFile is the path of an environment's root Application in the
// platform's repository.
func (r *Rig) RootFile(env string) string {
	return filepath.Join(r.Platform.Dir, r.OutDir, render.RootFile(&r.Spec.Platform, env))
}

// ArgoCDValues are the values of Argo CD's chart that platc renders for
// an environment, or nil where it renders none.
func (r *Rig) ArgoCDValues(env string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(r.Work, r.OutDir, render.ArgoCDValuesFile(&r.Spec.Platform, env)))
	if os.IsNotExist(err) {
		return nil, nil
	}
	return data, err
}

// Environments are the spec's environments, sorted.
func (r *Rig) Environments() []string {
	var names []string
	for _, e := range r.Spec.Environments {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return names
}
