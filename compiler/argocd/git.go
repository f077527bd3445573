package argocd

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// sshURLRegex is util/git/git.go's (Argo CD).
var sshURLRegex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^(ssh://)?([^/:]*?)@[^@]+$") })

// isSSHURL is util/git.IsSSHURL (Argo CD).
func isSSHURL(u string) bool {
	return len(sshURLRegex().FindStringSubmatch(u)) > 2
}

// NormalizeGitURL is util/git.NormalizeGitURL of Argo CD, which
// AppProject.IsSourcePermitted applies to a source and to every pattern:
// lower case, no surrounding space, ".git" removed at the end (a "/" at the
// end stays), scp-like SSH (git@host:org/repo) written as a URL without
// its scheme, and the URL as net/url writes it again. It returns "" for
// what net/url cannot parse.
func NormalizeGitURL(repo string) string {
	repo = strings.ToLower(strings.TrimSpace(repo))
	if isSSHURL(repo) {
		if !strings.HasPrefix(repo, "ssh://") {
			// The first colon of git@server:... is the path's, not a
			// port: net/url would read it as one.
			repo = strings.Replace(repo, ":", "/", 1)
			repo = ensurePrefix(repo, "ssh://")
		}
	}
	repo = strings.TrimSuffix(repo, ".git")
	repoURL, err := url.Parse(repo)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(repoURL.String(), "ssh://")
}

// ensurePrefix is util/git's (Argo CD).
func ensurePrefix(s, prefix string) string {
	if !strings.HasPrefix(s, prefix) {
		s = prefix + s
	}
	return s
}
