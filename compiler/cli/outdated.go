package cli

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/platc/platc/compiler/charts"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/versions"
	"github.com/platc/platc/internal/cache"
)

// outdatedFlags are the flags of platc outdated, and what runs it: it
// lists, per chart and version, the environments that run it and the
// newer versions its repository offers.
func outdatedFlags(fs *flag.FlagSet) func(*call) int {
	var charts stringList
	fs.Var(&charts, "chart", "only this `chart` (repeatable)")
	offline := fs.Bool("offline", false, "read the repositories' indexes from platc's cache, not online")
	return func(c *call) int {
		repo, code := c.compileOnly()
		if repo == nil {
			return code
		}
		spec := repo.res.Spec
		for _, name := range charts {
			if msg := known("chart", name, chartNames(spec)); msg != "" {
				return c.rep.failf(diag.Usage, "-chart %s: %s", name, msg)
			}
		}
		client := cmp.Or(c.proc.httpClient, &http.Client{Timeout: 60 * time.Second})
		r := &chartRepos{client: client, offline: *offline}
		if base, ok := cacheBase(); ok {
			r.dir = filepath.Join(base, "indexes")
		}
		list := versions.FindOutdated(spec, charts, r.lookup)
		log := &diag.Log{}
		for _, o := range list {
			if o.Problem != "" {
				ch := spec.Chart(o.Name)
				log.Reportf(diag.IO, ch.At("repoURL"), ch.FieldPath("repoURL"), "the versions of %s are not known: %s", o.Name, o.Problem)
			}
		}
		switch c.format {
		case textFormat:
			versions.OutdatedText(c.stdout, list)
		case githubFormat:
			for _, o := range list {
				if len(o.Newer) == 0 {
					continue
				}
				c.rep.annotate(diag.Problem{ID: diag.Outdated, Severity: diag.Note, Pos: o.Pos, Path: o.Path, Msg: fmt.Sprintf("%s %s (%s): %s: patch %s, minor %s, latest %s", o.Name, o.Version, strings.Join(o.Environments, ", "), diag.Plural(len(o.Newer), "newer version", "newer versions"), cmp.Or(o.Patch, "-"), cmp.Or(o.Minor, "-"), cmp.Or(o.Latest, "-"))})
			}
		case jsonFormat:
			c.rep.doc.Outdated = append([]versions.Outdated{}, list...)
		}
		c.rep.log(log)
		if log.HasErrors() {
			return ExitProblems
		}
		return ExitOK
	}
}

// chartRepos reads what chart repositories offer: a classic Helm
// repository's index.yaml, an OCI registry's tag list. What it reads
// online it keeps in dir (beside platc's other caches; "" for none);
// offline, or where a repository cannot be reached, it reads that copy,
// and says so and from when.
type chartRepos struct {
	client  *http.Client
	dir     string
	offline bool
}

// Limits of what is read, against a broken or hostile server: an index
// of a large repository is tens of MiB; platc charts pull reads at most
// as much.
const (
	maxIndexSize = 64 << 20
	maxTagsPages = 100
)

func (r *chartRepos) lookup(c *model.Chart) ([]string, *versions.Source, error) {
	if c.OCI() {
		return r.tags(strings.TrimPrefix(c.OCIRef(), "oci://"))
	}
	u := strings.TrimSuffix(c.RepoURL, "/") + "/index.yaml"
	data, src, err := r.read(u, func(ctx context.Context) ([]byte, error) {
		data, _, err := r.get(ctx, u, nil)
		if err != nil {
			return nil, fmt.Errorf("%v: is %s a Helm chart repository?", err, c.RepoURL)
		}
		return data, err
	})
	if err != nil {
		return nil, nil, err
	}
	ix, err := versions.ParseIndex(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", u, err)
	}
	src.Generated = ix.Generated
	vs, ok := ix.Versions[c.Chart]
	if !ok {
		return nil, nil, fmt.Errorf("the index %s has no chart %q: is the chart's name right?", u, c.Chart)
	}
	return vs, src, nil
}

// tags lists the tags of an OCI repository (host/path), with the
// distribution API (GET /v2/<path>/tags/list, following its Link
// header), anonymously: a registry that asks for a token (WWW-Authenticate:
// Bearer) gets one from its realm. A registry on the loopback interface
// is asked over plain HTTP, as Docker and Helm do for a local registry.
func (r *chartRepos) tags(ref string) ([]string, *versions.Source, error) {
	host, repoPath, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, nil, fmt.Errorf("oci://%s names no repository", ref)
	}
	scheme := "https"
	if isLoopback(host) {
		scheme = "http"
	}
	u := scheme + "://" + host + "/v2/" + repoPath + "/tags/list"
	data, src, err := r.read(u, func(ctx context.Context) ([]byte, error) {
		var all []string
		next, auth := u, http.Header{}
		for page := 0; next != "" && page < maxTagsPages; page++ {
			body, hdr, err := r.get(ctx, next, auth)
			var challenge *authChallenge
			if errors.As(err, &challenge) && auth.Get("Authorization") == "" {
				token, terr := r.token(ctx, challenge.header, repoPath)
				if terr != nil {
					return nil, terr
				}
				auth.Set("Authorization", "Bearer "+token)
				body, hdr, err = r.get(ctx, next, auth)
			}
			if err != nil {
				return nil, err
			}
			var list struct {
				Tags []string `json:"tags"`
			}
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, fmt.Errorf("%s: not a tag list: %v", next, err)
			}
			all = append(all, list.Tags...)
			next = nextLink(next, hdr.Get("Link"))
		}
		return json.Marshal(all)
	})
	if err != nil {
		return nil, nil, err
	}
	var tags []string
	if err := json.Unmarshal(data, &tags); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", u, err)
	}
	return tags, src, nil
}

