package deliver

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A Repo is a local Git repository that stands in for a remote one:
// Argo CD reads it by its file:// URL, where platc's output names URL.
type Repo struct {
	// URL is the repository's URL as the spec and the rendered output
	// name it.
	URL string
	// Dir is its work tree, which Publish fills.
	Dir string
	// Work, for a client's repository, is its work copy: what a test
	// edits, and Publish commits.
	Work string
}

// FileURL is the URL Argo CD reads the repository by.
func (r *Repo) FileURL() string { return "file://" + r.Dir }

// NewRepo makes an empty Git repository in dir that stands in for url.
func NewRepo(dir, url string) (*Repo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &Repo{URL: url, Dir: dir}
	if _, err := r.git("init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	return r, nil
}

// git runs git in the repository, as a fixed author, with no system or
// user configuration.
func (r *Repo) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=platc e2e", "GIT_AUTHOR_EMAIL=e2e@platc.invalid",
		"GIT_COMMITTER_NAME=platc e2e", "GIT_COMMITTER_EMAIL=e2e@platc.invalid",
	)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), r.Dir, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Commit commits the work tree as it is and returns the commit: HEAD
// as it was where nothing changed, but for the first commit, which may
// be empty.
func (r *Repo) Commit(message string) (string, error) {
	if _, err := r.git("add", "-A"); err != nil {
		return "", err
	}
	status, err := r.git("status", "--porcelain")
	if err != nil {
		return "", err
	}
	if _, err := r.git("rev-parse", "-q", "--verify", "HEAD"); status == "" && err == nil {
		return r.git("rev-parse", "HEAD")
	}
	if _, err := r.git("commit", "-q", "--allow-empty", "-m", message); err != nil {
		return "", err
	}
	return r.git("rev-parse", "HEAD")
}

// Tag tags HEAD (an annotated tag, as a release is).
func (r *Repo) Tag(name string) error {
	_, err := r.git("tag", "-a", "-m", name, name)
	return err
}

// Follow makes the branch rev name HEAD's commit, where rev is a branch
// (not HEAD, a tag or a commit): an environment or a client that follows a
// branch gets each commit.
func (r *Repo) Follow(rev string) error {
	if rev == "" || rev == "HEAD" || rev == "main" || releaseTag.MatchString(rev) || commitID.MatchString(rev) {
		return nil
	}
	if _, err := r.git("rev-parse", "-q", "--verify", "refs/tags/"+rev); err == nil {
		return nil
	}
	_, err := r.git("branch", "-f", rev, "HEAD")
	return err
}

var (
	releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+`)
	commitID   = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// Head is the commit HEAD names.
func (r *Repo) Head() (string, error) { return r.git("rev-parse", "HEAD") }

// Resolve is the commit a revision names.
func (r *Repo) Resolve(rev string) (string, error) { return r.git("rev-parse", rev+"^{commit}") }

// copyTree copies the files of src into dst, replacing dst's: the files Git
// tracks or would track (a work tree's ignored files stay out), or every
// file of a folder that is no Git work tree; never .git. Each file for
// which rewrite is set is passed through it.
func copyTree(src, dst string, rewrite func(rel string, data []byte) []byte) error {
	files, err := treeFiles(src)
	if err != nil {
		return err
	}
	// The old tree goes, but for .git: a file removed from src is
	// removed from the repository.
	entries, _ := os.ReadDir(dst)
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
	}
	for _, rel := range files {
		from := filepath.Join(src, rel)
		fi, err := os.Lstat(from)
		if err != nil {
			if os.IsNotExist(err) {
				continue // tracked, deleted in the work tree
			}
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(from)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if rewrite != nil {
			data = rewrite(filepath.ToSlash(rel), data)
		}
		if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// treeFiles are the files of a folder, relative to it: those Git tracks or
// would track where the folder is in a Git work tree, else every file.
func treeFiles(src string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = src
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, filepath.FromSlash(f))
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(src, path)
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}
