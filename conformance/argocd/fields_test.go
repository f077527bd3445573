package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/argoproj/argo-cd/v3/util/sourceintegrity"
	"google.golang.org/grpc/status"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/platc/platc/compiler/argocd"
)

// The rule families of the extended Argo CD fields: a project's roles, sync
// windows and destination service accounts (ValidateProject), a window's
// time zone, the service account an Application syncs as, ignoreDifferences
// (jq paths as the diff normalizer compiles them; JSON pointers as it
// applies them), retry backoffs, Helm parameters' $ expansion, GnuPG key
// IDs, and Kubernetes' label and annotation rules.

// validateProject compares ValidateProject's first problem with Argo CD's.
// A duplicate sync window's message loses the hash Argo CD prints.
func validateProject(spec argocd.ProjectSpec, name string) string {
	got := argocd.NewProject(name, spec).ValidateProject()
	err := upstreamProject(name, spec).ValidateProject()
	switch {
	case err == nil && len(got) == 0:
		return ""
	case err == nil:
		return fmt.Sprintf("platc refuses (%s), Argo CD accepts", got[0].Message)
	case len(got) == 0:
		return "platc accepts, Argo CD refuses: " + err.Error()
	}
	want := windowHash.ReplaceAllString(status.Convert(err).Message(), "")
	if got[0].Message != want {
		return fmt.Sprintf("platc %q, Argo CD %q", got[0].Message, want)
	}
	return ""
}

var windowHash = regexp.MustCompile(` \(hash=\d+, duplicate detected\)$`)

func TestValidateProjectRoles(t *testing.T) {
	type c struct {
		Project string
		Roles   []argocd.Role
	}
	projects := []string{"customer", "ai-platform", "a.b", "p"}
	gen := func(r *rand.Rand) c {
		x := c{Project: pick(r, projects...)}
		roleNames := []string{"ops", "read-only", "release_managers", "-bad", "bad-", "a", "", "a b", "x.y", "Ops9"}
		x.Roles = some(r, 3, func() argocd.Role {
			role := argocd.Role{Name: pick(r, roleNames...)}
			role.Policies = some(r, 3, func() string { return genPolicy(r, x.Project, role.Name) })
			role.Groups = some(r, 3, func() string {
				return pick(r, "customer:operators", "ops", "\"a,b\"", "a,b", "", " ", " ops", "ops ", "a\tb", "\"\"", "\"", "o\"ps", "grupo-ü", "\" ops\"", "  ")
			})
			return role
		})
		return x
	}
	property(t, "ValidateProject roles", gen, func(c c) string {
		return validateProject(argocd.ProjectSpec{Roles: c.Roles}, c.Project)
	})
}

// genPolicy is a project role's policy: often right, often wrong in one
// component (another project, a resource, an action, an object, an
// effect, a count of fields, spaces).
func genPolicy(r *rand.Rand, project, role string) string {
	subject := "proj:" + project + ":" + role
	switch r.IntN(6) {
	case 0:
		subject = pick(r, "proj:other:"+role, "proj:"+project+":other", "role:admin", project+":"+role, "")
	}
	resource := pick(r, "applications", "applications", "applicationsets", "logs", "exec", "clusters", "repositories", "projects", "accounts", "Applications", "*")
	action := pick(r, "get", "sync", "create", "update", "delete", "override", "*", "action/apps/Deployment/restart", "update/*", "delete/*/Pod/*", "list", "Get", "action", "xaction/y")
	object := pick(r, project+"/*", project+"/web", project+"/ns/web", project+"/ns/*", "other/*", "*", project, project+"/a/b/c", project+"/we b", project+"/we!b", strings.ToUpper(project)+"/*", project+"x/*")
	effect := pick(r, "allow", "allow", "deny", "Allow", "", "permit")
	parts := []string{pick(r, "p", "p", " p", "g", "P"), subject, resource, action, object, effect}
	if r.IntN(8) == 0 {
		parts = parts[:r.IntN(len(parts))]
	}
	if r.IntN(10) == 0 {
		parts = append(parts, "extra")
	}
	sep := pick(r, ", ", ",", " , ", ",  ")
	return strings.Join(parts, sep)
}

