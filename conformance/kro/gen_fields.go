package conformance

import "fmt"

// This file generates family 5: the kro fields stacks gained with issue
// 12. Resources of Kubernetes' own kinds (and of kinds no one serves),
// forEach collections (over lists, over what is not a list, with
// iterators a name does not use, with iterators reading each other, read
// by other resources as lists), externalRefs (of known and unknown kinds,
// read by other resources), readyWhen on resources and on collections
// (each), and status fields over schema and collections.
//
// readyWhen may be on every collection, of any kinds: since kro v0.9.4 its
// build context types each per collection (before, as the collection it
// validated first, in map order, which platc refused always). Left out on
// purpose: a forEach entry of two iterators, which platc's stack decoder
// refuses before an RGD exists.

// fieldKinds are the kinds family 5 creates: Kubernetes' own that platc
// serves, a primitive, and kinds no cluster here serves.
var fieldKinds = []struct{ apiVersion, kind string }{
	{"v1", "ConfigMap"}, {"v1", "ConfigMap"}, {"v1", "Namespace"}, {"v1", "ServiceAccount"}, {"v1", "Secret"},
	{"networking.k8s.io/v1", "NetworkPolicy"}, {"rbac.authorization.k8s.io/v1", "Role"},
	{"platform.example.org/v1alpha1", "ObjectBucket"},
	{"v1", "Sekret"}, {"gateway.networking.k8s.io/v1", "HTTPRoute"},
}

