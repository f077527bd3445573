package charts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"

	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// Archives finds chart archives by digest ("sha256:<hex>"). What it
// returns is checked against the digest.
type Archives interface {
	Archive(digest string) ([]byte, bool)
}

// DamagedArchives is what an Archives may also do: say that it holds a
// file for digest whose bytes have another digest (got), and which file,
// so that a message says the archive is damaged, not missing.
type DamagedArchives interface {
	Damaged(digest string) (file, got string, ok bool)
}

// Renderer renders the charts of one compilation: each distinct request
// of each chart once, its outcome kept in the cache under a key made of
// everything the render read (the chart's digest, the request, Helm's
// version), so that the next run renders only what changed. It may be
// used from several goroutines.
type Renderer struct {
	// Lock is the spec's lock file; nil when the spec has none (then
	// pinned charts are not rendered), or LockBroken, when it cannot be
	// read (an error says why).
	Lock       *Lock
	LockBroken bool
	// Vendor is the repository's vendor folder (VendorDir), and Archives
	// platc's chart cache; either may be nil.
	Vendor   fs.FS
	Archives Archives
	// VendorName names the vendor folder in messages.
	VendorName string
	// Repo is the repository, for charts in its folders.
	Repo fs.FS
	// Cache keeps outcomes between runs; nil renders every time.
	Cache cache.Cache
	// KeepRenders makes Record keep the render of each Application's
	// source, for Apps; without it Record keeps nothing (check, render
	// and vet show no render).
	KeepRenders bool

	pack     packRead
	mu       sync.Mutex
	charts   map[string]*loaded   // by digest
	folders  map[string]*loaded   // by folder
	outcomes map[string]*rendered // by key
	unpacked bool                 // an outcome this run was not in the pack
	apps     []App
	missing  map[string]Status // chart name -> NoLock, NotLocked or Missing
	partial  map[string]bool   // env/Application rendered without a value file
}

type loaded struct {
	once   sync.Once
	digest string // of a folder: known before it is loaded
	err    error  // finding the archive, or a folder's digest: set in once
	// chart loads the chart's files, once: set in once.
	chart func() (*Chart, error)
	// build is a folder's dependency build, planned once where Helm
	// finds a dependency missing (RenderFolder).
	buildOnce sync.Once
	build     *folderBuild
}

type rendered struct {
	once  sync.Once
	out   *Outcome
	entry []byte // the cache entry of out, when it has one
}

// The pack (cache.ChartRenders) is the cache entry that holds, in one,
// the entries of the outcomes the last compilation read: a warm run reads
// it, not one entry per distinct render. The entries of single renders
// stay: a pack holds one compilation's set, and another set (a branch,
// -client-repo) finds its renders there. Its entries are as stored alone
// (entryHead).
var packKey = cache.ChartRenders.Key()

// packRead is the pack, read once (Prefetch, or the first render).
type packRead struct {
	once    sync.Once
	entries map[string][]byte // by key
}

// Prefetch starts reading what the renders will read from the cache,
// while the caller does other work.
func (r *Renderer) Prefetch() {
	if r.Cache != nil {
		go r.readPack()
	}
}

func (r *Renderer) readPack() map[string][]byte {
	r.pack.once.Do(func() {
		data, ok := r.Cache.Get(packKey)
		if !ok {
			return
		}
		d := object.NewEntryDecoder(cache.ChartRenders.Layout(), data)
		n, _ := d.Count()
		entries := make(map[string][]byte, n)
		for range n {
			k := d.Str()
			entries[k] = d.Bytes()
		}
		if d.Done() == nil {
			r.pack.entries = entries
		}
	})
	return r.pack.entries
}

// KeepPack writes the pack of this compilation's outcomes unless the pack
// read holds exactly them. Call it once the renders are done.
func (r *Renderer) KeepPack() {
	if r.Cache == nil {
		return
	}
	packed := r.readPack()
	r.mu.Lock()
	entries := map[string][]byte{}
	for k, o := range r.outcomes {
		if o.entry != nil {
			entries[k] = o.entry
		}
	}
	changed := r.unpacked || len(entries) != len(packed)
	r.mu.Unlock()
	if !changed || len(entries) == 0 {
		return
	}
	e := object.NewEncoder([]byte(cache.ChartRenders.Layout()))
	e.Count(len(entries), false)
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		e.Str(k)
		e.Bytes(entries[k])
	}
	r.Cache.Put(packKey, e.B)
}