var (
	schedules = []string{
		"0 22 * * *", "0 22 * * 1-5", "*/15 * * * *", "0 0 24 12 *", "0 0 1 JAN *", "0 0 * * MON-FRI", "0 0 * * 7", "0 0 * * 8",
		"0 25 * * *", "60 0 * * *", "0 0 0 * *", "0 0 32 * *", "0 0 * 13 *", "* * * *", "* * * * * *", "0 22 * * * *", "@daily", "@every 1h",
		"", " ", "0 22 * * ?", "0 0 L * *", "0-59/5 * * * *", "5-1 * * * *", "1,2,3 * * * *", "a b c d e", "TZ=Europe/Berlin 0 22 * * *",
		"CRON_TZ=Mars/Base 0 22 * * *", "TZ=x", "CRON_TZ=UTC", "0 0 1-31/2 * *", "0 0 ? * *", "0 0 * * SUN#1", "0\t22 * * *",
	}
	durations = []string{"1h", "4h", "30m", "48h", "1h30m", "90", "", "1d", "-1h", "0", "0s", "1.5h", "1 h", "1H", "2562047h", "9999999999h", "5µs"}
	timeZones = []string{"", "UTC", "Europe/Berlin", "America/New_York", "Local", "Mars/Base", "europe/berlin", "EST", "GMT+1", "Etc/GMT+1", "../etc/passwd", "Asia/Kolkata", " UTC"}
)

func genWindow(r *rand.Rand) argocd.SyncWindow {
	globs := []string{"*", "web", "team-*", "[", ""}
	w := argocd.SyncWindow{
		Kind: pick(r, "allow", "deny", "allow", "Allow", "", "block"), Schedule: pick(r, schedules...), Duration: pick(r, durations...),
		TimeZone: pick(r, timeZones...), ManualSync: r.IntN(2) == 0, UseAndOperator: r.IntN(5) == 0,
		Applications: some(r, 2, func() string { return pick(r, globs...) }),
		Namespaces:   some(r, 1, func() string { return pick(r, globs...) }),
		Clusters:     some(r, 1, func() string { return pick(r, globs...) }),
	}
	if r.IntN(10) == 0 {
		w.Description = strings.Repeat("x", 250+r.IntN(10))
	}
	return w
}

func TestValidateProjectSyncWindows(t *testing.T) {
	type c struct{ Windows []argocd.SyncWindow }
	gen := func(r *rand.Rand) c {
		x := c{Windows: some(r, 3, func() argocd.SyncWindow { return genWindow(r) })}
		if len(x.Windows) > 0 && r.IntN(3) == 0 {
			// The same window again, its manualSync or description
			// changed or not.
			w := x.Windows[r.IntN(len(x.Windows))]
			w.ManualSync = !w.ManualSync
			if r.IntN(2) == 0 {
				w.Description = "again"
			}
			if r.IntN(3) == 0 {
				w.Applications = append([]string{}, w.Applications...)
			}
			x.Windows = append(x.Windows, w)
		}
		return x
	}
	property(t, "ValidateProject syncWindows", gen, func(c c) (msg string) {
		defer func() {
			if recover() != nil {
				// Argo CD's cron parser panics on "TZ=x": the API
				// server fails; platc must refuse.
				if len(argocd.NewProject("p", argocd.ProjectSpec{SyncWindows: c.Windows}).ValidateProject()) == 0 {
					msg = "platc accepts, Argo CD panics"
				} else {
					msg = ""
				}
			}
		}()
		return validateProject(argocd.ProjectSpec{SyncWindows: c.Windows}, "p")
	})
	// A time zone that Argo CD cannot load is not an error there: it
	// uses UTC instead, which platc reports.
	type tz struct{ TimeZone string }
	property(t, "SyncWindow timeZone", func(r *rand.Rand) tz { return tz{pick(r, timeZones...)} }, func(c tz) string {
		w := &v1alpha1.InlineSyncWindow{Kind: "allow", Schedule: "0 22 * * *", Duration: "1h", TimeZone: c.TimeZone}
		_ = w.Validate()
		argoReplaced := c.TimeZone != "" && w.TimeZone != c.TimeZone
		platcRefuses := argocd.SyncWindow{TimeZone: c.TimeZone}.TimeZoneProblem() != ""
		if argoReplaced != platcRefuses {
			return fmt.Sprintf("platc refuses %v, Argo CD replaces it by UTC %v", platcRefuses, argoReplaced)
		}
		return ""
	})
}

var dsaServers = []string{"https://kubernetes.default.svc", "https://*.example.com", "*", "", "https://[", "!https://x", "https://prod.example.com", "https://{a,b}.example.com"}

