package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Affected marks where a message given to Causes names what its cause
// affects: Causes.Report writes the list there (Affects).
const Affected = "\x00affected\x00"

// Item is one thing a cause affects: its kind ("Application"), its name,
// and where it is ("out/deploy/clusters/prod/apps.yaml", "created by
// kro in customer"; may be empty).
type Item struct {
	What, Name, Where string
}

// Causes gathers problems sharing one cause, so each is reported once at
// the place to change, naming what it affects (one missing repository, not
// one problem per Application). The zero value is ready and safe for
// concurrent use.
type Causes struct {
	mu sync.Mutex
	m  map[Problem][]Item
}

// Reportf records that a problem of kind id at pos affects item; its
// message holds Affected where the list of affected items goes. Same
// message at the same place is one problem.
func (c *Causes) Reportf(id ID, pos Pos, path string, item Item, format string, args ...any) {
	p := Problem{ID: id, Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...), Severity: id.Info().Severity}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[Problem][]Item{}
	}
	c.m[p] = append(c.m[p], item)
}

// Report adds to l one problem per cause, naming what it affects
// (Affects).
func (c *Causes) Report(l *Log) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, items := range c.m {
		p.Msg = strings.Replace(p.Msg, Affected, Affects(items), 1)
		l.Add(p)
	}
	c.m = nil
}

// shownItems is how many items Affects names before it counts the rest.
const shownItems = 5

// Affects names what one cause affects, sorted, for a message:
// `Application "web" (out/deploy/clusters/prod/apps.yaml)` for one;
// `3 Applications (created by kro in customer): "a", "b" and "c"` for
// several in one place; `2 Applications: "a" (x) and "b" (y)` where
// their places differ; the first five and "and 9 more" of fourteen.
// Items of several kinds are counted as things.
func Affects(items []Item) string {
	items = slices.Clone(items)
	slices.SortFunc(items, func(a, b Item) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Where, b.Where), strings.Compare(a.What, b.What))
	})
	items = slices.Compact(items)
	if len(items) == 0 {
		return ""
	}
	one := func(it Item, where bool) string {
		s := fmt.Sprintf("%q", it.Name)
		if where && it.Where != "" {
			s += " (" + it.Where + ")"
		}
		return s
	}
	if len(items) == 1 {
		return strings.TrimSpace(items[0].What + " " + one(items[0], true))
	}
	what, where := items[0].What, items[0].Where
	for _, it := range items[1:] {
		if it.What != what {
			what = "thing"
		}
		if it.Where != where {
			where = ""
		}
	}
	head := fmt.Sprintf("%d %ss", len(items), what)
	if where != "" {
		head += " (" + where + ")"
	}
	var names []string
	for i, it := range items {
		if i == shownItems && len(items) > shownItems+1 {
			names = append(names, fmt.Sprintf("%d more", len(items)-shownItems))
			break
		}
		names = append(names, one(it, where == ""))
	}
	return head + ": " + List(names)
}