// authChallenge is a registry's 401 with what it wants.
type authChallenge struct{ header string }

func (a *authChallenge) Error() string { return "the registry asks for credentials" }

// token gets an anonymous token for pulling repo from the realm of a
// WWW-Authenticate: Bearer challenge (the distribution token spec).
func (r *chartRepos) token(ctx context.Context, challenge, repo string) (string, error) {
	params := map[string]string{}
	for _, m := range challengeParam.FindAllStringSubmatch(challenge, -1) {
		params[strings.ToLower(m[1])] = m[2]
	}
	realm := params["realm"]
	if !strings.HasPrefix(strings.ToLower(challenge), "bearer ") || realm == "" {
		return "", fmt.Errorf("the registry asks for credentials platc does not have (%s): outdated reads public registries only", challenge)
	}
	q := url.Values{}
	if s := params["service"]; s != "" {
		q.Set("service", s)
	}
	q.Set("scope", cmp.Or(params["scope"], "repository:"+repo+":pull"))
	sep := "?"
	if strings.Contains(realm, "?") {
		sep = "&"
	}
	body, _, err := r.get(ctx, realm+sep+q.Encode(), nil)
	if err != nil {
		return "", fmt.Errorf("getting a token: %v", err)
	}
	var t struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.Token == "" && t.AccessToken == "" {
		return "", fmt.Errorf("getting a token from %s: no token in the answer", realm)
	}
	return cmp.Or(t.Token, t.AccessToken), nil
}

var challengeParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// nextLink is the URL of the next page a Link header names (RFC 8288,
// as the distribution API uses it), or "".
func nextLink(base, link string) string {
	for _, part := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		ref, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		b, berr := url.Parse(base)
		if err != nil || berr != nil {
			return ""
		}
		return b.ResolveReference(ref).String()
	}
	return ""
}

func isLoopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// get reads u, at most maxIndexSize bytes. A 401 is an *authChallenge.
func (r *chartRepos) get(ctx context.Context, u string, header http.Header) ([]byte, http.Header, error) {
	data, resp, err := charts.Get(ctx, r.client, u, maxIndexSize, header)
	switch {
	case err != nil:
		return nil, nil, err
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, nil, &authChallenge{header: resp.Header.Get("WWW-Authenticate")}
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("%s: %s", u, resp.Status)
	}
	return data, resp.Header, nil
}

// read returns what fetch reads of u online, keeping a copy; offline, or
// when fetch fails, the copy kept, with the time it was read.
func (r *chartRepos) read(u string, fetch func(context.Context) ([]byte, error)) ([]byte, *versions.Source, error) {
	if !r.offline {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		data, err := fetch(ctx)
		cancel()
		if err == nil {
			now := time.Now().UTC().Format(time.RFC3339)
			r.keep(u, data, now)
			return data, &versions.Source{URL: u, Read: now}, nil
		}
		data, at, ok := r.kept(u)
		if !ok {
			return nil, nil, err
		}
		return data, &versions.Source{URL: u, Read: at, Cached: true, Unreachable: err.Error()}, nil
	}
	data, at, ok := r.kept(u)
	if !ok {
		return nil, nil, fmt.Errorf("no copy of %s in platc's cache: run platc outdated online once", u)
	}
	return data, &versions.Source{URL: u, Read: at, Cached: true}, nil
}

// An entry of the index cache (cache.ChartIndex) starts with its layout
// and a line that says when it was read, holds the digest of what
// follows, and binds it to its URL.
func (r *chartRepos) entry(u string) string {
	return filepath.Join(r.dir, cache.ChartIndex.Key(u))
}

func (r *chartRepos) keep(u string, data []byte, at string) {
	if r.dir == "" || os.MkdirAll(r.dir, 0o777) != nil {
		return
	}
	sum := sha256.Sum256(data)
	head := fmt.Sprintf("%s%s %s %s\n", cache.ChartIndex.Layout(), at, hex.EncodeToString(sum[:]), u)
	writeFile(r.dir, "index.*.tmp", r.entry(u), append([]byte(head), data...), 0)
}

// kept returns the copy of u in the cache and when it was read; a copy
// of another URL, or whose digest does not match, is none.
func (r *chartRepos) kept(u string) ([]byte, string, bool) {
	if r.dir == "" {
		return nil, "", false
	}
	data, err := os.ReadFile(r.entry(u))
	if err != nil {
		return nil, "", false
	}
	data, ok := bytes.CutPrefix(data, []byte(cache.ChartIndex.Layout()))
	line, rest, cut := bytes.Cut(data, []byte("\n"))
	fields := strings.SplitN(string(line), " ", 3)
	if !ok || !cut || len(fields) != 3 || fields[2] != u {
		return nil, "", false
	}
	sum := sha256.Sum256(rest)
	if hex.EncodeToString(sum[:]) != fields[1] {
		return nil, "", false
	}
	return rest, fields[0], true
}
