// Package release moves the pinned (customer) environments to a new
// release tag, editing the revision literals in place so formatting and
// comments stay, and checks that a spec pins a given tag (for CI on a tag
// push). verify checks the pinned render's coherence. It returns edited
// contents and writes nothing.
package release

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"golang.org/x/mod/semver"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// Move is one environment's pin moved.
type Move struct {
	Env      string
	From, To string
	Pos      diag.Pos // where the revision is written
}

// Pin moves the revision of the named pinned environments (every pinned
// environment when envs is empty) to tag. It returns the edited spec files
// by path, and what moved; problems go to log.
func Pin(fsys fs.FS, spec *model.Spec, tag string, envs []string, log *diag.Log) (map[string][]byte, []Move) {
	if !model.IsReleaseTag(tag) {
		log.Reportf(diag.Release, diag.Pos{}, "", "%q is not a release tag: use vMAJOR.MINOR.PATCH, such as v1.2.3", tag)
		return nil, nil
	}
	files := map[string][]byte{}
	var moves []Move
	for _, name := range envs {
		if spec.Environment(name) == nil {
			log.Reportf(diag.UnknownName, diag.Pos{}, "", "unknown environment %q", name)
		}
	}
	for _, env := range spec.Environments {
		if len(envs) > 0 && !slices.Contains(envs, env.Name) {
			continue
		}
		if !env.Pinned {
			if len(envs) > 0 {
				log.Reportf(diag.Release, env.Pos, env.Path, "environment %s is not pinned: a release moves pinned environments only; set pinned: true first", env.Name)
			}
			continue
		}
		pos := env.At("revision")
		switch {
		case model.IsReleaseTag(env.Revision) && semver.Compare(tag, env.Revision) <= 0:
			log.Reportf(diag.Release, pos, env.FieldPath("revision"), "%s is not newer than the current pin %s: a release moves forward", tag, env.Revision)
			continue
		case !pos.IsValid() || pos.Line == 0:
			log.Reportf(diag.SpecEdit, env.Pos, env.FieldPath("revision"), "the revision is not written in a spec file: write it as a string literal to release with platc")
			continue
		}
		data, ok := files[pos.File]
		if !ok {
			var err error
			if data, err = fs.ReadFile(fsys, pos.File); err != nil {
				log.Reportf(diag.IO, pos, env.FieldPath("revision"), "reading the spec: %v", err)
				continue
			}
		}
		edited, err := replaceLiteral(data, pos, env.Revision, tag)
		if err != nil {
			log.Reportf(diag.SpecEdit, pos, env.FieldPath("revision"), "%v: write it as a string literal to release with platc, or edit it by hand", err)
			continue
		}
		files[pos.File] = edited
		moves = append(moves, Move{Env: env.Name, From: env.Revision, To: tag, Pos: pos})
	}
	if len(moves) == 0 && !log.HasErrors() {
		log.Reportf(diag.Release, diag.Pos{}, "", "no pinned environment to release: mark a customer environment pinned: true")
	}
	return files, moves
}

// replaceLiteral replaces the string literal at pos (line and column,
// 1-based, in bytes), which must be old quoted, with new quoted.
func replaceLiteral(data []byte, pos diag.Pos, old, new string) ([]byte, error) {
	off, err := literalOffset(data, pos, old)
	if err != nil {
		return nil, fmt.Errorf("the revision is not the literal %s here", strconv.Quote(old))
	}
	out := make([]byte, 0, len(data)+len(new)-len(old))
	out = append(out, data[:off]...)
	out = append(out, strconv.Quote(new)...)
	return append(out, data[off+len(strconv.Quote(old)):]...), nil
}

// CheckTag reports every pinned environment that does not pin tag: for CI
// on a tag push, the render at that commit must be that release.
func CheckTag(spec *model.Spec, tag string, log *diag.Log) {
	pinned := 0
	for _, env := range spec.Environments {
		if !env.Pinned {
			continue
		}
		pinned++
		if env.Revision != tag {
			log.Reportf(diag.Release, env.At("revision"), env.FieldPath("revision"), "pinned environment %s is at %q, not at the tag %s being released: run platc release %s and commit the render", env.Name, env.Revision, tag, tag)
		}
	}
	if pinned == 0 {
		log.Reportf(diag.Release, diag.Pos{}, "", "no pinned environment pins %s: mark a customer environment pinned: true", tag)
	}
}
