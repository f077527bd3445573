package verify

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
)

// secretKeys are key endings (lower case, without '_', '-' and '.') that
// name a credential, longest first, and what to call it; a literal string
// under one is a secret in Git.
var secretKeys = []struct{ suffix, what string }{
	{"secretaccesskey", "a secret access key"},
	{"clientsecret", "a client secret"},
	{"accesskeyid", "an access key id"},
	{"privatekey", "a private key"},
	{"accesskey", "an access key"},
	{"secretkey", "a secret key"},
	{"masterkey", "a master key"},
	{"password", "a password"},
	{"passwd", "a password"},
	{"apikey", "an API key"},
	{"secret", "a secret"},
	{"token", "a token"},
}

// nameKeys are key endings that name where a credential is (a Secret, a
// key in it), not the credential.
var nameKeys = []string{"existingsecret", "fromsecret", "secretname", "secretref", "secretkeyref", "usesecret", "passwordkey", "tokenkey", "secretkeyname", "passwordsecret", "tokensecret"}

// secretValues are formats of well-known tokens, whatever the key. Like
// every pattern here it compiles on first use, not at process start.
var secretValues = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})$`)
})

// privateKey is the first line of a private key in PEM (RFC 7468: PKCS #1
// RSA, SEC 1 EC, PKCS #8, encrypted PKCS #8, OpenSSH, and an OpenPGP
// armored private key block), anywhere in a value.
var privateKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`) })

// jwt is a JSON Web Token (RFC 7519, in the JWS compact serialization of
// RFC 7515): three base64url parts, the first two JSON objects, so that
// they start "eyJ" ({"), anywhere in a value ("Bearer eyJ...").
var jwt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)
})

// urlCredentials is a URL with a user and a password (RFC 3986's userinfo,
// user:password@), anywhere in a value: a connection string, a repository
// or a webhook URL. The password is group 2.
var urlCredentials = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://([^\s/?#@:]*):([^\s/?#]*)@[^\s/?#@]+`)
})

// references are values that point to a credential rather than hold it:
// environment variables (${X}, os.environ/X, Grafana's $__env{X}),
// templates, kro's placeholders, and Argo CD's Secret key references
// ($key, $secret-name:key).
var references = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\$\{.*\}|os\.environ/.*|\$__env\{.*\}|\{\{.*\}\}|<from the cluster: .*>|\$[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?)$`)
})

// nameSuffixes are the secretKeys suffixes of keys that name a Secret or
// a key in one as often as they hold a credential: tlsSecret,
// imagePullSecret, existingSecretKey, an ExternalSecret's secretKey.
// Under them, the value decides (secretName).
var nameSuffixes = []string{"secret", "secretkey"}

// secretName reports whether s is written as the name of a Secret or of
// a key in one (web-tls, db-password, AWS_SECRET_ACCESS_KEY) rather than
// as a credential: letters and digits joined by '-', '_' or '.', where no
// part of more than four characters mixes letters and digits (hunter2,
// minio123 and s3cr3t-t0ken are credentials), and no other character
// ('/', '+', '=', ... of random and base64 strings).
func secretName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		letters, digits := false, false
		for _, r := range part {
			switch {
			case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
				letters = true
			case '0' <= r && r <= '9':
				digits = true
			default:
				return false
			}
		}
		if letters && digits && len(part) > 4 {
			return false
		}
	}
	first, last := s[0], s[len(s)-1]
	return first != '-' && first != '_' && first != '.' && last != '-' && last != '_' && last != '.'
}

// placeholders are what a password in a URL is when it is not one: a
// reference (${DB_PASSWORD}, $(DB_PASSWORD), $DB_PASSWORD, {{ .Values.x }},
// %s), a mark to fill in (<password>, ****, xxx, ...), or the word itself.
var placeholders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(|\$\{.*\}|\$\(.*\)|\$[A-Z_][A-Z0-9_]*|\{\{.*\}\}|%[-+#0-9.]*[sv]|%\(.*\)s|<.*>|\[.*\]|\*+|x+|\.+|_+|-+|password|passwd|pass|pwd|secret|token)$`)
})

// passwordInURL returns the first URL in s that holds a password, with the
// password masked, or "".
func passwordInURL(s string) string {
	if !strings.Contains(s, "://") {
		return "" // most values: no need for the regular expression
	}
	for _, m := range urlCredentials().FindAllStringSubmatchIndex(s, -1) {
		password := s[m[4]:m[5]]
		if placeholders().MatchString(password) || references().MatchString(password) {
			continue
		}
		return s[m[0]:m[4]] + "****" + s[m[5]:m[1]]
	}
	return ""
}

// credentialIn says which well-known credential s holds, whatever its
// key, or "".
func credentialIn(s string) string {
	switch {
	case secretValues().MatchString(s):
		return "a credential (" + s[:4] + "...)"
	case strings.Contains(s, "PRIVATE KEY") && privateKey().MatchString(s):
		return "a private key (" + privateKey().FindString(s) + ")"
	case strings.Contains(s, "eyJ") && jwt().MatchString(s):
		return "a JSON Web Token (eyJ...)"
	}
	if u := passwordInURL(s); u != "" {
		return "a password in a URL (" + u + ")"
	}
	return ""
}

// keySeparators drops the separators of a key, so that db_password,
// db-password and dbPassword compare alike.
var keySeparators = strings.NewReplacer("_", "", "-", "", ".", "")

