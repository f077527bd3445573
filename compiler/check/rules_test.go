package check

import "testing"

const (
	pinExample = `pin an exact release such as "1.2.3"`
	rangeTail  = `pin an exact release such as "1.2.3", so that a render means the same thing tomorrow`
)

func TestPinProblemAcceptsExactVersions(t *testing.T) {
	for _, v := range []string{
		"1.2.3",
		"0.0.1",
		"0.0.0",
		"v1.16.2",
		"10.20.30",
		"1.2.3-rc.1",
		"2.21.1-rc.1+build.7",
		"1.0.0+20130313144700",
		"v1.0.0-beta",
	} {
		if got := PinProblem(v); got != "" {
			t.Errorf("PinProblem(%q) = %q, want \"\"", v, got)
		}
	}
}

func TestPinProblemRejects(t *testing.T) {
	tests := []struct {
		version string
		want    string
	}{
		{"", `empty version: ` + pinExample},
		{"latest", `"latest" is not a version: ` + pinExample},
		{"LATEST", `"LATEST" is not a version: ` + pinExample},
		{"Latest", `"Latest" is not a version: ` + pinExample},
		{"*", `"*" is not a version: ` + pinExample},
		{"^1.2", `"^1.2" is a version range, not a pin: ` + rangeTail},
		{"~1.2", `"~1.2" is a version range, not a pin: ` + rangeTail},
		{"~1.2.3", `"~1.2.3" is a version range, not a pin: ` + rangeTail},
		{">=1.0.0", `">=1.0.0" is a version range, not a pin: ` + rangeTail},
		{"<2.0.0", `"<2.0.0" is a version range, not a pin: ` + rangeTail},
		{"=1.2.3", `"=1.2.3" is a version range, not a pin: ` + rangeTail},
		{">=2.0.0 <3.0.0", `">=2.0.0 <3.0.0" is a version range, not a pin: ` + rangeTail},
		{">=1.0.0, <2.0.0", `">=1.0.0, <2.0.0" is a version range, not a pin: ` + rangeTail},
		{"1.2.3 || 2.0.0", `"1.2.3 || 2.0.0" is a version range, not a pin: ` + rangeTail},
		{"1.x", `"1.x" is a version range, not a pin: ` + rangeTail},
		{"1.2.X", `"1.2.X" is a version range, not a pin: ` + rangeTail},
		{"1.2.*", `"1.2.*" is a version range, not a pin: ` + rangeTail},
		{"1.2", `"1.2" is not a semantic version: ` + pinExample},
		{"1", `"1" is not a semantic version: ` + pinExample},
		{"v1.2", `"v1.2" is not a semantic version: ` + pinExample},
		{"01.2.3", `"01.2.3" is not a semantic version: ` + pinExample},
		{"1.02.3", `"1.02.3" is not a semantic version: ` + pinExample},
		{"1.2.3.4", `"1.2.3.4" is not a semantic version: ` + pinExample},
		{"vv1.2.3", `"vv1.2.3" is not a semantic version: ` + pinExample},
		{"V1.2.3", `"V1.2.3" is not a semantic version: ` + pinExample},
		{"stable", `"stable" is not a semantic version: ` + pinExample},
		{"1.2.3-", `"1.2.3-" is not a semantic version: ` + pinExample},
		{"1.0.0;rm -rf /", `"1.0.0;rm -rf /" holds ';', which a semantic version does not allow (only letters, digits, '.', '-' and '+'): ` + pinExample},
		{"1.0.0 && rm x", `"1.0.0 && rm x" holds '&', which a semantic version does not allow (only letters, digits, '.', '-' and '+'): ` + pinExample},
		{"1.0.0$(id)", `"1.0.0$(id)" holds '$', which a semantic version does not allow (only letters, digits, '.', '-' and '+'): ` + pinExample},
		{"1.0.0\n", `"1.0.0\n" holds '\n', which a semantic version does not allow (only letters, digits, '.', '-' and '+'): ` + pinExample},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			if got := PinProblem(tt.version); got != tt.want {
				t.Errorf("PinProblem(%q)\n got %q\nwant %q", tt.version, got, tt.want)
			}
		})
	}
}

func TestPinProblemDoesNotTakeAWordWithAnXForARange(t *testing.T) {
	want := `"next" is not a semantic version: ` + pinExample
	if got := PinProblem("next"); got != want {
		t.Errorf("PinProblem(%q)\n got %q\nwant %q", "next", got, want)
	}
}

