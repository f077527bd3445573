package argocd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"
)

// RespectIgnoreDifferences is the sync option that makes a sync leave the
// fields of ignoreDifferences as the cluster has them; without it Argo CD
// ignores them in the diff only, and a sync still overwrites them.
const RespectIgnoreDifferences = "RespectIgnoreDifferences=true"

// JQProblem is the error Argo CD's diff normalizer gives a jq path
// expression, or nil: NewIgnoreNormalizer of util/argo/normalizers
// (Argo CD) parses "del(<expression>)" and compiles it with gojq.
// Where it fails, every comparison of the Application fails.
func JQProblem(expr string) error {
	q, err := gojq.Parse(fmt.Sprintf("del(%s)", expr))
	if err != nil {
		return err
	}
	_, err = gojq.Compile(q)
	return err
}

// ParseJSONPointer splits an RFC 6901 JSON pointer into its reference
// tokens, unescaped (~1 is "/", ~0 is "~"), or says why it is not one. The
// empty pointer, which names the whole object, is refused: Argo CD cannot
// remove it. Argo CD itself does not check pointers: its normalizer (a
// JSON patch "remove" of evanphx/json-patch) skips one that does not
// apply, silently, and reads a pointer without its leading "/" as a key
// of the top level, so platc requires the RFC's syntax.
func ParseJSONPointer(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, fmt.Errorf("the empty pointer names the whole object")
	case p[0] != '/':
		return nil, fmt.Errorf("a JSON pointer starts with \"/\"")
	}
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("\"~\" is an escape (~0 for \"~\", ~1 for \"/\"), not followed by 0 or 1 in %q", t)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		// evanphx/json-patch reads a list index with strconv.Atoi and
		// counts a negative one from the end: "01", "+1" and "-1" name
		// other elements than RFC 6901's (which has no such index).
		if n, err := strconv.Atoi(tokens[i]); err == nil && (n < 0 || strconv.Itoa(n) != tokens[i]) {
			return nil, fmt.Errorf("%q is not an index as RFC 6901 writes them, and Argo CD would read it as element %d of a list", tokens[i], n)
		}
	}
	return tokens, nil
}

// RetryDuration is parseStringToDuration of
// pkg/apis/application/v1alpha1/types.go (Argo CD), which reads a
// retry's backoff durations when a sync fails: a whole number of seconds
// (strconv.Atoi), or a Go duration. Where it fails, Argo CD cannot
// schedule the retry.
func RetryDuration(s string) (time.Duration, error) {
	if val, err := strconv.Atoi(s); err == nil {
		return time.Duration(val) * time.Second, nil
	} else if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	return 0, fmt.Errorf("unable to parse %s as a duration", s)
}

// Envsubst is Env.Envsubst of pkg/apis/application/v1alpha1/types.go (Argo
// CD), which the repo server applies to Helm parameters' values
// with the build environment (ARGOCD_APP_NAME and the like): os.Expand,
// "$$" a "$", an unknown variable empty. vars reports the variables a
// value names, for the check that a literal "$" is written "$$".
func Envsubst(s string, env map[string]string) (out string, vars []string) {
	out = os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		vars = append(vars, name)
		return env[name]
	})
	return out, vars
}