// literalSecret says what credential v under key looks like, or "": a
// well-known format under any key, or any string under a credential key,
// unless the key names a location (nameKeys) or the value reads as a name
// under a key that may name a Secret (nameSuffixes).
func literalSecret(key string, v any) string {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" || references().MatchString(s) {
		return ""
	}
	if what := credentialIn(s); what != "" {
		return what
	}
	k := keySeparators.Replace(strings.ToLower(key))
	if slices.ContainsFunc(nameKeys, func(n string) bool { return strings.HasSuffix(k, n) }) {
		return ""
	}
	for _, sk := range secretKeys {
		if strings.HasSuffix(k, sk.suffix) {
			if slices.Contains(nameSuffixes, sk.suffix) && secretName(s) {
				return "" // the name of a Secret, or of a key in one
			}
			return sk.what
		}
	}
	return ""
}

const secretFix = "anyone who can read the repository has it; keep it in a Secret and point the chart at it (existingSecret, secretKeyRef), or add allow: literal-secret: \"<reason>\""

// secrets is the lint that no values layer holds a literal credential: the
// platform's values (module, environment, stack module) and clients' files;
// and that no repository URL holds a password.
func (v *verifier) secrets() {
	spec := v.in.Spec
	v.repositoryPasswords()
	for _, m := range spec.Modules {
		if _, ok := m.Allow[model.LintLiteralSecret]; ok {
			continue
		}
		v.valueSecrets(m.FieldPath("values"), m.Values, "to the module")
		for _, env := range spec.Environments {
			if s := env.Settings[m.Name]; s != nil {
				v.valueSecrets(s.FieldPath("values"), s.Values, "to module "+m.Name)
			}
		}
	}
	for _, st := range spec.Stacks {
		for _, m := range st.Modules {
			if _, ok := m.Allow[model.LintLiteralSecret]; !ok {
				v.valueSecrets(m.FieldPath("values"), m.Values, "to the stack module")
			}
		}
	}
	if v.in.Layers == nil {
		return
	}
	for _, f := range v.in.Layers.Files() {
		if _, ok := f.Client.Allow[model.LintLiteralSecret]; ok {
			continue
		}
		f.Leaves(func(labels []string, value any, pos diag.Pos) {
			if len(labels) == 0 {
				return
			}
			if what := literalSecret(labels[len(labels)-1], value); what != "" {
				v.log.Reportf(diag.LiteralSecret, pos, strings.Join(labels, "."), "%s written as a value: %s (to client %s)", what, secretFix, f.Client.Name)
			}
		})
	}
}

// valueSecrets reports the literal credentials in values, found at
// specPath.
func (v *verifier) valueSecrets(specPath string, values map[string]any, to string) {
	// at is the path from values to the current value, made a spec path
	// only to report.
	type step struct {
		key   string
		index int // -1 for a key
	}
	var at []step
	where := func() string {
		p := specPath
		for _, s := range at {
			if s.index < 0 {
				p = diag.JoinPath(p, s.key)
			} else {
				p = fmt.Sprintf("%s[%d]", p, s.index)
			}
		}
		return p
	}
	var walk func(key string, x any)
	walk = func(key string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				at = append(at, step{key: k, index: -1})
				walk(k, x[k])
				at = at[:len(at)-1]
			}
		case []any:
			for i, item := range x {
				at = append(at, step{index: i})
				// An env list ({name: DB_PASSWORD, value: ...}) names its
				// values in name.
				if m, ok := item.(map[string]any); ok {
					if name, ok := m["name"].(string); ok {
						if what := literalSecret(name, m["value"]); what != "" {
							v.reportf(diag.LiteralSecret, diag.JoinPath(where(), "value"), "%s (%s) written as a value: %s (%s)", what, name, secretFix, to)
						}
					}
				}
				walk(key, item)
				at = at[:len(at)-1]
			}
		default:
			if what := literalSecret(key, x); what != "" {
				v.reportf(diag.LiteralSecret, where(), "%s written as a value: %s (%s)", what, secretFix, to)
			}
		}
	}
	walk("", values)
}

const repoURLFix = "anyone who can read the repository has it, and Argo CD shows its sources' URLs; give Argo CD the credentials in a repository Secret (argocd repo add) and remove them from the URL"

// repositoryPasswords is the lint that no repository URL of the spec holds
// a password: platc renders them into Applications, which Argo CD shows to
// anyone who may read them.
func (v *verifier) repositoryPasswords() {
	spec := v.in.Spec
	check := func(field, path, url string) {
		if u := passwordInURL(url); u != "" {
			v.log.Reportf(diag.LiteralSecret, spec.PosOf(field), path, "repository URL %s holds a password: %s", u, repoURLFix)
		}
	}
	check(spec.Platform.FieldPath("repoURL"), spec.Platform.FieldPath("repoURL"), spec.Platform.RepoURL)
	for _, c := range spec.Charts {
		check(c.FieldPath("repoURL"), c.FieldPath("repoURL"), c.RepoURL)
	}
	for _, c := range spec.Clients {
		if _, ok := c.Allow[model.LintLiteralSecret]; !ok {
			check(c.Values.FieldPath("repoURL"), c.Values.FieldPath("repoURL"), c.Values.RepoURL)
		}
	}
	for _, env := range spec.Environments {
		for _, p := range env.Projects {
			if _, ok := p.Allow[model.LintLiteralSecret]; ok {
				continue
			}
			for i, r := range p.SourceRepos {
				check(p.FieldPath("sourceRepos"), fmt.Sprintf("%s[%d]", p.FieldPath("sourceRepos"), i), r)
			}
		}
	}
}
