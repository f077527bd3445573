package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// cases is how many cases each rule family generates: at least 5,000
// (issue 11). CONFORMANCE_CASES raises it for a longer search.
func cases() int {
	if n, err := strconv.Atoi(os.Getenv("CONFORMANCE_CASES")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// rng is the generator of one rule family: the same seed gives the same
// cases every run (CONFORMANCE_SEED changes it).
func rng(family string) *rand.Rand {
	seed := uint64(11)
	if s, err := strconv.ParseUint(os.Getenv("CONFORMANCE_SEED"), 10, 64); err == nil {
		seed = s
	}
	var h uint64 = 14695981039346656037
	for _, c := range family {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// some is a list of 0 to max values of gen.
func some[T any](r *rand.Rand, max int, gen func() T) []T {
	var out []T
	for range r.IntN(max + 1) {
		out = append(out, gen())
	}
	return out
}

// property runs a family: gen makes a case, disagree says how platc and
// Argo CD differ on it ("" where they agree). The first disagreement is
// shrunk to a minimal reproducer (list fields lose elements while it
// still disagrees) and printed as Go.
func property[C any](t *testing.T, family string, gen func(*rand.Rand) C, disagree func(C) string) {
	t.Helper()
	r := rng(family)
	n := cases()
	for i := range n {
		c := gen(r)
		if msg := disagree(c); msg != "" {
			c = shrink(c, disagree)
			t.Fatalf("%s: case %d of %d: platc and Argo CD disagree: %s\nminimal reproducer:\n%#v", family, i, n, disagree(c), c)
		}
	}
	t.Logf("%s: %d cases, 0 disagreements", family, n)
	counted.Store(family, n)
}

// shrink removes elements of the case's list fields, one at a time, while
// the case still disagrees.
func shrink[C any](c C, disagree func(C) string) C {
	for changed := true; changed; {
		changed = false
		v := reflect.ValueOf(&c).Elem()
		if v.Kind() != reflect.Struct {
			return c
		}
		for f := range v.NumField() {
			field := v.Field(f)
			if field.Kind() != reflect.Slice {
				continue
			}
			for i := 0; i < field.Len(); i++ {
				saved := reflect.ValueOf(field.Interface())
				smaller := reflect.AppendSlice(reflect.MakeSlice(field.Type(), 0, field.Len()-1), saved.Slice(0, i))
				smaller = reflect.AppendSlice(smaller, saved.Slice(i+1, saved.Len()))
				field.Set(smaller)
				if disagree(c) != "" {
					changed = true
					i--
					continue
				}
				field.Set(saved)
			}
		}
	}
	return c
}

// URLs: schemes, scp-like SSH, hosts, paths with glob characters, case,
// ".git" and "/" at the end, spaces.
func genURL(r *rand.Rand) string {
	host := pick(r, "git.example.com", "GIT.Example.com", "github.com", "charts.example.io", "host:8443", "{a,b}.example.com", "[::1]", "*.example.com", "")
	var segs []string
	for range 1 + r.IntN(3) {
		segs = append(segs, pick(r, "org", "Org", "repo", "repo.git", "charts", "a b", "x%20y", "*", "**", "?epo", "{org,other}", "[ab]", "~user", "", "p.GIT"))
	}
	path := strings.Join(segs, "/")
	var u string
	switch r.IntN(8) {
	case 0:
		u = "git@" + host + ":" + path
	case 1:
		u = "ssh://git@" + host + "/" + path
	case 2:
		u = "oci://" + host + "/" + path
	case 3:
		u = "http://" + host + "/" + path
	case 4:
		u = "HTTPS://" + host + "/" + path
	case 5:
		u = host + "/" + path
	default:
		u = "https://" + host + "/" + path
	}
	return u + pick(r, "", "", "/", ".git", ".git/", " ", "/.git")
}

// A sourceRepos pattern: a URL, one made of glob pieces, "*", or a denial.
func genRepoPattern(r *rand.Rand) string {
	p := genURL(r)
	switch r.IntN(10) {
	case 0:
		p = "*"
	case 1:
		p = "!*"
	case 2:
		p = "**"
	}
	if r.IntN(4) == 0 {
		p = "!" + p
	}
	return p
}

var namespaces = []string{"team-a", "team-b", "kube-system", "obs-payments", "argocd", "observability", "Team-A", "a.b", "x", "teams", ""}

func genNamespacePattern(r *rand.Rand) string {
	return pick(r,
		"team-a", "team-*", "*", "?eam-a", "{team,obs}-*", "[a-z]*", "[!k]*", "obs-*", "kube-system", "", "[", "\\",
		"/^team-.*$/", "/team/", "/^((?!kube-).)*$/", "/^[[:alpha:]-]+$/", "/(?<=obs-)pay/", `/^\p{L}+-\w$/`,
		`/^team-\d$/`, "/[/", "/", "//", "/(?i)TEAM-A/", `/\Ateam\z/`, "/^(?<t>team)-(\\k<t>|a)$/", "/a{,2}/", `/^\x74eam-a$/`,
		"/^obs-(payments|search)$/", "/.*/", "/^$/", "/^(?>team)-a$/",
		// regexp2 v2's syntax (Argo CD since v3.6.2): possessive quantifiers,
		// \Q...\E, \pL, \X, and a match past its backtracking limit.
		"/^team-[a-z]++$/", "/^[a-z]*+-a$/", `/^\Qteam-a\E$/`, `/^\pL+-\pL$/`, `/^(?i)TEAM-\X$/`, "/(){5000000}/", "/(?:){5000000}team/",
	)
}

func genDestPattern(r *rand.Rand, values ...string) string {
	v := pick(r, values...)
	switch r.IntN(8) {
	case 0:
		return "*"
	case 1:
		return "!" + v
	case 2:
		return "!*"
	case 3:
		return ""
	case 4:
		if len(v) > 3 {
			return v[:3] + "*"
		}
	case 5:
		return "!" + genNamespacePattern(r)
	}
	return v
}

// The registered clusters of the destination families; every one has a
// server and a name, as Argo CD's have.
var (
	servers = []string{"https://kubernetes.default.svc", "https://prod.example.com", "https://stage.example.com"}
	names   = []string{"in-cluster", "prod", "stage"}
)

func describe(v any) string { return fmt.Sprintf("%#v", v) }
