package model

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/schemas"
)

// TestEveryKindIsDescribed requires a full row of KindInfos for every
// module kind but KindInvalid, a field of its own, and that field in
// #Module of the spec language: the stages read the row, so a kind
// without one would fall to their loud defaults.
func TestEveryKindIsDescribed(t *testing.T) {
	module := regexp.MustCompile(`(?s)#Module: \{(.*?)\n\}`).FindSubmatch(schemas.PlatformCUE)
	if module == nil {
		t.Fatal("no #Module in the schema")
	}
	seen := map[string]bool{}
	for k := KindChart; k < kindCount; k++ {
		info := k.Info()
		if info.Field == "" || info.Syncs == 0 || info.Deploys == 0 || info.DirectApply == 0 {
			t.Errorf("kind %d (%q) is not fully described: %+v", k, info.Field, info)
		}
		if seen[info.Field] {
			t.Errorf("two kinds are set by field %q", info.Field)
		}
		seen[info.Field] = true
		if !regexp.MustCompile(`\n\t` + info.Field + `\?:`).Match(module[1]) {
			t.Errorf("kind %q has no field %s?: in #Module", info.Field, info.Field)
		}
		if Kinds[k] != info.Field {
			t.Errorf("Kinds[%d] = %q, want %q", k, Kinds[k], info.Field)
		}
	}
	if KindInvalid.Info() != (KindInfo{}) {
		t.Errorf("KindInvalid is described: %+v", KindInvalid.Info())
	}
}

// TestLintsAreTheAllowedIDs keeps the lint names of the spec those of the
// message ids an allow field may silence.
func TestLintsAreTheAllowedIDs(t *testing.T) {
	want := []string{LintLiteralSecret, LintWildcard}
	if !slices.Equal(Lints, want) {
		t.Errorf("Lints = %v, want %v (the ids marked Allow in diag.Messages)", Lints, want)
	}
	allow := regexp.MustCompile(`(?s)// #Allow lists (.*?)#Allow:`).FindSubmatch(schemas.PlatformCUE)
	for _, l := range Lints {
		if allow == nil || !strings.Contains(string(allow[1]), `"`+l+`"`) {
			t.Errorf("lint %q is not named by #Allow's comment in the schema", l)
		}
	}
}
