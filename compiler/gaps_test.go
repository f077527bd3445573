package compiler_test

import (
	"testing"

	"github.com/platc/platc/compiler"
)

// TestGapWords: what a summary says of each kind of gap, and how to
// check it: a count of charts and Applications, up to three names of
// clients and modules (their number beyond), the flag or command that
// checks it, none where platc cannot.
func TestGapWords(t *testing.T) {
	for _, tc := range []struct {
		gap       compiler.Gap
		what, fix string
	}{
		{compiler.Gap{Kind: compiler.GapUnlockedCharts, Names: []string{"web"}}, "1 chart without a lock", "run platc charts pull"},
		{compiler.Gap{Kind: compiler.GapUnlockedCharts, Names: []string{"loki", "web"}}, "2 charts without a lock", "run platc charts pull"},
		{compiler.Gap{Kind: compiler.GapUncachedCharts, Names: []string{"web"}}, "1 locked chart neither cached nor vendored", "run platc charts pull"},
		{compiler.Gap{Kind: compiler.GapValuesOutOfReach, Names: []string{"dev/a", "dev/b"}}, "the charts of 2 Applications with a values file out of reach", "pass -client-repo"},
		{compiler.Gap{Kind: compiler.GapClientValues, Names: []string{"search"}}, "the values files of client search", "pass -client-repo search=DIR"},
		{compiler.Gap{Kind: compiler.GapClientValues, Names: []string{"a", "b", "c"}}, "the values files of clients a, b and c", "pass -client-repo CLIENT=DIR for each"},
		{compiler.Gap{Kind: compiler.GapClientValues, Names: []string{"a", "b", "c", "d"}}, "the values files of 4 clients", "pass -client-repo CLIENT=DIR for each"},
		{compiler.Gap{Kind: compiler.GapUnreadFolders, Names: []string{"tenants"}}, "the unread folder of module tenants", ""},
		{compiler.Gap{Kind: compiler.GapExtraFolders, Names: []string{"mesh", "tenants"}}, "the further folders of modules mesh and tenants", ""},
		{compiler.Gap{Kind: compiler.GapRemoteBases, Names: []string{"remote"}}, "the remote bases of module remote", ""},
		{compiler.Gap{Kind: compiler.GapInflatedCharts, Names: []string{"a", "b"}}, "the Helm charts inflated by the folders of modules a and b", ""},
		{compiler.Gap{Kind: compiler.GapUnbuiltCharts, Names: []string{"sources/charts/web"}}, "the chart in folder sources/charts/web without its dependencies", "run platc charts pull"},
		{compiler.Gap{Kind: compiler.GapUnbuiltCharts, Names: []string{"a", "b"}}, "the charts in folders a and b without their dependencies", "run platc charts pull"},
	} {
		if got := tc.gap.What(); got != tc.what {
			t.Errorf("%s %v: What() = %q, want %q", tc.gap.Kind, tc.gap.Names, got, tc.what)
		}
		if got := tc.gap.Fix(); got != tc.fix {
			t.Errorf("%s %v: Fix() = %q, want %q", tc.gap.Kind, tc.gap.Names, got, tc.fix)
		}
	}
}