func genAccount(r *rand.Rand) argocd.DestinationServiceAccount {
	return argocd.DestinationServiceAccount{
		Server:                pick(r, dsaServers...),
		Namespace:             pick(r, "*", "web", "team-*", "", "!web", "[", "{a,b}", "obs-?"),
		DefaultServiceAccount: pick(r, "deployer", "ns:deployer", "", " ", "a*b", "a/b", "de[ployer", "{x}", "a\\b", "web:sa:x", "!sa"),
	}
}

func TestValidateProjectServiceAccounts(t *testing.T) {
	type c struct {
		Accounts []argocd.DestinationServiceAccount
	}
	gen := func(r *rand.Rand) c {
		return c{some(r, 4, func() argocd.DestinationServiceAccount { return genAccount(r) })}
	}
	property(t, "ValidateProject serviceAccounts", gen, func(c c) string {
		return validateProject(argocd.ProjectSpec{DestinationServiceAccounts: c.Accounts}, "p")
	})
	type imp struct {
		Accounts                          []argocd.DestinationServiceAccount
		AppNamespace, Server, Destination string
	}
	genImp := func(r *rand.Rand) imp {
		return imp{some(r, 3, func() argocd.DestinationServiceAccount { return genAccount(r) }), pick(r, "argocd", "team-a"),
			pick(r, "https://kubernetes.default.svc", "https://prod.example.com", "https://a.example.com"), pick(r, "web", "team-a", "", "obs-1")}
	}
	property(t, "ServiceAccountToImpersonate", genImp, func(c imp) string {
		got, gotErr := argocd.ServiceAccountToImpersonate(c.Accounts, c.AppNamespace, c.Server, c.Destination)
		p := upstreamProject("p", argocd.ProjectSpec{DestinationServiceAccounts: c.Accounts})
		app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: c.AppNamespace}}
		app.Spec.Destination.Namespace = c.Destination
		want, wantErr := settings.DeriveServiceAccountToImpersonate(p, app, &v1alpha1.Cluster{Server: c.Server})
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			return fmt.Sprintf("platc %q %v, Argo CD %q %v", got, gotErr, want, wantErr)
		}
		return ""
	})
}

func TestIgnoreDifferences(t *testing.T) {
	type jq struct{ Expr string }
	pieces := []string{".webhooks", "[]", "?", ".clientConfig", ".caBundle", "[0]", ".spec", ".metadata.annotations[\"a/b\"]", "|", " ", ")", "(", "select(.name == \"x\")",
		"..", ".[", "]", "\"", ".a-b", ".\"a-b\"", "$x", "$__loc__", "limit(1; .a)", "foo", ".a,", ".b", "//", "@base64", "reduce", "1", "-", "{}", "$ENV"}
	genJQ := func(r *rand.Rand) jq {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(pick(r, pieces...))
		}
		return jq{b.String()}
	}
	property(t, "ignoreDifferences jq", genJQ, func(c jq) string {
		got := argocd.JQProblem(c.Expr)
		_, want := normalizers.NewIgnoreNormalizer([]v1alpha1.ResourceIgnoreDifferences{{Kind: "ConfigMap", JQPathExpressions: []string{c.Expr}}}, nil, normalizers.IgnoreNormalizerOpts{})
		if (got == nil) != (want == nil) {
			return fmt.Sprintf("platc %v, Argo CD %v", got, want)
		}
		return ""
	})

	// A pointer platc accepts removes, in Argo CD's normalizer, exactly
	// what RFC 6901 says it names (nothing where that is missing); one
	// platc refuses is counted by how Argo CD misreads it.
	type ptr struct {
		Pointer string
		Doc     string // JSON
	}
	tokens := []string{"spec", "caBundle", "webhooks", "0", "1", "01", "+1", "-1", "-0", "00", "2", "-", "clientConfig", "a~1b", "a~0b", "a~b", "~", "~2", "", "data", "a b", "é", "metadata", "labels"}
	genPtr := func(r *rand.Rand) ptr {
		var parts []string
		for range 1 + r.IntN(4) {
			parts = append(parts, pick(r, tokens...))
		}
		p := "/" + strings.Join(parts, "/")
		switch r.IntN(8) {
		case 0:
			p = strings.TrimPrefix(p, "/")
		case 1:
			p = ""
		}
		return ptr{Pointer: p, Doc: genDoc(r)}
	}
	misread := 0
	property(t, "ignoreDifferences jsonPointers", genPtr, func(c ptr) string {
		var doc map[string]any
		if err := json.Unmarshal([]byte(c.Doc), &doc); err != nil {
			return "bad generated document: " + err.Error()
		}
		obj := &unstructured.Unstructured{Object: doc}
		obj.SetAPIVersion("v1")
		obj.SetKind("ConfigMap")
		n, err := normalizers.NewIgnoreNormalizer([]v1alpha1.ResourceIgnoreDifferences{{Kind: "ConfigMap", JSONPointers: []string{c.Pointer}}}, nil, normalizers.IgnoreNormalizerOpts{})
		if err != nil {
			return "Argo CD: " + err.Error()
		}
		before := obj.DeepCopy().Object
		if err := n.Normalize(obj); err != nil {
			return "Argo CD: " + err.Error()
		}
		toks, perr := argocd.ParseJSONPointer(c.Pointer)
		if perr != nil {
			if !sameJSON(before, obj.Object) {
				misread++
			}
			return ""
		}
		want := removePointer(before, toks)
		if !sameJSON(want, obj.Object) {
			return fmt.Sprintf("Argo CD removes something else than RFC 6901's %v: got %v, RFC %v", toks, obj.Object, want)
		}
		return ""
	})
	t.Logf("of the pointers platc refuses, Argo CD removed something from %d documents", misread)
}

