package argocd

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// dnsSubdomainPattern is apimachinery's DNS-1123 subdomain, anchored: the
// rule IsDNSSubdomain reads by hand.
var dnsSubdomainPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// TestDNSSubdomainIsThePattern compares IsDNSSubdomain with the pattern (and
// its limit of 253 characters) on
// chosen cases and on a million random strings of an alphabet of the
// characters that matter (letters of both cases, digits, '-', '.', and
// others), most of them matching or nearly.
func TestDNSSubdomainIsThePattern(t *testing.T) {
	cases := []string{strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a.", 126) + "a", "", "a", "-", ".", "a.", ".a", "a..b", "a-", "-a", "a-b", "a.b", "a.-b", "a-.b", "0", "0.0", "A", "a_b", "a b", "é", "abc.def-ghi.jkl", "a.b.c.d.e", "--", "a--b", "a.b-"}
	for _, c := range cases {
		if got, want := IsDNSSubdomain(c), len(c) <= 253 && dnsSubdomainPattern.MatchString(c); got != want {
			t.Errorf("IsDNSSubdomain(%q) = %v, the pattern says %v", c, got, want)
		}
	}
	const alphabet = "ab0-.-.aZ_é"
	r := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for range 1_000_000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		got, want := IsDNSSubdomain(s), dnsSubdomainPattern.MatchString(s)
		if got != want {
			t.Fatalf("IsDNSSubdomain(%q) = %v, the pattern says %v", s, got, want)
		}
		if want {
			matched++
		}
	}
	// The comparison means something only if both answers are common.
	if matched < 50_000 || matched > 950_000 {
		t.Errorf("%d of a million random strings match: the alphabet tests too little", matched)
	}
}

func FuzzDNSSubdomain(f *testing.F) {
	for _, s := range []string{"a", "a.b", "a-b", "-a", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsDNSSubdomain(s), len(s) <= 253 && dnsSubdomainPattern.MatchString(s); got != want {
			t.Errorf("IsDNSSubdomain(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
