package verify

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/diag"
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

// secretValues are formats of well-known credentials, whatever the key.
var secretValues = regexp.MustCompile(`^(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})$|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// references are values that point to a credential rather than hold it.
var references = regexp.MustCompile(`^(\$\{.*\}|os\.environ/.*|\$__env\{.*\}|\{\{.*\}\}|<from the cluster: .*>)$`)

// literalSecret says what credential s under key looks like, or "".
// keySeparators drops the separators of a key, so that db_password,
// db-password and dbPassword compare alike.
var keySeparators = strings.NewReplacer("_", "", "-", "", ".", "")

func literalSecret(key string, v any) string {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" || references.MatchString(s) {
		return ""
	}
	if secretValues.MatchString(s) {
		return "a credential (" + secretValues.FindString(s)[:min(4, len(s))] + "...)"
	}
	k := keySeparators.Replace(strings.ToLower(key))
	for _, n := range nameKeys {
		if strings.HasSuffix(k, n) {
			return ""
		}
	}
	for _, sk := range secretKeys {
		if strings.HasSuffix(k, sk.suffix) {
			return sk.what
		}
	}
	return ""
}

const secretFix = "anyone who can read the repository has it; keep it in a Secret and point the chart at it (existingSecret, secretKeyRef), or add allow: literal-secret: \"<reason>\""

// secrets is the lint that no values layer holds a literal credential: the
// platform's values (module, environment, stack module) and clients' files.
func (v *verifier) secrets() {
	spec := v.in.Spec
	for _, m := range spec.Modules {
		if _, ok := m.Allow["literal-secret"]; ok {
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
			if _, ok := m.Allow["literal-secret"]; !ok {
				v.valueSecrets(m.FieldPath("values"), m.Values, "to the stack module")
			}
		}
	}
	if v.in.Layers == nil {
		return
	}
	for _, f := range v.in.Layers.Files() {
		if _, ok := f.Client.Allow["literal-secret"]; ok {
			continue
		}
		f.Leaves(func(labels []string, value any, pos diag.Pos) {
			if len(labels) == 0 {
				return
			}
			if what := literalSecret(labels[len(labels)-1], value); what != "" {
				v.log.Errorf(pos, strings.Join(labels, "."), "%s written as a value: %s (to client %s)", what, secretFix, f.Client.Name)
			}
		})
	}
}

// valueSecrets reports the literal credentials in values, found at
// specPath.
func (v *verifier) valueSecrets(specPath string, values map[string]any, to string) {
	// at is the way from values to the value walk is at: a key or a list
	// index per step. It is made a spec path only to report.
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
							v.errorf(diag.JoinPath(where(), "value"), "%s (%s) written as a value: %s (%s)", what, name, secretFix, to)
						}
					}
				}
				walk(key, item)
				at = at[:len(at)-1]
			}
		default:
			if what := literalSecret(key, x); what != "" {
				v.errorf(where(), "%s written as a value: %s (%s)", what, secretFix, to)
			}
		}
	}
	walk("", values)
}