// sameJSON compares documents as JSON (numbers read back as float64 or
// int64 are alike).
func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var u, v any
	_ = json.Unmarshal(x, &u)
	_ = json.Unmarshal(y, &v)
	return reflect.DeepEqual(u, v)
}

// genDoc is a ConfigMap-like object with nested maps and lists.
func genDoc(r *rand.Rand) string {
	var gen func(depth int) any
	gen = func(depth int) any {
		if depth > 2 || r.IntN(3) == 0 {
			return pick[any](r, "x", 1.0, true)
		}
		if r.IntN(2) == 0 {
			var l []any
			for range 1 + r.IntN(3) {
				l = append(l, gen(depth+1))
			}
			return l
		}
		m := map[string]any{}
		for range 1 + r.IntN(3) {
			m[pick(r, "spec", "caBundle", "webhooks", "clientConfig", "a/b", "a~b", "data", "0", "", "a b", "é", "labels")] = gen(depth + 1)
		}
		return m
	}
	doc := map[string]any{"metadata": map[string]any{"name": "cm", "labels": map[string]any{"a": "b"}}}
	for range 1 + r.IntN(3) {
		doc[pick(r, "spec", "webhooks", "data", "a/b", "a~b", "", "0")] = gen(0)
	}
	data, _ := json.Marshal(doc)
	return string(data)
}

// removePointer is RFC 6901's reading of the pointer with JSON patch's
// remove (RFC 6902): the value it names goes; a missing one, or an index
// that is not one, leaves the document as it is.
func removePointer(doc map[string]any, toks []string) map[string]any {
	data, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	var parent any = out
	for i, t := range toks {
		last := i == len(toks)-1
		switch p := parent.(type) {
		case map[string]any:
			v, ok := p[t]
			if !ok {
				return doc
			}
			if last {
				delete(p, t)
				return out
			}
			parent = v
		case []any:
			idx, ok := arrayIndex(t, len(p))
			if !ok {
				return doc
			}
			if last {
				// Removing from a list: the list in its parent is
				// rewritten, so remove by walking again.
				return removeIndex(out, toks[:i], idx)
			}
			parent = p[idx]
		default:
			return doc
		}
	}
	return doc
}

func arrayIndex(t string, n int) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') || strings.ContainsAny(t, "+-") {
		return 0, false
	}
	i, err := strconv.Atoi(t)
	return i, err == nil && i >= 0 && i < n
}

func removeIndex(doc map[string]any, path []string, idx int) map[string]any {
	var parent any = doc
	for i, t := range path {
		var child any
		switch p := parent.(type) {
		case map[string]any:
			child = p[t]
			if i == len(path)-1 {
				l := child.([]any)
				p[t] = append(l[:idx:idx], l[idx+1:]...)
				return doc
			}
		case []any:
			j, _ := strconv.Atoi(t)
			child = p[j]
			if i == len(path)-1 {
				l := child.([]any)
				p[j] = append(l[:idx:idx], l[idx+1:]...)
				return doc
			}
		}
		parent = child
	}
	return doc
}

