package argocd

import (
	"bytes"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
)

// What Argo CD's repo server does with a source's options, for the
// direct-apply plan, which must do the same with helm and kubectl.

// HelmSetValue is cleanSetParameters of util/helm/cmd.go (Argo CD):
// the value of a parameter as Argo CD passes it to helm --set or
// --set-string, each "," escaped (Helm would split the value there) unless
// it is escaped already or the value is a list "{a,b}".
func HelmSetValue(val string) string {
	if strings.HasPrefix(val, "{") && strings.HasSuffix(val, "}") {
		return val
	}
	var b strings.Builder
	var prev rune
	for _, r := range val {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// manifestFile and skipFileRenderingMarker are reposerver/repository's
// (Argo CD).
var manifestFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^.*\.(yaml|yml|json|jsonnet)$`) })

const skipFileRenderingMarker = "+argocd:skip-file-rendering"

// DirectoryFiles are the files of a directory source that Argo CD reads
// (getPotentiallyValidManifests of reposerver/repository/repository.go,
// Argo CD), as paths relative to the repository root: the folder's
// .yaml, .yml and .json files (and sub-folders' with recurse), those that
// exclude does not match and include does (globs of the path relative to
// the folder), without the skip marker. Symbolic links and jsonnet, which
// platc does not follow, are left out.
func DirectoryFiles(fsys fs.FS, dir string, recurse bool, include, exclude string) []string {
	var out []string
	excluded, included := IncludeMatcher(exclude), IncludeMatcher(include)
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && !recurse {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if !manifestFile().MatchString(d.Name()) || path.Ext(d.Name()) == ".jsonnet" || !d.Type().IsRegular() {
			return nil
		}
		if (exclude != "" && excluded(rel)) || (include != "" && !included(rel)) {
			return nil
		}
		if data, err := fs.ReadFile(fsys, p); err != nil || bytes.Contains(data, []byte(skipFileRenderingMarker)) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	return out
}

// Image is a kustomize image override as "kustomize edit set image" reads
// one: "name=newName:tag", "name=newName@digest", "name:tag",
// "name@digest" (a tag is after the last "/").
type Image struct {
	Name, NewName, NewTag, Digest string
}

// ParseImage reads an image override.
func ParseImage(s string) Image {
	var img Image
	name, repl, renamed := strings.Cut(s, "=")
	img.Name = name
	ref := repl
	if !renamed {
		ref = s
	}
	if i := strings.Index(ref, "@"); i >= 0 {
		ref, img.Digest = ref[:i], ref[i+1:]
	} else if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref, img.NewTag = ref[:i], ref[i+1:]
	}
	if renamed {
		img.NewName = ref
	} else {
		img.Name = ref
	}
	return img
}
