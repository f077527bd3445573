package render

import (
	"os/exec"
	"strings"
	"testing"
)

// FuzzShellQuote requires that every string ShellQuote quotes reaches a
// command as exactly one argument, byte for byte, when a POSIX shell reads
// it: the direct-apply plan's promise that a spec string is never code. The
// seeds (run by go test) are the hostile names of issue 15 and the shell's
// special characters; `go test -fuzz FuzzShellQuote ./compiler/render`
// searches further.
func FuzzShellQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh on PATH: the quoting is checked against a real shell")
	}
	for _, s := range []string{
		"", "plain", "sources/manifests/budget-redis", "https://charts.example.com/x?a=b&c=d",
		"x$(touch PWNED)", "a;touch PWNED;b", "with space", "`touch PWNED`", "$HOME", "${IFS}",
		"'", "''", "it's", `"double"`, `back\slash`, "new\nline", "tab\there", "~", "~root", "*", "?", "[a]",
		"{a,b}", "a|b", "a&b", "a>b", "<a", "#comment", "!", "-rf", "--values", "=", "a=b", "%1", "@(x)",
		"\u00e9t\u00e9", "\xff\xfe", "\x7f", "$'\\x41'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			t.Skip("a NUL cannot be in an argument; check refuses control characters in spec strings")
		}
		script := "set -- " + ShellQuote(s) + "\nprintf '%s:' \"$#\"\nprintf '%s' \"$1\"\n"
		out, err := exec.Command(sh, "-c", script).Output()
		if err != nil {
			t.Fatalf("sh fails on the quoted %q (%s): %v", s, ShellQuote(s), err)
		}
		if want := "1:" + s; string(out) != want {
			t.Fatalf("ShellQuote(%q) = %s reads back as %q, want %q", s, ShellQuote(s), out, want)
		}
	})
}

func TestShellQuoteKeepsPlainWordsReadable(t *testing.T) {
	for s, want := range map[string]string{
		"sources/manifests/budget-redis":        "sources/manifests/budget-redis",
		"oci://registry.k8s.io/kro/charts/kro":  "oci://registry.k8s.io/kro/charts/kro",
		"1.2.3+build.4":                         "1.2.3+build.4",
		"--dry-run=client":                      "--dry-run=client",
		"":                                      "''",
		"with space":                            "'with space'",
		"it's":                                  `'it'\''s'`,
		"https://charts.example.com/$(touch x)": "'https://charts.example.com/$(touch x)'",
		"https://charts.example.com/x?a=b&c=d":  "'https://charts.example.com/x?a=b&c=d'",
		"~/x":                                   "'~/x'",
	} {
		if got := ShellQuote(s); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestCommentKeepsOneLine(t *testing.T) {
	if got := comment("a\nrm -rf /\r\x00b"); got != "a?rm -rf /??b" {
		t.Errorf("comment = %q", got)
	}
}