// GenFields is family 5's generator.
func GenFields(g *Gen) map[string]any {
	schema := map[string]any{
		"apiVersion": "v1alpha1",
		"kind":       "Fields",
		"spec": map[string]any{
			"name":    "string | default=\"x\"",
			"regions": "[]string | default=[\"eu\"]",
			"counts":  "[]integer | default=[1]",
			"labels":  "map[string]string | default={}",
			"count":   "integer | default=1",
		},
	}
	type res struct {
		id, kind     string
		iterators    []string
		collection   bool
		external     bool
		namespaced   bool
		dataIsString bool // ConfigMap data
	}
	var made []res
	var resources []any
	if g.Chance(0.4) {
		k := Pick(g, fieldKinds[4], fieldKinds[0], fieldKinds[8], fieldKinds[2])
		meta := map[string]any{"name": Pick(g, "${schema.spec.name}-ref", "fixed", "${schema.spec.count}")}
		if g.Chance(0.5) {
			meta["namespace"] = Pick(g, "secrets", "${schema.metadata.namespace}")
		}
		resources = append(resources, map[string]any{"id": "ref", "externalRef": map[string]any{
			"apiVersion": k.apiVersion, "kind": k.kind, "metadata": meta}})
		made = append(made, res{id: "ref", kind: k.kind, external: true})
	}
	n := 1 + g.IntN(3)
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		k := fieldKinds[g.IntN(len(fieldKinds))]
		if g.Chance(0.9) {
			k = fieldKinds[g.IntN(8)] // mostly known kinds
		}
		r := res{id: id, kind: k.kind, namespaced: k.kind != "Namespace"}
		item := map[string]any{"id": id}
		name := "${schema.spec.name}-" + id
		var forEach []any
		if g.Chance(0.5) {
			for j := range 1 + g.IntN(2) {
				it := Pick(g, "region", "region", "tier", "zone", "item")
				if j == 1 {
					it += "2"
				}
				list := Pick(g, "${schema.spec.regions}", "${schema.spec.regions}", "${schema.spec.regions}", "${['a', 'b']}",
					"${schema.spec.regions.map(r, r + '-x')}", "${schema.spec.counts}", "${[]}")
				if g.Chance(0.15) { // not a list
					list = Pick(g, "${schema.spec.name}", "${schema.spec.count}", "${schema.spec.labels}", "schema.spec.regions")
				}
				if j == 1 && g.Chance(0.15) {
					list = "${[" + r.iterators[0] + "]}" // reads the other iterator
				}
				for _, m := range made {
					if m.collection && g.Chance(0.2) {
						list = "${" + m.id + "}" // another collection, as a list
					}
				}
				forEach = append(forEach, map[string]any{it: list})
				r.iterators = append(r.iterators, it)
			}
			r.collection = true
			item["forEach"] = forEach
			if g.Chance(0.85) {
				for _, it := range r.iterators {
					name += "-${string(" + it + ")}"
				}
			}
		}
		meta := map[string]any{"name": name}
		if g.Chance(0.15) && (r.namespaced || g.Chance(0.3)) {
			meta["namespace"] = "${schema.metadata.namespace}"
		}
		tmpl := map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": meta}
		// What the object holds: its kind's fields, some read from schema,
		// an iterator, an externalRef or an earlier resource, with the
		// type right or wrong.
		value := func() string {
			vals := []string{"${schema.spec.name}", "${schema.spec.name}", "plain", "plain", "${string(schema.spec.count)}"}
			if g.Chance(0.1) {
				vals = append(vals, "${schema.spec.count}")
			}
			for _, it := range r.iterators {
				vals = append(vals, "${string("+it+")}", "${string("+it+")}", "${"+it+"}")
			}
			for _, m := range made {
				switch {
				case m.external && m.kind == "Secret":
					vals = append(vals, "${string(ref.data.key)}", "${ref.data.key}")
				case m.external:
					vals = append(vals, "${ref.metadata.name}")
				case m.collection:
					vals = append(vals, "${string(size("+m.id+"))}", "${"+m.id+"[0].metadata.name}")
				default:
					vals = append(vals, "${"+m.id+".metadata.name}")
				}
			}
			return Pick(g, vals...)
		}
		switch k.kind {
		case "ConfigMap":
			tmpl["data"] = map[string]any{"a": value(), "b": value()}
			r.dataIsString = true
		case "Secret":
			tmpl["stringData"] = map[string]any{"a": value()}
		case "ServiceAccount":
			tmpl["automountServiceAccountToken"] = Pick[any](g, "${schema.spec.count > 0}", "${schema.spec.name}", false)
		case "NetworkPolicy":
			tmpl["spec"] = map[string]any{"podSelector": map[string]any{}, "policyTypes": []any{"Ingress"},
				"ingress": []any{map[string]any{"ports": []any{map[string]any{"port": Pick[any](g, "${schema.spec.count}", "http", 80)}}}}}
		case "Role":
			tmpl["rules"] = []any{map[string]any{"apiGroups": []any{""}, "resources": []any{value()}, "verbs": []any{"get"}}}
		case "ObjectBucket":
			tmpl["spec"] = map[string]any{"region": value()}
		case "Namespace":
			meta["labels"] = map[string]any{"team": value()}
		default:
			tmpl["spec"] = map[string]any{"x": value()}
		}
		item["template"] = tmpl
		if g.Chance(0.3) {
			self := id
			if r.collection {
				self = "each"
			} else if g.Chance(0.1) {
				self = "each" // each outside a collection
			}
			if self != "" {
				item["readyWhen"] = []any{Pick(g,
					"${"+self+".metadata.name != ''}",
					"${"+self+".metadata.?uid.orValue('') != ''}",
					"${"+self+".metadata.name}",
					"${"+self+".status.?phase.orValue('') == 'Active'}",
					"${"+self+".data.a == 'x'}",
				)}
			}
		}
		if g.Chance(0.15) && r.collection {
			item["includeWhen"] = []any{Pick(g, "${schema.spec.count > 0}", "${size(schema.spec.regions) > 0}")}
		}
		resources = append(resources, item)
		made = append(made, r)
	}
	if g.Chance(0.4) {
		status := map[string]any{"name": Pick(g, "${schema.spec.name}", "${schema.spec.regions}")}
		for _, m := range made {
			if m.collection && g.Chance(0.6) {
				status[m.id] = Pick(g, "${"+m.id+".map(x, x.metadata.name)}", "${size("+m.id+")}", "${"+m.id+".metadata.name}")
			}
		}
		schema["status"] = status
	}
	return rgdObject(schema, resources)
}
