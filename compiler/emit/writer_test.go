package emit

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml12 "go.yaml.in/yaml/v3"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/object"
)

// trickyStrings are strings a YAML writer gets wrong: YAML 1.1 and 1.2
// booleans, nulls, numbers in every base, timestamps, indicators, comments,
// colons, quotes, escapes and line breaks.
var trickyStrings = []string{
	"", " ", "a", "yes", "Yes", "NO", "on", "Off", "y", "n", "true", "False", "null", "Null", "~",
	"0", "1", "-1", "+1", "010", "0o17", "0x1F", "0b101", "1_000", "1:20", "1:20:30", "1e3", "1E3", "1.5", ".5", "-.5",
	".inf", "-.Inf", ".nan", "NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
	"1.15.4", "v1.2.3", "2.21.1-rc.1+build.7", "10.0.0.1", "30Gi", "500m", "10s", "1e", "3b", "0xg",
	"-", "--", "---", "...", "- x", "-x", "? x", "?x", ": x", ":x", "x:", "x: y", "x :y", "a#b", "a #b", "#a",
	"&a", "*a", "!a", "|", ">", "'a'", `"a"`, "%a", "@a", "`a", "[a]", "{a}", "a,b", "a, b", "<<", "=",
	`back\slash`, "tab\there", "line\nbreak", "ends with newline\n", "two newlines\n\n", "\nleading newline",
	" leading space", "trailing space ", "line one\n  indented\n\nafter blank\n", "carriage\r\nreturn",
	"bell\a", "del\x7f", "bom\ufeff", "unicode ünïcödé ✓", "emoji 🚀", "https://example.com/x?y=1#z",
	"os.environ/REDIS_HOST", "{apps.yaml,appprojects.yaml}", "OpenCost: what each namespace costs.",
	"key: value\nother: value\n", "--- \n...", "| not a block", "a\tb",
}

// decoded is what a value reads back as through JSON, the form Kubernetes
// decoders produce: numbers become float64.
func viaJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTrip writes m and reads it back with a YAML 1.1 decoder (what
// Kubernetes and Argo CD use) and a YAML 1.2 decoder, and requires both to
// give back exactly what was written.
func roundTrip(t *testing.T, m *object.Map, want any) {
	t.Helper()
	doc := appendDocument(nil, m)
	var got11 any
	if err := k8syaml.Unmarshal(doc, &got11); err != nil {
		t.Fatalf("YAML 1.1 decoder: %v\n%s", err, doc)
	}
	if diff := cmp.Diff(viaJSON(t, want), got11); diff != "" {
		t.Errorf("YAML 1.1 reads back something else (-wrote +read):\n%s\n%s", diff, doc)
	}
	var got12 any
	if err := yaml12.Unmarshal(doc, &got12); err != nil {
		t.Fatalf("YAML 1.2 decoder: %v\n%s", err, doc)
	}
	if diff := cmp.Diff(viaJSON(t, want), viaJSON(t, got12)); diff != "" {
		t.Errorf("YAML 1.2 reads back something else (-wrote +read):\n%s\n%s", diff, doc)
	}
}

func TestWriterRoundTripsStrings(t *testing.T) {
	for _, s := range trickyStrings {
		t.Run(strings.ReplaceAll(s, "\n", `\n`), func(t *testing.T) {
			m := object.NewMap().Set("value", s).Set(s+"k", "as key").
				Set("list", []string{s, "x"}).
				Set("nested", object.NewMap().Set("in", s)).
				Set("items", []any{object.NewMap().Set("first", s).Set("second", s)})
			want := map[string]any{
				"value": s, s + "k": "as key", "list": []any{s, "x"},
				"nested": map[string]any{"in": s},
				"items":  []any{map[string]any{"first": s, "second": s}},
			}
			roundTrip(t, m, want)
		})
	}
}

func TestWriterRoundTripsValues(t *testing.T) {
	values := map[string]any{
		"int": int64(42), "negative": int64(-7), "zero": int64(0), "big": int64(math.MaxInt64 / 1024),
		"float": 2.0, "half": 0.5, "huge": 1e21, "tiny": 1.5e-7,
		"true": true, "false": false, "null": nil,
		"empty map": map[string]any{}, "empty list": []any{},
		"nested": map[string]any{"b": []any{int64(1), "two", 3.5, map[string]any{"deep": []any{}}}},
		"lists":  []any{[]any{"a", "b"}, []any{}, map[string]any{}},
	}
	m := object.NewMap().Set("apiVersion", "v1").Set("values", values).Set("count", 3).Set("names", []string{})
	want := map[string]any{"apiVersion": "v1", "values": values, "count": 3, "names": []any{}}
	roundTrip(t, m, want)
}

func TestWriterLayout(t *testing.T) {
	m := object.NewMap().
		Set("kind", "Application").
		Set("metadata", object.NewMap().Set("name", "web").Set("annotations", object.NewMap().Set("argocd.argoproj.io/sync-wave", "1"))).
		Set("spec", object.NewMap().
			Set("info", []any{object.NewMap().Set("name", "Description").Set("value", "Web: the front end.")}).
			Set("syncOptions", []string{"CreateNamespace=true"}).
			Set("values", map[string]any{"z": int64(1), "a": map[string]any{}, "script": "echo one\necho two\n"}))
	want := `kind: Application
metadata:
  name: web
  annotations:
    argocd.argoproj.io/sync-wave: "1"
spec:
  info:
    - name: Description
      value: "Web: the front end."
  syncOptions:
    - CreateNamespace=true
  values:
    a: {}
    script: |
      echo one
      echo two
    z: 1
`
	if diff := cmp.Diff(want, string(appendDocument(nil, m))); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// FuzzWriterRoundTrip checks that any string, as a key and as a value,
// reads back unchanged with both decoders.
func FuzzWriterRoundTrip(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8Valid(s) {
			t.Skip("CUE strings are valid UTF-8")
		}
		m := object.NewMap().Set("v", s).Set("k"+s, "x").Set("l", []string{s})
		roundTrip(t, m, map[string]any{"v": s, "k" + s: "x", "l": []any{s}})
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestScalarMatchers checks versionLike and quantityLike against the
// regular expressions that define them, on every short string over the
// characters that matter.
func TestScalarMatchers(t *testing.T) {
	version := regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$`)
	quantity := regexp.MustCompile(`^[0-9]+[ac-df-np-wyzAC-DF-NP-WYZ][A-Za-z]*$`)
	alphabet := "0.1-+aBeEoxXmMz_ "
	var walk func(s string, n int)
	checked := 0
	walk = func(s string, n int) {
		checked++
		if got, want := versionLike(s), version.MatchString(s); got != want {
			t.Errorf("versionLike(%q) = %v, want %v", s, got, want)
		}
		if got, want := quantityLike(s), quantity.MatchString(s); got != want {
			t.Errorf("quantityLike(%q) = %v, want %v", s, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(s+string(c), n-1)
		}
	}
	walk("", 5)
	for _, s := range []string{"1.15.4", "2.21.1-rc.1", "10.0.0+build.7", "30Gi", "500m", "10s", "1e3", "0x1f", "0b1", "0o7", "1.2", "1.2.3.4"} {
		walk(s, 1)
	}
	if checked < 1000000 {
		t.Fatalf("checked %d strings", checked)
	}
}
