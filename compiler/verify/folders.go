package verify

import (
	"io/fs"
	"slices"
	"sync"

	"github.com/platc/platc/compiler/manifests"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/internal/cache"
)

// Folders are the repo-path modules' folders, built (kustomize, or plain
// manifests) once each, for the checks of what they deploy. Building them
// needs only the spec and the repository, so Compile starts it as soon as
// the spec is checked: kustomize then runs while the stacks compile and
// the environments render.
type Folders struct {
	repo  fs.FS
	cache cache.Cache
	mu    sync.Mutex
	dirs  map[string]func() manifests.Built
}

// NewFolders returns the folders of repo, each built on first use. cache,
// if not nil, keeps their outcomes between runs (cache.Cache).
func NewFolders(repo fs.FS, cache cache.Cache) *Folders {
	return &Folders{repo: repo, cache: cache, dirs: map[string]func() manifests.Built{}}
}

// BuildFolders is NewFolders, and starts building the folders of spec's
// repo-path modules in parallel at once; Verify waits for what it reads.
func BuildFolders(spec *model.Spec, repo fs.FS, cache cache.Cache) *Folders {
	f := NewFolders(repo, cache)
	var dirs []string
	for _, m := range spec.Modules {
		for _, dir := range m.RepoFolders(spec) {
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
	}
	go object.Parallel(len(dirs), func(i int) { f.build(dirs[i]) })
	return f
}

// build returns what building the folder dir gives, building it on the
// first call; other calls for dir wait for that one.
func (f *Folders) build(dir string) manifests.Built {
	f.mu.Lock()
	b := f.dirs[dir]
	if b == nil {
		b = sync.OnceValue(func() manifests.Built { return manifests.BuildRead(f.repo, dir, f.cache) })
		f.dirs[dir] = b
	}
	f.mu.Unlock()
	return b()
}

// Read returns the folders of the repository that building the folder
// dir read (manifests.Built.Folders), building it if no build has; false
// where they are not known. Render sets them as the refresh paths of the
// Applications that sync a kustomization.
func (f *Folders) Read(dir string) ([]string, bool) {
	b := f.build(dir)
	return b.Folders, b.Folders != nil
}