func TestRepoPathProblem(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"out", ""},
		{"deploy/out", ""},
		{"sources/manifests/web", ""},
		{"..a", ""}, // a folder whose name starts with two dots
		{"a..", ""},
		{"", "is empty"},
		{`a\b`, "uses backslashes"},
		{`..\x`, "uses backslashes"},
		{"/abs", "is absolute"},
		{"/", "is absolute"},
		{".", "is the repository root"},
		{"./", "is the repository root"},
		{"a/..", "is the repository root"},
		{"..", "escapes the repository"},
		{"../x", "escapes the repository"},
		{"a/../..", "escapes the repository"},
		{"a/../../b", "escapes the repository"},
		{"a//b", `is not clean (write "a/b")`},
		{"a/", `is not clean (write "a")`},
		{"./a", `is not clean (write "a")`},
		{"a/./b", `is not clean (write "a/b")`},
		{"sources/../out/deploy", `is not clean (write "out/deploy")`},
		{"a\nb", "holds a control character"},
		{"a\tb", "holds a control character"},
		{"a\x7fb", "holds a control character"},
		{"with space", ""},
		{"x$(touch PWNED)", ""}, // a legal folder name: the plan quotes it
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := repoPathProblem(tt.path); got != tt.want {
				t.Errorf("repoPathProblem(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestSiblings(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		parent map[string]string
		wantA  string
		wantB  string
		wantOK bool
	}{
		{"both top level", "a", "b", nil, "a", "b", true},
		{"top level needs a member: lifted to the group", "x", "m", map[string]string{"m": "g"}, "x", "g", true},
		{"member needs a top-level module: lifted to the group", "m", "x", map[string]string{"m": "g"}, "g", "x", true},
		{"members of one group", "m1", "m2", map[string]string{"m1": "g", "m2": "g"}, "m1", "m2", true},
		{"members of two top-level groups", "m1", "m2", map[string]string{"m1": "g1", "m2": "g2"}, "g1", "g2", true},
		{
			"member needs a member of a nested group",
			"m1", "m2", map[string]string{"m1": "g1", "m2": "g2", "g2": "g1"},
			"m1", "g2", true,
		},
		{
			"members of groups nested at different depths",
			"m1", "m2", map[string]string{"m1": "g1", "m2": "g2", "g2": "g3"},
			"g1", "g3", true,
		},
		{
			"members of sibling groups inside one group",
			"m1", "m2", map[string]string{"m1": "g1", "m2": "g2", "g1": "top", "g2": "top"},
			"g1", "g2", true,
		},
		{"member needs its group", "m", "g", map[string]string{"m": "g"}, "", "", false},
		{"group needs its member", "g", "m", map[string]string{"m": "g"}, "", "", false},
		{
			"group needs a member of a nested group",
			"g1", "m", map[string]string{"m": "g2", "g2": "g1"},
			"", "", false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, ok := siblings(tt.a, tt.b, tt.parent)
			if a != tt.wantA || b != tt.wantB || ok != tt.wantOK {
				t.Errorf("siblings(%q, %q) = %q, %q, %v; want %q, %q, %v", tt.a, tt.b, a, b, ok, tt.wantA, tt.wantB, tt.wantOK)
			}
		})
	}
}

func TestURLProblem(t *testing.T) {
	for _, u := range []string{
		"https://charts.example.com/x",
		"https://charts.example.com/$(id)",
		"oci://registry.example.com/a;b",
		"https://user@host.example.com:8443/p?q=1&r=2#f",
		"https://host.example.com/a%20b",
		"git@github.com:org/repo.git",
		"https://[::1]:8080/x",
	} {
		if got := urlProblem(u); got != "" {
			t.Errorf("urlProblem(%q) = %q, want \"\"", u, got)
		}
	}
	const tail = ", which a URL cannot hold: percent-encode it (RFC 3986)"
	for u, want := range map[string]string{
		"https://a.example.com/a b":    `holds ' '` + tail,
		"https://a.example.com/`id`":   "holds '`'" + tail,
		"https://a.example.com/${x}":   `holds '{'` + tail,
		"https://a.example.com/a|b":    `holds '|'` + tail,
		"https://a.example.com/a\"b":   `holds '"'` + tail,
		"https://a.example.com/a\\b":   `holds '\\'` + tail,
		"https://a.example.com/a\nb":   `holds '\n'` + tail,
		"https://a.example.com/\u00e9": `holds 'é'` + tail,
	} {
		if got := urlProblem(u); got != want {
			t.Errorf("urlProblem(%q) = %q, want %q", u, got, want)
		}
	}
}
