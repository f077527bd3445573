package charts

import "testing"

// TestNextPage: a registry's paginated tag list names its next page in a
// Link header, relative to the repository's base; none is "".
func TestNextPage(t *testing.T) {
	base := "https://ghcr.io/v2/berriai/litellm-helm"
	for link, want := range map[string]string{
		`</v2/berriai/litellm-helm/tags/list?last=0.1.5&n=100>; rel="next"`:   "/tags/list?last=0.1.5&n=100",
		`<https://ghcr.io/v2/berriai/litellm-helm/tags/list?n=2>; rel="next"`: "/tags/list?n=2",
		`</v2/berriai/litellm-helm/tags/list?last=x>; rel="prev"`:             "",
		`</v2/other/tags/list?last=x>; rel="next"`:                            "",
		"": "",
	} {
		if got := nextPage(link, base); got != want {
			t.Errorf("nextPage(%q) = %q, want %q", link, got, want)
		}
	}
}
