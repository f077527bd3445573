package diag

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/messages.md from the table")

// TestEveryIDIsDescribed requires a whole row of Messages for every ID:
// a name of lower-case words, unique; a one-line summary in the style
// of the messages (lower-case, no trailing period); a text of
// sentences; where the rule comes from. Only warnings are strict, and
// only errors may be excepted by an allow field.
func TestEveryIDIsDescribed(t *testing.T) {
	name := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	seen := map[string]ID{}
	for _, id := range IDs() {
		m := id.Info()
		if !name.MatchString(m.Name) {
			t.Errorf("id %d: name %q is not lower-case words joined by '-'", id, m.Name)
		}
		if other, ok := seen[m.Name]; ok {
			t.Errorf("ids %d and %d are both named %q", other, id, m.Name)
		}
		seen[m.Name] = id
		if m.Summary == "" || strings.ToLower(m.Summary[:1]) != m.Summary[:1] || strings.HasSuffix(m.Summary, ".") || strings.Contains(m.Summary, "\n") {
			t.Errorf("%s: summary %q is not one lower-case line without a trailing period", m.Name, m.Summary)
		}
		if m.Text == "" || !strings.HasSuffix(m.Text, ".") {
			t.Errorf("%s: text %q is not sentences", m.Name, m.Text)
		}
		if m.Source == "" {
			t.Errorf("%s: no source", m.Name)
		}
		if m.Strict && m.Severity != Warning {
			t.Errorf("%s: strict, and not a warning", m.Name)
		}
		if m.ErrorFrom != "" && m.Severity != Warning {
			t.Errorf("%s: an error from %s, and not a warning", m.Name, m.ErrorFrom)
		}
		if m.Allow && m.Severity != Error {
			t.Errorf("%s: allowed, and not an error", m.Name)
		}
		if Lookup(m.Name) != id {
			t.Errorf("Lookup(%q) = %d, want %d", m.Name, Lookup(m.Name), id)
		}
	}
	if len(seen) != int(idCount)-1 {
		t.Errorf("%d names for %d ids", len(seen), idCount-1)
	}
	if NoID.Info() != (Message{}) {
		t.Errorf("NoID is described: %+v", NoID.Info())
	}
}

func TestIDsMarshalAsTheirNames(t *testing.T) {
	text, err := KroCEL.MarshalText()
	if err != nil || string(text) != "kro-cel" {
		t.Fatalf("MarshalText() = %q, %v", text, err)
	}
	var id ID
	if err := id.UnmarshalText([]byte("kro-cel")); err != nil || id != KroCEL {
		t.Errorf("UnmarshalText(kro-cel) = %v, %v", id, err)
	}
	if err := id.UnmarshalText([]byte("kro-cell")); err == nil || err.Error() != `unknown message id "kro-cell"` {
		t.Errorf("UnmarshalText(kro-cell): %v", err)
	}
}

func TestHelp(t *testing.T) {
	want := `chart-value: a value the chart does not have

A warning, from Helm; -strict makes it an error.

The key is not in the chart's values.yaml and no template reads it, so Helm ignores it: a misspelled key changes nothing. -strict makes it an error. A key is reported once where it is set, naming the Applications that set it and the environments it holds in.
`
	if got := Help(ChartValue); got != want {
		t.Errorf("Help(ChartValue) =\n%s\nwant\n%s", got, want)
	}
	if got := Help(Wildcard); !strings.Contains(got, "An error, from platc; allow: {\"wildcard\": \"<reason>\"} excepts it.\n") {
		t.Errorf("Help(Wildcard) =\n%s", got)
	}
}

// TestMessagesPage keeps docs/messages.md the table's: -update rewrites
// it.
func TestMessagesPage(t *testing.T) {
	const page = "../../docs/messages.md"
	want := messagesPage()
	if *update {
		if err := os.WriteFile(page, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not made from the table: run go test ./compiler/diag -update", page)
	}
	for _, id := range IDs() {
		if !strings.Contains(string(got), "\n## "+id.String()+"\n") {
			t.Errorf("%s has no section for %s", page, id)
		}
	}
}

// messagesPage is docs/messages.md: the table of ids, made from Messages.
func messagesPage() string {
	var b strings.Builder
	b.WriteString("# platc's messages\n\n")
	b.WriteString("<!-- Made from compiler/diag/ids.go by `go test ./compiler/diag -update`; do not edit. -->\n\n")
	b.WriteString("Every problem platc reports carries one of these ids: after the message in text\n")
	b.WriteString("(`[unknown-name]`), in the title of a GitHub annotation, and as `id` in `-format json`.\n")
	b.WriteString("`platc help <id>` prints an id's text. Only the ids marked *allow* may be excepted,\n")
	b.WriteString("by an `allow` field of the spec with a reason; *strict* warnings are errors under `-strict`;\n")
	b.WriteString("a warning marked with a release (*kro v0.10: error*) is an error for an environment that declares it.\n\n")
	b.WriteString("| id | severity | from | what |\n|---|---|---|---|\n")
	for _, id := range IDs() {
		m := id.Info()
		sev := m.Severity.String()
		if m.Strict {
			sev += " (strict: error)"
		}
		if m.Allow {
			sev += " (allow)"
		}
		if m.ErrorFrom != "" {
			sev += " (" + m.ErrorFrom + ": error)"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", m.Name, m.Name, sev, m.Source, m.Summary)
	}
	for _, id := range IDs() {
		m := id.Info()
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n%s\n", m.Name, upper(m.Summary), m.Text)
	}
	return b.String()
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
