package kro

import (
	"slices"
	"strings"
)

// graph returns the dependencies of every resource of the graph (the ones
// with a valid, unique id), reports each dependency cycle once, and returns
// kro's topological order: passes over the resources in declaration order,
// each taking every resource whose dependencies are already taken. The
// resources of a cycle, and those depending on them, are left out of the
// order.
func (c *checker) graph() (map[string][]string, []string) {
	var ids []string // graph vertices in declaration order
	for i, r := range c.rgd.Resources {
		if j, ok := c.known[r.ID]; ok && j == i {
			ids = append(ids, r.ID)
		}
	}
	deps := map[string][]string{}
	for _, id := range ids {
		d := []string{}
		for ref := range c.deps[id] {
			if ref != id {
				d = append(d, ref)
			}
		}
		slices.Sort(d)
		deps[id] = d
	}
	c.cycles(ids, deps)

	var order []string
	taken := map[string]bool{}
	for progress := true; progress && len(order) < len(ids); {
		progress = false
		for _, id := range ids {
			if taken[id] || c.self[id] {
				continue
			}
			if slices.ContainsFunc(deps[id], func(d string) bool { return !taken[d] }) {
				continue
			}
			order = append(order, id)
			taken[id] = true
			progress = true
		}
	}
	return deps, order
}

// cycles reports each dependency cycle once: for every strongly connected
// group of resources that reference each other, the shortest cycle through
// the one declared first, at that resource, in kro's form "a -> b -> a"
// (a references b). Self references are reported where they are written.
func (c *checker) cycles(ids []string, deps map[string][]string) {
	comp := components(ids, deps)
	done := map[int]bool{}
	for _, start := range ids { // declaration order: the first of each group
		g := comp[start]
		if done[g] {
			continue
		}
		// Breadth-first search from start, inside its group, back to start.
		prev := map[string]string{}
		queue := []string{start}
		var last string
		for len(queue) > 0 && last == "" {
			id := queue[0]
			queue = queue[1:]
			for _, d := range deps[id] {
				if comp[d] != g {
					continue
				}
				if d == start {
					last = id
					break
				}
				if _, seen := prev[d]; !seen {
					prev[d] = id
					queue = append(queue, d)
				}
			}
		}
		if last == "" {
			continue // a group of one resource without a cycle
		}
		done[g] = true
		cycle := []string{start}
		for id := last; id != start; id = prev[id] {
			cycle = append(cycle, id)
		}
		slices.Reverse(cycle[1:])
		cycle = append(cycle, start)
		c.errorf(c.known[start], "", "graph contains a cycle: %s: remove one of these references", strings.Join(cycle, " -> "))
	}
}

// components numbers the strongly connected components of the graph
// (Tarjan's algorithm).
func components(ids []string, deps map[string][]string) map[string]int {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	comp := map[string]int{}
	var stack []string
	n, next := 0, 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range deps[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = next
				if w == v {
					break
				}
			}
			next++
		}
	}
	for _, id := range ids {
		if _, seen := index[id]; !seen {
			visit(id)
		}
	}
	return comp
}
