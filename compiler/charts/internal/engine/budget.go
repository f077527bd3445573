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
	"text/template"

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