// cached is the outcome the cache holds for key: from the pack, or from
// the entry of key alone (when the pack has none, or one that is not what
// it claims); entry is the bytes it was read from.
func (r *Renderer) cached(key, head string) (out *Outcome, entry []byte, packed bool) {
	if data, ok := r.readPack()[key]; ok {
		if out := readEntry(data, head); out != nil {
			return out, data, true
		}
	}
	if data, ok := r.Cache.Get(key); ok {
		if out := readEntry(data, head); out != nil {
			return out, data, false
		}
	}
	return nil, nil, false
}

// readEntry reads a cached outcome: the head naming what it describes,
// and the outcome; nil if either is not what it should be.
func readEntry(data []byte, head string) *Outcome {
	rest, ok := bytes.CutPrefix(data, []byte(head))
	if !ok {
		return nil
	}
	out, err := readOutcome(rest)
	if err != nil {
		return nil
	}
	return out
}

// App is the render of one Helm source of an Application.
type App struct {
	Env, Name, Namespace string
	// Source is the chart, as "repoURL chart version", or the folder.
	Source  string
	Outcome *Outcome
	// chart loads the chart (from the archive or the folder).
	chart func() (*Chart, error)
}

// Chart loads the chart the Application's source renders.
func (a App) Chart() (*Chart, error) {
	if a.chart == nil {
		return nil, fmt.Errorf("no chart recorded")
	}
	return a.chart()
}

// Status is what is known of a pinned chart's archive.
type Status int

const (
	// Ready: the archive is there and matches the lock.
	Ready Status = iota
	// NotLocked: the spec has a lock file and the pin is not in it.
	NotLocked
	// NoLock: the spec has no lock file.
	NoLock
	// Missing: locked, but neither the cache nor the vendor folder has
	// the archive.
	Missing
	// Mismatch: the vendor folder's archive is not the one locked.
	Mismatch
)

// Pin says what is known of a chart pin's archive; for Mismatch, the
// error names both digests.
func (r *Renderer) Pin(repoURL, chart, version string) (Status, *Entry, error) {
	if r.Lock == nil {
		return NoLock, nil, nil
	}
	e := r.Lock.Find(repoURL, chart, version)
	if e == nil {
		return NotLocked, nil, nil
	}
	l := r.load(e)
	switch {
	case l.err == errMissing:
		return Missing, e, nil
	case l.err != nil:
		return Mismatch, e, l.err
	}
	return Ready, e, nil
}

var errMissing = fmt.Errorf("no archive")

// load finds and loads the locked archive of e, once.
func (r *Renderer) load(e *Entry) *loaded {
	l := entryOf(r, &r.charts, e.Digest, func() *loaded { return &loaded{digest: e.Digest} })
	l.once.Do(func() {
		// The archive is found and its digest checked here; it is loaded
		// only when a render is not in the cache (chart).
		data, err := r.findArchive(e)
		l.err = err
		l.chart = sync.OnceValues(func() (*Chart, error) {
			if err != nil {
				return nil, err
			}
			return LoadArchive(data)
		})
	})
	return l
}

// findArchive reads the locked archive of e from the vendor folder, or
// else from the chart cache, and checks its digest: errMissing where
// neither has it.
func (r *Renderer) findArchive(e *Entry) ([]byte, error) {
	if r.Vendor != nil {
		if data, err := fs.ReadFile(r.Vendor, e.File()); err == nil {
			if d := Digest(data); d != e.Digest {
				return nil, fmt.Errorf("%s/%s is not the archive locked for %s %s: its digest is %s, the lock's %s: run platc charts vendor again (or platc charts pull, if the chart was re-published)", r.VendorName, e.File(), e.Chart, e.Version, d, e.Digest)
			}
			return data, nil
		}
	}
	if r.Archives != nil {
		if data, ok := r.Archives.Archive(e.Digest); ok && Digest(data) == e.Digest {
			return data, nil
		}
		if d, ok := r.Archives.(DamagedArchives); ok {
			if file, got, bad := d.Damaged(e.Digest); bad {
				return nil, fmt.Errorf("the chart cache's archive of %s %s (%s) is damaged: its digest is %s, the lock's %s: run platc charts pull to fetch it again", e.Chart, e.Version, file, got, e.Digest)
			}
		}
	}
	return nil, errMissing
}

