package conformance

import (
	"fmt"
	"strings"
)

// This file generates family 2: resource ids and the RGD's metadata
// (kind, group, apiVersion), with resources that reference each other.

// primitive returns a resource of the orchestrator's kind (PostgresInstance
// or ObjectBucket) with the template spec given.
func primitive(id, kind string, spec map[string]any) map[string]any {
	return map[string]any{"id": id, "template": map[string]any{
		"apiVersion": "platform.example.org/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": "${schema.metadata.name}-" + strings.ToLower(id)},
		"spec":       spec,
	}}
}

// reservedWords are kro's reserved ids (pkg/graph/validation.go)
// and CEL's, with near misses.
var reservedWords = []string{"apiVersion", "context", "dependency", "dependencies", "each", "externalRef", "externalReference",
	"externalRefs", "externalReferences", "graph", "instance", "item", "items", "kind", "kro", "metadata", "namespace", "object",
	"resource", "resourcegraphdefinition", "resourceGraphDefinition", "resources", "root", "runtime", "schema", "self",
	"serviceAccountName", "spec", "status", "this", "variables", "vars", "version", "true", "false", "null", "in", "as", "break",
	"const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "return", "var", "void", "while",
	"graphengine", "Schema", "selfie", "int", "string", "dyn", "type", "has", "bool", "list", "map"}

// GenMeta is family 2's generator.
func GenMeta(g *Gen) map[string]any {
	schema := map[string]any{
		"apiVersion": genAPIVersion(g),
		"kind":       genKind(g),
		"spec":       map[string]any{"name": "string | default=\"x\""},
	}
	if grp, ok := genGroup(g); ok {
		schema["group"] = grp
	}
	n := g.IntN(5)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = genID(g, ids[:i])
	}
	var resources []any
	for i, id := range ids {
		kind := Pick(g, "PostgresInstance", "ObjectBucket")
		spec := map[string]any{"region": "${schema.spec.name}"}
		// A reference to another resource, sometimes making a cycle or
		// a self-reference, or to an unknown one.
		if n > 0 && g.Chance(0.5) {
			other := ids[g.IntN(n)]
			if g.Chance(0.1) {
				other = Pick(g, "unknown", "schema2", "db")
			}
			field := "endpoint"
			if ids[i] != "" && strings.Contains(strings.ToLower(other), "bucket") {
				field = "bucketName"
			}
			if kind == "PostgresInstance" {
				spec["databaseName"] = "${" + other + ".status." + field + "}"
			} else {
				spec["region"] = "${" + other + ".status." + field + "}"
			}
		}
		r := primitive(id, kind, spec)
		if g.Chance(0.1) {
			r["template"].(map[string]any)["metadata"].(map[string]any)["labels"] = map[string]any{Pick(g, "app", "kro.run/owned", "kro.run/x", "example.com/kro.run"): "x"}
		}
		if g.Chance(0.1) {
			r["template"].(map[string]any)["metadata"].(map[string]any)["namespace"] = Pick(g, "${schema.metadata.namespace}", "fixed")
		}
		if g.Chance(0.15) && n > 0 {
			other := ids[g.IntN(n)]
			if g.Chance(0.5) {
				r["readyWhen"] = []any{"${" + other + ".status.endpoint != \"\"}"}
			} else {
				r["includeWhen"] = []any{"${" + other + ".status.endpoint != \"\"}"}
			}
		}
		resources = append(resources, r)
	}
	if g.Chance(0.1) {
		// A resource kind the world lacks, or a version it does not serve.
		resources = append(resources, map[string]any{"id": "extra", "template": map[string]any{
			"apiVersion": Pick(g, "v1", "platform.example.org/v1", "example.com/v1alpha1", "argoproj.io/v1alpha1"),
			"kind":       Pick(g, "ConfigMap", "PostgresInstance", "Widget", "AppProject"),
			"metadata":   map[string]any{"name": "x"},
		}})
	}
	if g.Chance(0.2) && len(ids) > 0 {
		schema["status"] = map[string]any{"out": "${" + ids[0] + ".status.endpoint}"}
	}
	obj := rgdObject(schema, resources)
	if g.Chance(0.08) {
		// platc writes a stack's description as an annotation; the API
		// server limits the annotations of an object to 256 KiB, keys
		// included.
		const key = "platc.dev/description"
		n := Pick(g, 100, 262144-len(key)-1, 262144-len(key), 262144-len(key)+1, 300000)
		obj["metadata"].(map[string]any)["annotations"] = map[string]any{key: strings.Repeat("d", n)}
	}
	return obj
}

func genID(g *Gen, before []string) string {
	switch r := g.Float64(); {
	case r < 0.8:
		return Pick(g, "database", "bucket", "myDb", "a", "db2", "logsBucket", "x1Y2", "cache")
	case r < 0.9:
		return Pick(g, reservedWords...)
	case r < 0.95 && len(before) > 0:
		return Pick(g, before...) // a duplicate
	default:
		return Pick(g, "My", "my_db", "my-db", "1db", "", "db.x", "dB", "ünicode", "a b", "_x", "x"+strings.Repeat("y", 70))
	}
}

func genKind(g *Gen) string {
	switch r := g.Float64(); {
	case r < 0.7:
		return Pick(g, "Conformance", "WebApp", "App2", "X", "TeamCache", "Policy", "Status", "Person", "Child", "Index", "Mouse", "Datum", "Sheep")
	case r < 0.8:
		return Pick(g, "Application", "AppProject", "PostgresInstance", "ObjectBucket", "ResourceGraphDefinition", "ApplicationList", "Applications")
	case r < 0.9:
		// Long kinds, around the limits of the kind (63) and of its
		// plural (a DNS label, 63).
		n := Pick(g, 58, 60, 61, 62, 63, 64)
		end := Pick(g, "s", "y", "x", "a", "h", "o")
		return "K" + strings.Repeat("ind", n/3)[:n-2] + end
	default:
		return Pick(g, "webApp", "Web_App", "Web-App", "", "1App", "ÄApp", "APP", "App App", "app")
	}
}

func genGroup(g *Gen) (string, bool) {
	switch r := g.Float64(); {
	case r < 0.4:
		return "", false
	case r < 0.8:
		return Pick(g, "kro.run", "platform.example.org", "example.com", "teams.example.com", "a.b", "argoproj.io", "xn--80ak6aa92e.com"), true
	case r < 0.9:
		return Pick(g, "nodot", "kro", "localhost", "example"), true
	default:
		label := strings.Repeat("a", Pick(g, 62, 63, 64))
		long := strings.Repeat("abcdefghi.", 26) + "com"
		return Pick(g, "Upper.Case.com", "a..b", ".a.b", "a.b.", "-a.b", "a_b.com", label+".com", long, fmt.Sprintf("%s.example.com", label)), true
	}
}

func genAPIVersion(g *Gen) string {
	if g.Chance(0.85) {
		return Pick(g, "v1alpha1", "v1", "v2beta3", "v1beta1", "v10")
	}
	return Pick(g, "v0", "V1", "v1alpha", "v1.0", "apps/v1", "", "v1alpha1beta1", "v1-alpha1", "kro.run/v1alpha1", "alpha1")
}
