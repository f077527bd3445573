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

// Folders are the repo-path modules' folders, each built once (kustomize
// or plain manifests) for the checks. Building needs only the spec and the
// repository, so Compile starts it early and kustomize runs while the
// stacks compile and the environments render.
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

// BuildFolders is NewFolders, and starts building spec's folders in
// parallel; Verify waits for what it reads.
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

// build returns the build of dir, building on the first call; other calls
// wait for it.
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

// Read returns the folders that building dir read (manifests.Built.Folders),
// building it if needed; false where unknown. Render uses them as refresh
// paths of Applications that sync a kustomization.
func (f *Folders) Read(dir string) ([]string, bool) {
	b := f.build(dir)
	return b.Folders, b.Folders != nil
}