// RenderPin renders the locked chart for req; the pin must be Ready. It
// returns the outcome and what loads the chart.
func (r *Renderer) RenderPin(e *Entry, req Request) (*Outcome, func() (*Chart, error)) {
	l := r.load(e)
	return r.render(e.Digest, l.chart, req), l.chart
}

// RenderFolder renders the chart in a folder of the repository for req,
// as Argo CD's repo server does: where Helm finds a dependency of
// Chart.yaml missing in the folder's charts/, the repo server builds them
// (helm dependency build, deps.go) and renders again. It returns the
// outcome and what loads the chart; no outcome where the build needs what
// platc does not have (UnbuiltFolders says what), and an error where the
// vendor folder's archive of a dependency is not the locked one.
func (r *Renderer) RenderFolder(dir string, req Request) (*Outcome, func() (*Chart, error), error) {
	l := entryOf(r, &r.folders, dir, func() *loaded { return &loaded{} })
	// The digest of a folder is of its files: read once, loaded only
	// when an outcome is not cached.
	l.once.Do(func() {
		var files []*archive.BufferedFile
		if files, _, l.err = folderFiles(r.Repo, dir); l.err == nil {
			l.digest = FolderDigest(files)
		}
		l.chart = sync.OnceValues(func() (*Chart, error) { return LoadFolder(r.Repo, dir) })
	})
	if l.err != nil {
		return &Outcome{Error: l.err.Error()}, func() (*Chart, error) { return nil, l.err }, nil
	}
	out := r.render(l.digest, l.chart, req)
	if !isMissingDependency(out.Error) {
		return out, l.chart, nil
	}
	l.buildOnce.Do(func() { l.build = r.buildFolder(dir, l.digest) })
	b := l.build
	switch {
	case b.failed != nil:
		return b.failed, l.chart, nil
	case b.lockErr != nil:
		return nil, nil, b.lockErr
	case b.skip != "" || len(b.notLocked) > 0 || len(b.missing) > 0:
		return nil, nil, nil
	}
	return r.render(b.digest, b.chart, req), b.chart, nil
}

// folderBuild is a chart folder as `helm dependency build` leaves it:
// Helm's error, what keeps platc from rendering it, or its digest and
// what loads it.
type folderBuild struct {
	failed  *Outcome // the build fails: Helm's error
	lockErr error    // a vendored archive is not the locked one
	// skip says why platc cannot tell what the build does; notLocked and
	// missing are the dependencies charts.lock does not lock, and those
	// neither the cache nor the vendor folder holds.
	skip               string
	notLocked, missing []string
	digest             string
	chart              func() (*Chart, error)
}

// buildFolder plans the build of the chart folder dir, whose files'
// digest is digest, and finds the archives it downloads in the lock.
func (r *Renderer) buildFolder(dir, digest string) *folderBuild {
	b := &folderBuild{}
	files, rules, err := folderFiles(r.Repo, dir)
	if err != nil {
		b.failed = &Outcome{Error: err.Error()}
		return b
	}
	p := planBuild(r.Repo, dir, files, rules)
	switch {
	case p.err != nil:
		// As Argo CD's repo server words it (runHelmBuild), with
		// Helm's message.
		b.failed = &Outcome{Error: "error building helm chart dependencies: " + p.err.Error()}
		return b
	case p.skip != "":
		b.skip = p.skip
		return b
	}
	entries := make([]*Entry, len(p.remote))
	for i, d := range p.remote {
		e := r.Lock.Find(d.Repository, d.Name, d.Version)
		if e == nil {
			b.notLocked = append(b.notLocked, d.String())
			continue
		}
		switch _, err := r.findArchive(e); {
		case err == errMissing:
			b.missing = append(b.missing, d.String())
		case err != nil:
			b.lockErr = fmt.Errorf("dependency %s of the chart in %s: %v", d, dir, err)
			return b
		}
		entries[i] = e
	}
	if len(b.notLocked) > 0 || len(b.missing) > 0 {
		return b
	}
	// The build's digest: the folder's, the files it deletes, and what it
	// adds (each archive by its digest; what Helm's loader then ignores
	// is not added).
	h := sha256.New()
	fmt.Fprintf(h, "platc chart build 1\n%s\n", digest)
	for _, f := range p.removed {
		fmt.Fprintf(h, "-%s\n", f)
	}
	var locals []localDep
	for _, l := range p.local {
		if !p.ignored("charts/" + l.file) {
			locals = append(locals, l)
			fmt.Fprintf(h, "+%s %s\n", l.file, l.digest)
		}
	}
	var remotes []*Entry
	for i, d := range p.remote {
		if !p.ignored("charts/" + d.file()) {
			remotes = append(remotes, entries[i])
			fmt.Fprintf(h, "+%s %s\n", d.file(), entries[i].Digest)
		}
	}
	b.digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	b.chart = sync.OnceValues(func() (*Chart, error) {
		built := slices.Clone(p.keep)
		for _, l := range locals {
			packed := map[string][]byte{}
			for _, f := range l.files {
				packed[f.Name] = f.Data
			}
			built = append(built, &archive.BufferedFile{Name: "charts/" + l.file, Data: BuildArchive(l.name, packed)})
		}
		for _, e := range remotes {
			data, err := r.findArchive(e)
			if err != nil {
				return nil, fmt.Errorf("reading the archive of %s %s: %v", e.Chart, e.Version, err)
			}
			built = append(built, &archive.BufferedFile{Name: "charts/" + e.File(), Data: data})
		}
		hc, err := loader.LoadFiles(built)
		if err != nil {
			return nil, err
		}
		return &Chart{Digest: b.digest, helm: hc}, nil
	})
	return b
}

