package cli

import (
	"io/fs"
	"path"
	"testing/fstest"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/release"
)

func runRelease(c *call, envs []string) int {
	tag := c.args[0]
	if !model.IsReleaseTag(tag) {
		return c.usagef("%q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
	}
	return editSpec(c, "release", func(spec *model.Spec) string {
		for _, env := range envs {
			if msg := known("environment", env, model.EnvNames(spec.Environments)); msg != "" {
				return "-env " + env + ": " + msg
			}
		}
		return ""
	}, func(repo *compiled, log *diag.Log) *release.Versions {
		files, moves := release.Pin(repo.root.FS(), repo.res.Spec, tag, envs, log)
		return &release.Versions{Files: files, Moves: moves}
	}, "")
}

// overlay is a repository with some files replaced: the spec as a release
// will leave it, or as import writes it. With specDir, the .cue files of
// that folder are only those of files (which may be new), as a spec
// written anew leaves it.
type overlay struct {
	fs.FS
	files   map[string][]byte
	specDir string
}

func (o overlay) Open(name string) (fs.File, error) {
	if data, ok := o.files[name]; ok {
		return fstest.MapFS{name: &fstest.MapFile{Data: data, Mode: 0o644}}.Open(name)
	}
	if o.specDir == "" {
		return o.FS.Open(name)
	}
	if path.Dir(name) == o.specDir && path.Ext(name) == ".cue" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if name != o.specDir {
		return o.FS.Open(name)
	}
	// The folder lists what the repository has there, less its .cue
	// files, and the files written.
	dir := fstest.MapFS{}
	entries, _ := fs.ReadDir(o.FS, name)
	for _, e := range entries {
		if path.Ext(e.Name()) != ".cue" {
			dir[path.Join(name, e.Name())] = &fstest.MapFile{Mode: e.Type()}
		}
	}
	for f, data := range o.files {
		if path.Dir(f) == name {
			dir[f] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
	}
	if len(dir) == 0 {
		dir[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	return dir.Open(name)
}
