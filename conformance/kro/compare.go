package conformance

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"
)

// Verdict is what each side makes of one case: platc's problems (none: it
// accepts) and the error of kro or the API server (nil: they accept).
type Verdict struct {
	Platc []string
	Kro   error
}

// Agree reports whether both accept or both refuse.
func (v Verdict) Agree() bool { return (len(v.Platc) == 0) == (v.Kro == nil) }

// Class names a kind of disagreement: which side refuses, and the refusing
// side's message with the case's own names and numbers blanked out, so
// that cases with one cause fall into one class.
func (v Verdict) Class() string {
	if v.Agree() {
		return ""
	}
	if v.Kro != nil {
		return "platc accepts, kro refuses: " + Normalize(v.Kro.Error())
	}
	return "platc refuses, kro accepts: " + Normalize(v.Platc[0])
}

// normalizers blank out what one case names of its own: quoted strings,
// generated field names, schema paths, numbers, values.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`Invalid value: \{.*?\}: `), "Invalid value: …: "},
	{regexp.MustCompile(`^kro\.Check: [^:]*: [^:]*: `), "kro.Check: "},
	{regexp.MustCompile(`^clients\.[^.]+\.stacks\.[^.]+\.spec\S*: `), "clients.….spec.…: "},
	{regexp.MustCompile(`^\w+ [^\s:]+: /spec\S*: `), "… /spec/…: "},
	{regexp.MustCompile(`-?\b\d+(\.\d+)?(e[+-]?\d+)?\b`), "N"},
	// The name of an undeclared function stays: each is its own class.
	{regexp.MustCompile(`undeclared reference to '([^']*)'`), "undeclared reference to ‹$1›"},
	{regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`), `"…"`},
	{regexp.MustCompile(`Invalid value: [^:]*: `), "Invalid value: …: "},
	{regexp.MustCompile(`(\.?(properties|items|additionalProperties)(\[[^\]]*\])?)+`), ".…"},
	{regexp.MustCompile(`\[(spec\.validation)`), "$1"},
	{regexp.MustCompile(`(\bfield [^\s:]+: )+`), "field …: "},
	{regexp.MustCompile(`\bbuilding schema for \S+: `), "building schema for …: "},
	{regexp.MustCompile(`\bnode \S+ does not exist`), "node … does not exist"},
	{regexp.MustCompile(`\btypes\.[^\s:]+`), "types.…"},
	{regexp.MustCompile(`\bspec\.[^\s:,\]]+`), "spec.…"},
	{regexp.MustCompile(`is not a valid [^:]+:`), "is not a valid …:"},
	{regexp.MustCompile(`expected \w+, got [^;]+;`), "expected …, got …;"},
	{regexp.MustCompile(`got: .*$`), "got: …"},
	{regexp.MustCompile(` \(did you mean "…"\?\)`), ""},
	{regexp.MustCompile(`\bf\d+\b`), "fN"},
	{regexp.MustCompile(`\b\d+\b`), "N"},
}

// Normalize blanks out, in the first line of msg, what a case names of its
// own.
func Normalize(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	for _, n := range normalizers {
		msg = n.re.ReplaceAllString(msg, n.with)
	}
	// Of a list of errors, the first names the class.
	if before, list, ok := strings.Cut(msg, " is invalid: ["); ok {
		before += " is invalid"
		for _, sep := range []string{", spec.", ", <nil>:", ", metadata.", ", status."} {
			list, _, _ = strings.Cut(list, sep)
		}
		msg = before + ": " + strings.TrimSuffix(list, "]")
	}
	return msg
}

// Sides are the two judges of an RGD case; tests replace Platc with a stub
// to prove that a disagreement is caught.
type Sides struct {
	Platc func(obj map[string]any) []string
	Kro   func(obj map[string]any) error
}

// RealSides judges with platc's checks and kro's code in world w.
func RealSides(w *World) Sides {
	return Sides{
		Platc: PlatcRGD,
		Kro: func(obj map[string]any) error {
			_, err := w.BuildRGD(obj)
			return err
		},
	}
}

// Judge asks both sides about obj.
func (s Sides) Judge(obj map[string]any) Verdict {
	return Verdict{Platc: s.Platc(obj), Kro: s.Kro(obj)}
}

// Generator makes the case of one seed.
type Generator func(g *Gen) map[string]any

// Report is the outcome of a family.
type Report struct {
	Family                 string
	Cases                  int
	BothAccept, BothRefuse int
	Classes                []*DisagreementClass // most frequent first
	// Judging and Shrinking are the wall time spent judging the cases
	// and shrinking the reproducers, for the log.
	Judging, Shrinking time.Duration
}

// Disagreements counts the cases on which the sides disagree.
func (r *Report) Disagreements() int {
	n := 0
	for _, c := range r.Classes {
		n += c.Count
	}
	return n
}

// DisagreementClass is one class of disagreement, with its smallest
// reproducer.
type DisagreementClass struct {
	Class   string
	Count   int
	Seed    uint64 // the first case of the class
	Case    map[string]any
	Verdict Verdict
}

// String is the reproducer: the class, the case as YAML, and both sides' words.
func (c *DisagreementClass) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %d cases, first seed %d; smallest reproducer:\n", c.Class, c.Count, c.Seed)
	y, err := yaml.Marshal(c.Case)
	if err != nil {
		y = []byte(fmt.Sprintf("%#v", c.Case))
	}
	for _, l := range strings.Split(strings.TrimRight(string(y), "\n"), "\n") {
		if len(l) > 400 {
			l = fmt.Sprintf("%s… (a line of %d bytes)", l[:200], len(l))
		}
		fmt.Fprintf(&b, "    %s\n", l)
	}
	if len(c.Verdict.Platc) == 0 {
		b.WriteString("  platc: accepts\n")
	}
	for _, p := range c.Verdict.Platc {
		fmt.Fprintf(&b, "  platc: %s\n", p)
	}
	if c.Verdict.Kro == nil {
		b.WriteString("  kro: accepts\n")
	} else {
		fmt.Fprintf(&b, "  kro: %s\n", strings.ReplaceAll(c.Verdict.Kro.Error(), "\n", "\n       "))
	}
	return b.String()
}

// Run generates n cases of a family from the seeds base..base+n-1, has
// both sides judge each (on every core), and groups the disagreements
// into classes, each with a reproducer shrunk while it stays in its class.
func Run(family string, base uint64, n int, gen Generator, sides Sides) *Report {
	start := time.Now()
	verdicts := make([]Verdict, n)
	cases := make([]map[string]any, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				cases[i] = gen(NewGen(base + uint64(i)))
				verdicts[i] = sides.Judge(cases[i])
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	r := &Report{Family: family, Cases: n, Judging: time.Since(start)}
	byClass := map[string]*DisagreementClass{}
	for i, v := range verdicts {
		switch {
		case v.Agree() && v.Kro == nil:
			r.BothAccept++
		case v.Agree():
			r.BothRefuse++
		default:
			c := byClass[v.Class()]
			if c == nil {
				c = &DisagreementClass{Class: v.Class(), Seed: base + uint64(i), Case: cases[i], Verdict: v}
				byClass[c.Class] = c
				r.Classes = append(r.Classes, c)
			}
			c.Count++
		}
	}
	slices.SortStableFunc(r.Classes, func(a, b *DisagreementClass) int { return b.Count - a.Count })
	start = time.Now()
	var sw sync.WaitGroup
	for _, c := range r.Classes {
		sw.Go(func() {
			c.Case, c.Verdict = Shrink(c.Case, c.Class, sides)
		})
	}
	sw.Wait()
	r.Shrinking = time.Since(start)
	return r
}

// Summary is one line of counts.
func (r *Report) Summary() string {
	return fmt.Sprintf("%s: %d cases: %d both accept, %d both refuse, %d disagree in %d classes (judged in %v, shrunk in %v)",
		r.Family, r.Cases, r.BothAccept, r.BothRefuse, r.Disagreements(), len(r.Classes), r.Judging.Round(time.Millisecond), r.Shrinking.Round(time.Millisecond))
}

// Gen is a deterministic source of random choices, biased to edges by its
// callers.
type Gen struct {
	*rand.Rand
	Seed uint64
}

// NewGen returns the generator of seed.
func NewGen(seed uint64) *Gen { return &Gen{rand.New(rand.NewPCG(seed, 0x6b726f)), seed} }

// Chance is true with probability p.
func (g *Gen) Chance(p float64) bool { return g.Float64() < p }

// Pick returns one of xs.
func Pick[T any](g *Gen, xs ...T) T { return xs[g.IntN(len(xs))] }
