package rgd

import "testing"

func TestAppendKroPath(t *testing.T) {
	for _, tt := range []struct{ base, kro, want string }{
		{"stacks.s", "", "stacks.s"},
		{"stacks.s", "spec.size", "stacks.s.spec.size"},
		{"m.values", "a[0].b", "m.values.a[0].b"},
		{"m.values", `grafana["grafana.ini"].database.host`, `m.values.grafana."grafana.ini".database.host`},
		{"m.values", `["a.b"][2]["c"]`, `m.values."a.b"[2].c`},
		{"m.values", `x["unterminated`, `m.values.x."[\"unterminated"`},
	} {
		if got := appendKroPath(tt.base, tt.kro); got != tt.want {
			t.Errorf("appendKroPath(%q, %q) = %q, want %q", tt.base, tt.kro, got, tt.want)
		}
	}
}
