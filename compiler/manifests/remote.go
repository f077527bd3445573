package manifests

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/diag"
)

// Kustomize fetches what a kustomization names remotely: a file with an
// http(s) URL over HTTP, and a base, component or plugin configuration
// folder with a git URL by running git. platc builds offline, so repoFS
// refuses to hand kustomize a file that names one, and Build reports the
// reference instead. Every such name comes from a file kustomize reads
// through repoFS (a kustomization, or a builtin plugin configuration, which
// may be inline in a kustomization or in a file it names), so checking what
// those files hold before kustomize sees them is enough.
//
// A kustomization that names a local path outside the repository (absolute,
// or above the repository's root) is refused the same way, in platc's
// words rather than as the file kustomize does not find: repoFS shows
// kustomize nothing outside the repository.

// errRemote is what repoFS answers for a file that names a remote
// reference, or a path outside the repository.
var errRemote = errors.New("names a remote reference or a path outside the repository, which platc does not read")

// pathKeys are the fields of a kustomization and of builtin plugin
// configurations whose values kustomize loads as files or folders.
var pathKeys = map[string]bool{
	"resources": true, "bases": true, "components": true, "crds": true,
	"configurations": true, "generators": true, "transformers": true, "validators": true,
	"patchesStrategicMerge": true, "paths": true, "path": true,
	"files": true, "envs": true, "env": true,
	"valuesFile": true, "additionalValuesFiles": true, "targetFilePath": true,
}

// folderKeys are the fields kustomize may load as a folder, and so clone
// as a git repository.
var folderKeys = map[string]bool{
	"resources": true, "bases": true, "components": true,
	"generators": true, "transformers": true, "validators": true,
}

// inlineKeys are the fields whose values may be plugin configurations
// written inline.
var inlineKeys = map[string]bool{"generators": true, "transformers": true, "validators": true}

// remoteRefs reports the remote references in file (a repository path) that
// kustomize would fetch, in a kustomization or in a builtin plugin
// configuration (apiVersion: builtin), and the local paths outside the
// repository a kustomization names. Unparsable YAML yields none:
// kustomize fails on it without fetching anything.
func remoteRefs(file string, data []byte) []Problem {
	kustomization := IsKustomization(path.Base(file))
	if !kustomization && !bytes.Contains(data, []byte("builtin")) {
		return nil
	}
	var found []Problem
	scanDocs(file, 0, data, kustomization, &found)
	return found
}

// scanDocs scans the documents of data: all of them when all is set, else
// the builtin plugin configurations. line, when not 0, is the line to blame
// for what is found (that of an inline configuration).
func scanDocs(file string, line int, data []byte, all bool, found *[]Problem) {
	for doc, err := range Documents(data) {
		if err != nil || len(doc.Content) == 0 {
			continue
		}
		n := resolve(doc.Content[0])
		if n.Kind == yaml.MappingNode && (all || str(lookup(n, "apiVersion")) == "builtin") {
			scanNode(file, line, n, found)
		}
	}
}

func scanNode(file string, line int, n *yaml.Node, found *[]Problem) {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, v := n.Content[i].Value, resolve(n.Content[i+1])
			if pathKeys[key] {
				values := []*yaml.Node{v}
				if v.Kind == yaml.SequenceNode {
					values = v.Content
				}
				for _, s := range values {
					if s = resolve(s); s.Kind == yaml.ScalarNode {
						scanValue(file, cmp.Or(line, s.Line), key, s.Value, found)
					}
				}
			}
			scanNode(file, line, v, found)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			scanNode(file, line, item, found)
		}
	}
}

func scanValue(file string, line int, key, value string, found *[]Problem) {
	if inlineKeys[key] {
		var inline yaml.Node
		if yaml.Unmarshal([]byte(value), &inline) == nil && len(inline.Content) > 0 && resolve(inline.Content[0]).Kind == yaml.MappingNode {
			scanDocs(file, line, []byte(value), true, found)
			return
		}
	}
	refs := []string{value}
	if _, p, ok := strings.Cut(value, "="); ok && key == "files" {
		refs = append(refs, p) // files: [key=path]
	}
	for _, ref := range refs {
		switch {
		case remoteFile(ref) || folderKeys[key] && remoteRepo(ref):
			fix := "pin it to a tag or commit, or vendor it into the repository"
			if strings.Contains(ref, "ref=") || strings.Contains(ref, "/releases/download/") {
				fix = "vendor it into the repository to have them checked"
			}
			*found = append(*found, Problem{ID: diag.RemoteBase, File: file, Line: line, Msg: fmt.Sprintf("%s entry %q is remote: Argo CD's kustomize fetches it at every sync, and platc, which builds offline, does not, so the folder's objects are not checked; %s", key, ref, fix)})
		case IsKustomization(path.Base(file)) && outsideRepo(file, ref):
			*found = append(*found, Problem{ID: diag.Path, File: file, Line: line, Msg: fmt.Sprintf("%s entry %q is outside the repository: Argo CD builds a kustomization from the repository alone, and platc reads nothing outside it; move what it names into the repository", key, ref)})
		}
	}
}

// outsideRepo reports whether ref, a local path a kustomization file names
// (relative to the kustomization's folder), is outside the repository:
// absolute, or above its root.
func outsideRepo(file, ref string) bool {
	if path.IsAbs(ref) || filepath.IsAbs(ref) || strings.HasPrefix(ref, `\`) {
		return true
	}
	p := path.Join(path.Dir(file), filepath.ToSlash(ref))
	return p == ".." || strings.HasPrefix(p, "../")
}

// remoteFile reports whether kustomize loads ref over HTTP (its
// loader.IsRemoteFile).
func remoteFile(ref string) bool {
	u, err := url.Parse(ref)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

var scpUser = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`) })

// remoteRepo reports whether kustomize may take ref for a git repository
// to clone: a superset of what its git.NewRepoSpecFromURL accepts (an
// optional git:: prefix, then an ssh, https, http or file URL, a user@ of
// an scp-like URL, or github.com).
func remoteRepo(ref string) bool {
	if filepath.IsAbs(ref) {
		return false
	}
	lower := strings.TrimPrefix(strings.ToLower(ref), "git::")
	return slices.ContainsFunc([]string{"ssh://", "https://", "http://", "file://", "github.com/", "github.com:"}, func(prefix string) bool {
		return strings.HasPrefix(lower, prefix)
	}) || scpUser().MatchString(lower)
}