// UnbuiltFolders are the chart folders not rendered, since their
// dependencies are not at hand, sorted, and a note for each: why, and
// what to run.
func (r *Renderer) UnbuiltFolders(specDir string) (dirs, notes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, dir := range slices.Sorted(maps.Keys(r.folders)) {
		b := r.folders[dir].build
		if b == nil || b.failed != nil || b.lockErr != nil {
			continue
		}
		var why string
		switch {
		case b.skip != "":
			why = b.skip
		case len(b.notLocked) > 0:
			since := " in " + path.Join(specDir, LockFile)
			if r.Lock == nil {
				since = ", since " + specDir + " has no " + LockFile
			}
			why = fmt.Sprintf("%s not locked%s; run platc charts pull (it uses the network) to lock and fetch %s", deps(b.notLocked, "is", "are"), since, them(len(b.notLocked)))
		case len(b.missing) > 0:
			why = fmt.Sprintf("%s locked, but neither platc's cache nor %s holds %s; run platc charts pull (it uses the network), or platc charts vendor where %s cached", deps(b.missing, "is", "are"), path.Join(specDir, VendorDir), them(len(b.missing)), map[bool]string{true: "it is", false: "they are"}[len(b.missing) == 1])
		default:
			continue
		}
		dirs = append(dirs, dir)
		notes = append(notes, fmt.Sprintf("the chart in %s is not rendered: %s", dir, why))
	}
	return dirs, notes
}

// deps says "its dependency X is" or "its dependencies X, Y are".
func deps(list []string, one, many string) string {
	if len(list) == 1 {
		return "its dependency " + list[0] + " " + one
	}
	return "its dependencies " + strings.Join(list, ", ") + " " + many
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// NewApp is the record of an Application's source, for Record.
func NewApp(env, name, namespace, source string, out *Outcome, chart func() (*Chart, error)) App {
	return App{Env: env, Name: name, Namespace: namespace, Source: source, Outcome: out, chart: chart}
}

// NotRendered records that the pinned chart name (with its version, where
// that matters) is not rendered, with why (NoLock, NotLocked or Missing),
// for Unrendered.
func (r *Renderer) NotRendered(name string, why Status) {
	r.mu.Lock()
	if r.missing == nil {
		r.missing = map[string]Status{}
	}
	r.missing[name] = why
	r.mu.Unlock()
}

// Partial records that an Application's chart was rendered without a value
// file out of reach, for PartialApps.
func (r *Renderer) Partial(app string) {
	r.mu.Lock()
	if r.partial == nil {
		r.partial = map[string]bool{}
	}
	r.partial[app] = true
	r.mu.Unlock()
}

// Unrendered returns the names of the pinned charts that were not
// rendered, sorted, by why (NoLock, NotLocked or Missing); none when every
// one was.
func (r *Renderer) Unrendered() map[Status][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[Status][]string{}
	for _, name := range slices.Sorted(maps.Keys(r.missing)) {
		out[r.missing[name]] = append(out[r.missing[name]], name)
	}
	return out
}

// PartialApps returns the Applications (environment/name) whose chart
// was rendered without a value file out of reach, sorted.
func (r *Renderer) PartialApps() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.partial))
}