func TestRetryDuration(t *testing.T) {
	type c struct{ Duration, MaxDuration string }
	values := []string{"", "5s", "3m", "1h", "30", "0", "-5", "1.5", "5 s", "5S", "1d", "+3", "0x10", "99999999999999999999", "2562047h", "1h1m1s1ms1us1ns", "μs", ".5s", "5"}
	gen := func(r *rand.Rand) c { return c{pick(r, values...), pick(r, values...)} }
	property(t, "retry backoff", gen, func(c c) string {
		var gotErr error
		for _, d := range []string{c.Duration, c.MaxDuration} {
			if d != "" && gotErr == nil {
				_, gotErr = argocd.RetryDuration(d)
			}
		}
		r := &v1alpha1.RetryStrategy{Limit: 3, Backoff: &v1alpha1.Backoff{Duration: c.Duration, MaxDuration: c.MaxDuration}}
		_, wantErr := r.NextRetryAt(time.Unix(0, 0), 1)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			return fmt.Sprintf("platc %v, Argo CD %v", gotErr, wantErr)
		}
		return ""
	})
}

func TestHelmParameterEnvsubst(t *testing.T) {
	type c struct{ Value string }
	pieces := []string{"a", "$", "$$", "${", "}", "ARGOCD_APP_NAME", "$ARGOCD_APP_NAME", "${ARGOCD_APP_NAMESPACE}", "$1", "$@", "{", "5", ",", " ", "$$$", "${}", "${a b}"}
	gen := func(r *rand.Rand) c {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pick(r, pieces...))
		}
		return c{b.String()}
	}
	env := map[string]string{"ARGOCD_APP_NAME": "web", "ARGOCD_APP_NAMESPACE": "web-ns"}
	property(t, "parameter $ expansion", gen, func(c c) string {
		got, _ := argocd.Envsubst(c.Value, env)
		want := v1alpha1.Env{{Name: "ARGOCD_APP_NAME", Value: "web"}, {Name: "ARGOCD_APP_NAMESPACE", Value: "web-ns"}}.Envsubst(c.Value)
		if got != want {
			return fmt.Sprintf("platc %q, Argo CD %q", got, want)
		}
		return ""
	})
}

func TestSignatureKeys(t *testing.T) {
	type c struct{ Key string }
	gen := func(r *rand.Rand) c {
		hex := "0123456789abcdefABCDEFg "
		n := pick(r, 16, 40, 15, 17, 39, 41, 0, 8)
		var b strings.Builder
		for range n {
			b.WriteByte(hex[r.IntN(len(hex)-2+r.IntN(3))])
		}
		return c{b.String()}
	}
	property(t, "signatureKeys", gen, func(c c) string {
		_, err := sourceintegrity.KeyID(c.Key)
		if got := argocd.KeyIDProblem(c.Key); (got == "") != (err == nil) || (err != nil && got != err.Error()) {
			return fmt.Sprintf("platc %q, Argo CD %v", got, err)
		}
		return ""
	})
}

func TestLabelsAndAnnotations(t *testing.T) {
	type c struct{ Key, Value string }
	parts := []string{"a", "A", "0", "-", "_", ".", "/", "example.com", "Example.com", "app.kubernetes.io", "x", "é", " ", "team", strings.Repeat("n", 60), strings.Repeat("p", 250)}
	gen := func(r *rand.Rand) c {
		var k, v strings.Builder
		for range 1 + r.IntN(4) {
			k.WriteString(pick(r, parts...))
		}
		for range r.IntN(4) {
			v.WriteString(pick(r, parts...))
		}
		return c{k.String(), v.String()}
	}
	property(t, "labels and annotations", gen, func(c c) string {
		wantLabels := len(validation.IsQualifiedName(c.Key)) == 0 && len(validation.IsValidLabelValue(c.Value)) == 0
		gotLabels := argocd.LabelKeyProblem(c.Key) == "" && argocd.LabelValueProblem(c.Value) == ""
		wantAnn := len(apivalidation.ValidateAnnotations(map[string]string{c.Key: c.Value}, field.NewPath("a"))) == 0
		gotAnn := argocd.AnnotationKeyProblem(c.Key) == ""
		if gotLabels != wantLabels || gotAnn != wantAnn {
			return fmt.Sprintf("labels: platc %v, Kubernetes %v; annotations: platc %v, Kubernetes %v", gotLabels, wantLabels, gotAnn, wantAnn)
		}
		return ""
	})
}
