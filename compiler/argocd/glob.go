package argocd

import (
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/gobwas/glob"
)

// pattern is one of Argo CD's glob patterns, compiled once: util/glob.Match
// of Argo CD compiles with gobwas/glob and matches nothing where the
// pattern does not compile.
type pattern struct {
	g *glob.Pattern // nil: the pattern does not compile
}

func compilePattern(p string, separators ...rune) pattern {
	g, err := glob.Compile(p, separators...)
	if err != nil {
		return pattern{}
	}
	return pattern{g: g}
}

// match is util/glob.Match (Argo CD).
func (p pattern) match(s string) bool { return p.g != nil && p.g.Match(s) }

// projectGlob is a pattern of an AppProject, as globMatch of
// pkg/apis/application/v1alpha1/app_project_types.go (Argo CD) reads
// it: with negation allowed, "!p" matches what p does not (p compiled as
// it is, so a "!" before a pattern that does not compile matches
// everything); "*" matches everything, separators or not.
type projectGlob struct {
	deny bool // "!p", with negation allowed
	all  bool // "*"
	p    pattern
}

func compileProjectGlob(p string, allowNegation bool, separators ...rune) projectGlob {
	if allowNegation && isDenyPattern(p) {
		return projectGlob{deny: true, p: compilePattern(p[1:], separators...)}
	}
	if p == "*" {
		return projectGlob{all: true}
	}
	return projectGlob{p: compilePattern(p, separators...)}
}

func (g projectGlob) match(s string) bool {
	switch {
	case g.deny:
		return !g.p.match(s)
	case g.all:
		return true
	}
	return g.p.match(s)
}

// isDenyPattern is app_project_types.go's isDenyPattern (Argo CD).
func isDenyPattern(p string) bool { return strings.HasPrefix(p, "!") }

// regexpTimeout bounds the match of one /regexp/ entry. Argo CD sets none:
// regexp2 v2 bounds a match's backtracking stack (100,000 entries by
// default, ErrBacktrackingStackLimit past it), not its time, and a pattern
// can backtrack for long within that stack. platc counts a match that
// takes longer as none, so that a check always ends; namespaces are at
// most 63 characters, so only a pathological pattern comes near it.
const regexpTimeout = 2 * time.Second

// namespaceList is a list of namespace patterns as
// util/glob.MatchStringInList(list, item, glob.REGEXP) of Argo CD
// reads it: an entry written /like this/ is a regular expression, tried
// first, matched by util/regex.Match; every entry, that one too, is also a
// glob without separators. The list is compiled once.
//
// util/regex.Match of Argo CD (since v3.6.2) compiles with
// github.com/dlclark/regexp2/v2 and its default options: .NET syntax,
// unanchored, with v2's additions (possessive quantifiers such as a++,
// \Q...\E, \R, \X, \pL), Go's simple case folding under (?i), the
// Unicode tables of the Go that builds it, and the default backtracking
// stack limit. (Argo CD's Go 1.27 has Unicode 17, platc's Go 1.26 Unicode
// 15: a namespace is a DNS label, ASCII, whose classes and case folding
// are the same in both.) A pattern that does not compile, and a
// match that fails with an error (that limit, such as (){5000000} makes
// it, or platc's timeout), match nothing: Argo CD logs a warning and
// returns false.
type namespaceList struct {
	entries []namespaceEntry
}

type namespaceEntry struct {
	regexp bool            // written /.../, with something between the slashes
	re     *regexp2.Regexp // nil: does not compile, matches nothing
	glob   pattern
}

func compileNamespaceList(list []string) namespaceList {
	out := namespaceList{entries: make([]namespaceEntry, len(list))}
	for i, ll := range list {
		e := namespaceEntry{glob: compilePattern(ll)}
		// "/" and "//" are globs only (util/glob/list.go: len(ll) > 2).
		if len(ll) > 2 && strings.HasPrefix(ll, "/") && strings.HasSuffix(ll, "/") {
			e.regexp = true
			if re, err := regexp2.Compile(ll[1 : len(ll)-1]); err == nil {
				re.MatchTimeout = regexpTimeout
				e.re = re
			}
		}
		out.entries[i] = e
	}
	return out
}

// match is MatchStringInList with glob.REGEXP.
func (l namespaceList) match(item string) bool {
	for _, e := range l.entries {
		if e.regexp && e.re != nil {
			if ok, err := e.re.MatchString(item); ok && err == nil {
				return true
			}
		}
		if e.glob.match(item) {
			return true
		}
	}
	return false
}

// IncludeMatcher returns the match of a directory source's include (or
// exclude) pattern against a file's path relative to the source's folder,
// compiled once: the repo server of Argo CD matches it with
// util/glob.Match, without separators (getPotentiallyValidManifestFile,
// reposerver/repository/repository.go).
func IncludeMatcher(include string) func(relPath string) bool {
	return compilePattern(include).match
}

// matchWithError is util/glob.MatchWithError (Argo CD): a pattern
// that does not compile is an error, not a mismatch.
func matchWithError(p, s string) (bool, error) {
	g, err := glob.Compile(p)
	if err != nil {
		return false, err
	}
	return g.Match(s), nil
}
