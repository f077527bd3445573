package manifests

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Argo CD's repo-server refuses a repository that holds a symbolic link
// whose target is outside it ("repository contains out-of-bounds
// symlinks", argo-cd util/io/path CheckOutOfBoundsSymlinks, unless it runs
// with --allow-oob-symlinks), and follows any other link. platc does the
// same for what it reads: a link that stays inside the repository is
// followed, and one that leaves it is refused with its target. An absolute
// target is outside: the repository's own place on disk is not known (and
// Argo CD clones it to a folder of its own choosing).

// maxLinks is the most links OutsideLink follows in one path, as Linux's
// MAXSYMLINKS (40).
const maxLinks = 40

// OutsideLink reports whether the slash path name of the repository fsys
// reaches outside it through a symbolic link, itself or any folder on the
// way, and returns that link and its target. Links that stay inside are
// followed; a path that does not exist, or a file system that has no
// links, is not outside.
func OutsideLink(fsys fs.FS, name string) (link, target string, outside bool) {
	_, link, target, outside = resolveLinks(fsys, name)
	return link, target, outside
}

// resolveLinks follows the symbolic links of name as OutsideLink does and
// returns the path it resolves to, which names no link (as
// filepath.EvalSymlinks does on disk), or name itself where it cannot be
// followed to the end.
func resolveLinks(fsys fs.FS, name string) (resolved, link, target string, outside bool) {
	if _, ok := fsys.(fs.ReadLinkFS); !ok || !fs.ValidPath(name) || name == "." {
		return name, "", "", false
	}
	rest := strings.Split(name, "/")
	at := "." // what the path resolves to so far, inside the repository
	for hops := 0; len(rest) > 0; {
		p := path.Join(at, rest[0])
		rest = rest[1:]
		info, err := fs.Lstat(fsys, p)
		if err != nil {
			return name, "", "", false
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			at = p
			continue
		}
		if hops++; hops > maxLinks {
			return name, "", "", false // a loop: reading it fails, and says so
		}
		t, err := fs.ReadLink(fsys, p)
		if err != nil {
			return name, "", "", false
		}
		resolved := path.Join(path.Dir(p), t)
		if path.IsAbs(t) || strings.HasPrefix(t, `\`) || resolved == ".." || strings.HasPrefix(resolved, "../") {
			return name, p, t, true
		}
		// The target may hold links of its own: walk it again.
		rest = append(strings.Split(resolved, "/"), rest...)
		at = "."
	}
	return at, "", "", false
}

// OutsideMsg says that link, a symbolic link to target, leaves the
// repository, and what to do: the end of a message that names the link.
func OutsideMsg(target string) string {
	return fmt.Sprintf("is a symbolic link to %q, outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it", target)
}