// Record keeps the render of an Application's source, for the commands
// that show it (explain, diff, preview -manifests), where KeepRenders
// asks for it.
func (r *Renderer) Record(a App) {
	if !r.KeepRenders {
		return
	}
	r.mu.Lock()
	r.apps = append(r.apps, a)
	r.mu.Unlock()
}

// Apps are the recorded renders, sorted by environment, namespace, name
// and source: none unless KeepRenders.
func (r *Renderer) Apps() []App {
	r.mu.Lock()
	defer r.mu.Unlock()
	apps := slices.Clone(r.apps)
	slices.SortFunc(apps, func(a, b App) int {
		return strings.Compare(a.Env+"\x00"+a.Namespace+"\x00"+a.Name+"\x00"+a.Source, b.Env+"\x00"+b.Namespace+"\x00"+b.Name+"\x00"+b.Source)
	})
	return apps
}

// A cached outcome (cache.ChartRender: change its version whenever Render
// or Outcome changes) is its layout, a line naming what it describes
// (Helm's version, the chart's digest and the request's) and the outcome
// in binary form (appendOutcome). Its bytes are the Cache's to keep whole
// (the CLI's store checks a digest of every entry, the pack's included).
func entryHead(digest, reqDigest string) string {
	return cache.ChartRender.Layout() + HelmVersion + " " + digest + " " + reqDigest + "\n"
}

func (r *Renderer) render(digest string, chart func() (*Chart, error), req Request) *Outcome {
	reqDigest := requestDigest(req)
	key := cache.ChartRender.Key(HelmVersion, digest, reqDigest)
	o := entryOf(r, &r.outcomes, key, func() *rendered { return &rendered{} })
	o.once.Do(func() {
		if r.Cache != nil {
			if out, entry, packed := r.cached(key, entryHead(digest, reqDigest)); out != nil {
				o.out, o.entry = out, entry
				if !packed {
					r.markUnpacked()
				}
				return
			}
		}
		ch, err := chart()
		if err != nil {
			o.out = &Outcome{Error: err.Error()}
			return
		}
		o.out = Render(ch, req)
		if r.Cache != nil && !o.out.transient {
			if body, ok := appendOutcome([]byte(entryHead(digest, reqDigest)), o.out); ok {
				o.entry = body
				r.Cache.Put(key, o.entry)
				r.markUnpacked()
			}
		}
	})
	return o.out
}

// entryOf returns the entry of key in *m, under r.mu, adding a new one
// where there is none.
func entryOf[T any](r *Renderer, m *map[string]*T, key string, fresh func() *T) *T {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *m == nil {
		*m = map[string]*T{}
	}
	e := (*m)[key]
	if e == nil {
		e = fresh()
		(*m)[key] = e
	}
	return e
}

func (r *Renderer) markUnpacked() {
	r.mu.Lock()
	r.unpacked = true
	r.mu.Unlock()
}

// requestDigest is the digest of every field of req, each written with
// its length (a list with its count), so that two requests share one only
// if they are the same: the key of a render's outcome. It is written
// field by field into one buffer, hashed once, rather than as JSON, which
// encodes a valuesObject in base64 for every Helm source of every
// Application; TestRequestDigestCoversEveryField fails when a field is
// added to Request and not here.
func requestDigest(req Request) string {
	var buf [1024]byte
	b := buf[:0]
	count := func(c int) { b = binary.AppendUvarint(b, uint64(c)) }
	str := func(s string) { count(len(s)); b = append(b, s...) }
	bytes := func(d []byte) { count(len(d)); b = append(b, d...) }
	flag := func(f bool) {
		if f {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str(req.Release)
	str(req.Namespace)
	str(req.KubeVersion)
	count(len(req.APIVersions))
	for _, v := range req.APIVersions {
		str(v)
	}
	count(len(req.ValueFiles))
	for _, f := range req.ValueFiles {
		str(f.Name)
		bytes(f.Data)
	}
	bytes(req.ValuesObject)
	count(len(req.Parameters))
	for _, p := range req.Parameters {
		str(p.Name)
		str(p.Value)
		flag(p.ForceString)
	}
	flag(req.SkipCRDs)
	flag(req.SkipSchemaValidation)
	flag(req.SkipTests)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
