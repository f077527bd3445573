package diag

import (
	"fmt"
	"testing"
)

func TestAffects(t *testing.T) {
	app := func(name, where string) Item { return Item{"Application", name, where} }
	var fourteen []Item
	for i := range 14 {
		fourteen = append(fourteen, app(fmt.Sprintf("team%02d-loki", 13-i), "created by kro in customer"))
	}
	for _, c := range []struct {
		items []Item
		want  string
	}{
		{[]Item{app("web", "out/a.yaml")}, `Application "web" (out/a.yaml)`},
		{[]Item{app("web", "")}, `Application "web"`},
		{[]Item{app("b", "k"), app("a", "k"), app("a", "k")}, `2 Applications (k): "a" and "b"`},
		{[]Item{app("b", "y"), app("a", "x")}, `2 Applications: "a" (x) and "b" (y)`},
		{[]Item{app("a", "x"), {"environment", "dev", ""}}, `2 things: "a" (x) and "dev"`},
		{fourteen, `14 Applications (created by kro in customer): "team00-loki", "team01-loki", "team02-loki", "team03-loki", "team04-loki" and 9 more`},
		{fourteen[:6], `6 Applications (created by kro in customer): "team08-loki", "team09-loki", "team10-loki", "team11-loki", "team12-loki" and "team13-loki"`},
	} {
		if got := Affects(c.items); got != c.want {
			t.Errorf("Affects(%v) =\n %s\nwant\n %s", c.items, got, c.want)
		}
	}
}

// TestCausesReportOnce reports problems of one message at one place once,
// whatever order they come in, and keeps those of another place apart.
func TestCausesReportOnce(t *testing.T) {
	var c Causes
	at := Pos{File: "p.cue", Line: 3, Col: 2}
	for _, name := range []string{"c", "a", "b"} {
		c.Reportf(ProjectSource, at, "environments.prod.projects.apps.sourceRepos", Item{"Application", name, "created by kro in prod"}, "repository %s, which affects %s: add it", "r", Affected)
	}
	c.Reportf(ProjectSource, Pos{File: "p.cue", Line: 9, Col: 2}, "environments.dev.projects.apps.sourceRepos", Item{"Application", "a", "out/dev.yaml"}, "repository %s, which affects %s: add it", "r", Affected)
	var l Log
	c.Report(&l)
	want := `p.cue:3:2: environments.prod.projects.apps.sourceRepos: repository r, which affects 3 Applications (created by kro in prod): "a", "b" and "c": add it [project-source]
p.cue:9:2: environments.dev.projects.apps.sourceRepos: repository r, which affects Application "a" (out/dev.yaml): add it [project-source]
`
	if got := l.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
