// Package engine is Helm's template engine (helm.sh/helm/v4 pkg/engine,
// at the Helm compiler/upstream names: engine.go, funcs.go and files.go,
// copied) as platc runs it, with no cluster, no DNS, not strict and not
// linting, and within a Budget, which Helm's has not: its SDK exposes no
// bound of the nesting of tpl (it clones the templates at each call, with
// no limit), of include across defines (1,000 per define only, not
// exported), of what the templates write, or of time. engine.go is
// Helm's with the budget added; funcs.go and files.go are Helm's as
// they are.
package engine

import (
	"strconv"
	"text/template"
	"text/template/parse"

	"github.com/Masterminds/sprig/v3"
)

// budgeted replaces sprig's functions that make a string or a list as
// long as a template asks (repeat, until, untilStep, seq) by ones that
// first count what they would make against the output budget: a list's
// element as 8 bytes.
func budgeted(f template.FuncMap, s *state) {
	sf := sprig.TxtFuncMap()
	repeat := sf["repeat"].(func(int, string) string)
	until := sf["until"].(func(int) []int)
	untilStep := sf["untilStep"].(func(int, int, int) []int)
	seq := sf["seq"].(func(...int) string)
	f["repeat"] = func(count int, str string) (string, error) {
		if err := s.spendMade(int64(count), int64(len(str))); err != nil {
			return "", err
		}
		return repeat(count, str), nil
	}
	f["until"] = func(count int) ([]int, error) {
		if err := s.spendMade(int64(count), 8); err != nil {
			return nil, err
		}
		return until(count), nil
	}
	f["untilStep"] = func(start, stop, step int) ([]int, error) {
		if step != 0 {
			if err := s.spendMade(int64((stop-start)/step), 8); err != nil {
				return nil, err
			}
		}
		return untilStep(start, stop, step), nil
	}
	f["seq"] = func(params ...int) (string, error) {
		if len(params) > 0 {
			n := int64(params[len(params)-1])
			if len(params) > 1 {
				n -= int64(params[0])
			}
			if len(params) == 3 && params[1] != 0 {
				n /= int64(params[1])
			}
			if err := s.spendMade(n, 8); err != nil {
				return "", err
			}
		}
		return seq(params...), nil
	}
}

// spendMade counts count things of size bytes each, where count is
// positive.
func (s *state) spendMade(count, size int64) error {
	if count <= 0 || size <= 0 {
		return nil
	}
	if s.budget.Output > 0 && count > (s.budget.Output-s.written)/size {
		return s.fail(s.outputExceeded(), false)
	}
	return s.spend(int(count * size))
}

// tickName is the function timeLoops puts at the start of every range
// body; its name is no identifier a chart can define a function by.
const tickName = "_platc_tick"

// tick is the node timeLoops puts there: an action that writes nothing
// and calls tickName, parsed once.
var tick = func() parse.Node {
	t, err := template.New("tick").Funcs(template.FuncMap{tickName: func() string { return "" }}).Parse("{{" + tickName + "}}")
	if err != nil {
		panic(err)
	}
	return t.Tree.Root.Nodes[0]
}()

// timeLoops makes every range of t's templates check the time budget at
// each turn (tickName, which must be in t's functions): a loop that
// writes nothing and calls nothing (a range over 1e12, or ranges nested
// over a short list) never reaches the budget's other checks. The trees
// are shared by clones (tpl's): a range is ticked once.
func timeLoops(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			tickRanges(tt.Tree.Root)
		}
	}
}

func tickRanges(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			tickRanges(c)
		}
	case *parse.IfNode:
		tickRanges(n.List)
		tickRanges(n.ElseList)
	case *parse.WithNode:
		tickRanges(n.List)
		tickRanges(n.ElseList)
	case *parse.RangeNode:
		tickRanges(n.List)
		tickRanges(n.ElseList)
		if l := n.List; l != nil && (len(l.Nodes) == 0 || l.Nodes[0] != tick) {
			l.Nodes = append([]parse.Node{tick}, l.Nodes...)
		}
	}
}

// step counts one turn of a range, or one include or tpl call, and
// checks the time every so often.
func (s *state) step() error {
	if s.exceeded != nil {
		return s.exceeded
	}
	if s.steps++; s.budget.Steps > 0 && s.steps > s.budget.Steps {
		return s.fail("its range loops and include and tpl calls take more than "+strconv.FormatInt(s.budget.Steps, 10)+" steps (a loop that never ends, or includes that multiply)", false)
	}
	if s.steps%256 == 0 {
		return s.checkTime()
	}
	return nil
}
