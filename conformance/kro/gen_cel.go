package conformance

import "fmt"

// This file generates family 3: CEL expressions over typed schemas, in
// templates (standalone and string templates), includeWhen, readyWhen and
// status, using kro's functions and the Kubernetes CEL libraries.

// celSchema is the instance schema every family 3 case has.
func celSchema() (spec, types map[string]any) {
	spec = map[string]any{
		"name":     `string | default="app"`,
		"replicas": "integer | default=1",
		"ratio":    "float | default=0.5",
		"enabled":  "boolean | default=true",
		"tags":     "[]string",
		"ports":    "[]integer",
		"labels":   "map[string]string",
		"endpoint": map[string]any{"host": "string", "port": "integer"},
		"extra":    "object",
		"size":     `string | enum="small,large" default="small"`,
		"items":    "[]Item",
		"version":  `string | default="1.2.3"`,
		"cidr":     `string | default="10.0.0.0/8"`,
	}
	types = map[string]any{"Item": map[string]any{"name": "string", "weight": "integer"}}
	return spec, types
}

// celType is the type of a generated expression, as far as the generator
// knows it.
type celType string

const (
	tString  celType = "string"
	tInt     celType = "int"
	tDouble  celType = "double"
	tBool    celType = "bool"
	tList    celType = "list(string)"
	tIntLst  celType = "list(int)"
	tMap     celType = "map(string, string)"
	tDyn     celType = "dyn"
	tOptStr  celType = "optional(string)"
	tOptBool celType = "optional(bool)"
	tBytes   celType = "bytes"
	tHas     celType = "has" // a field selection, for has()
	tAny     celType = ""    // anything: a wrong or unknown expression
)

type celGen struct {
	*Gen
	self  string   // the resource the expression sits in ("" for status)
	other []string // resources it may reference
}

// leaf is an expression of type t without operators.
func (c *celGen) leaf(t celType) string {
	g := c.Gen
	res := func(id, field string) string {
		if id == "" {
			return ""
		}
		return id + ".status." + field
	}
	var cands []string
	switch t {
	case tString:
		cands = []string{"schema.spec.name", "schema.metadata.name", "schema.metadata.namespace", `"lit"`, "'x'", "schema.spec.endpoint.host",
			`schema.spec.labels["a"]`, "schema.spec.tags[0]", "schema.spec.size", "schema.spec.items[0].name", "schema.spec.version",
			res(c.ref("db"), "endpoint"), res(c.ref("bucket"), "bucketName"), res(c.ref("app"), "health.status"), "schema.metadata.uid"}
	case tInt:
		cands = []string{"schema.spec.replicas", "3", "schema.spec.endpoint.port", "schema.spec.tags.size()", "size(schema.spec.name)",
			"schema.spec.ports[0]", "schema.spec.items[0].weight", res(c.ref("db"), "port"), "-1", "schema.metadata.generation"}
	case tDouble:
		cands = []string{"schema.spec.ratio", "1.5", "double(schema.spec.replicas)"}
	case tBool:
		cands = []string{"schema.spec.enabled", "true", "false", "has(schema.spec.endpoint.host)", "has(schema.spec.extra.x)",
			`schema.spec.size == "large"`}
	case tList:
		cands = []string{"schema.spec.tags", "['a', 'b']", "schema.spec.name.split('-')", "schema.spec.labels.map(k, k)"}
	case tIntLst:
		cands = []string{"schema.spec.ports", "[1, 2, 3]", "lists.range(3)"}
	case tMap:
		cands = []string{"schema.spec.labels", "{'a': 'b'}", "schema.metadata.labels"}
	case tDyn:
		cands = []string{"schema.spec.extra", "schema.spec.extra.foo", "json.unmarshal('{}')", "dyn(1)"}
	case tOptStr:
		cands = []string{"schema.spec.?endpoint.?host", "schema.spec.?labels.?a", "optional.of('x')", "schema.spec.tags[?0]"}
	case tOptBool:
		cands = []string{"schema.spec.?enabled", "optional.of(true)", "optional.none()"}
	case tHas:
		cands = []string{"schema.spec.name", "schema.spec.endpoint.port", "schema.spec.extra.a", "schema.spec.labels.a", "schema.spec.nope", "schema.metadata.labels"}
	case tBytes:
		cands = []string{"b'x'", "base64.decode('eA==')", "bytes('x')"}
	default:
		return c.wrong()
	}
	var ok []string
	for _, s := range cands {
		if s != "" {
			ok = append(ok, s)
		}
	}
	return Pick(g, ok...)
}

// ref returns id if the expression may reference it, else "".
func (c *celGen) ref(id string) string {
	for _, o := range c.other {
		if o == id {
			return id
		}
	}
	return ""
}

// wrong is an expression that names something that is not there, or is
// malformed.
func (c *celGen) wrong() string {
	return Pick(c.Gen, "schema.spec.nme", "schema.spec.endpoint.hots", "db.status.endpont", "bucket.status.bucket_name", "schema.specs.name",
		"schma.spec.name", "schema.status.x", "schema.spec.name.", "schema.spec.name +", "(schema.spec.replicas", "unknownFn(1)",
		"schema.spec.name.nope()", "each.x", "item", "runtime", "self.x", "schema.spec['name'", "schema.spec.replicas ? 1 : 2",
		"app.spec.project", "db.spec.storageGB", "schema.spec.name == 1", `"a" + 1`, "db", "schema", "omit()",
		"schema.spec.extra.x.y.z", "schema.spec.labels.a", "db.metadata.name", "schema.metadata.labels['x']")
}

// expr is an expression of type t, of depth at most d.
func (c *celGen) expr(t celType, d int) string {
	g := c.Gen
	if d <= 0 || g.Chance(0.35) {
		if g.Chance(0.04) {
			return c.wrong()
		}
		return c.leaf(t)
	}
	S, I, B := c.thunk(tString, d-1), c.thunk(tInt, d-1), c.thunk(tBool, d-1)
	// f formats its arguments, each generated only when the candidate is
	// picked.
	f := func(format string, args ...func() string) func() string {
		return func() string {
			vals := make([]any, len(args))
			for i, a := range args {
				vals[i] = a()
			}
			return fmt.Sprintf(format, vals...)
		}
	}
	var cands []func() string
	switch t {
	case tString:
		cands = []func() string{
			f("%s.lowerAscii()", S), f("%s.upperAscii()", S), f("%s.trim()", S), f("%s.replace('a', 'b')", S), f("%s + '-' + %s", S, S), f("string(%s)", I), f("string(%s)", c.thunk(tDouble, d-1)), f("%s.substring(0, 1)", S), f("%s.join(',')", c.thunk(tList, d-1)), f("'%%s-%%d'.format([%s, %s])", S, I), f("%s ? %s : %s", B, S, S), f("%s.find('[a-z]+')", S), f("url('https://' + %s).getHost()", S), f("url(%s).getScheme()", S), f("json.marshal(%s)", c.thunk(tMap, d-1)), f("strings.quote(%s)", S), f("random.seededString(8, %s)", S), f("hash.sha256(%s)", S), f("base64.encode(%s)", c.thunk(tBytes, d-1)), f("%s.orValue('none')", c.thunk(tOptStr, d-1)), f("cel.bind(x, %s, x + x)", S), f("quantity('1Gi').asApproximateFloat() > 0.0 ? 'a' : 'b'"), f("ip('10.0.0.1').string()"), f("cidr(schema.spec.cidr).ip().string()"), f("semver(schema.spec.version).major() > 0 ? 'v' : 'w'"), f("%s.reverse()", S), f("string(%s)", c.thunk(tDyn, d-1)), f("%s.charAt(0)", S), f("type(%s) == string ? 'y' : 'n'", S), f("hash.fnv64a(%s)", S), f("hash.md5(%s)", S), f("string(hash.sha256(%s))", S), f("random.seededInt(0, 10, %s)", S),
		}
	case tInt:
		cands = []func() string{
			f("%s + %s", I, I), f("%s * 2", I), f("size(%s)", S), f("%s.indexOf('a')", S), f("int(%s)", c.thunk(tDouble, d-1)), f("%s.sum()", c.thunk(tIntLst, d-1)), f("%s.max()", c.thunk(tIntLst, d-1)), f("%s.min()", c.thunk(tIntLst, d-1)), f("%s.indexOf('a')", c.thunk(tList, d-1)), f("quantity('1Gi').asInteger()"), f("semver(schema.spec.version).minor()"), f("ip('10.0.0.1').family()"), f("cidr('10.0.0.0/8').prefixLength()"), f("int(%s)", S), f("math.greatest(1, 2)"), f("%s.size()", c.thunk(tList, d-1)), f("schema.spec.items.filter(x, x.weight > 1).size()"), f("random.seededInt(0, 10, %s)", S), f("%s ? 1 : 0", B), f("lists.setAtIndex([1, 2], 0, 3)[0]"),
		}
	case tDouble:
		cands = []func() string{
			f("%s * 2.0", c.thunk(tDouble, d-1)), f("double(%s)", I), f("quantity('1.5').asApproximateFloat()"), f("%s + %s", c.thunk(tDouble, d-1), I),
		}
	case tBool:
		cands = []func() string{
			f("%s && %s", B, B), f("!%s", B), f("%s.startsWith('a')", S), f("%s.contains('x')", S), f("%s.matches('^a')", S), f("%s == %s", S, S), f("%s > %s", I, I), f("isURL(%s)", S), f("isQuantity(%s)", S), f("isIP(%s)", S), f("isCIDR(%s)", S), f("isSemver(%s)", S), f("%s.all(x, x != '')", c.thunk(tList, d-1)), f("%s.exists(x, x == 'a')", c.thunk(tList, d-1)), f("'a' in %s", c.thunk(tList, d-1)), f("'a' in %s", c.thunk(tMap, d-1)), f("%s.isSorted()", c.thunk(tIntLst, d-1)), f("sets.contains(%s, ['a'])", c.thunk(tList, d-1)), f("sets.intersects(%s, ['a'])", c.thunk(tList, d-1)), f("quantity('1Gi').isGreaterThan(quantity('1Mi'))"), f("cidr(schema.spec.cidr).containsIP(ip('10.0.0.1'))"), f("ip('::1').isLoopback()"), f("semver('1.2.3').isLessThan(semver(schema.spec.version))"), f("%s.orValue(false)", c.thunk(tOptBool, d-1)), f("%s.hasValue()", c.thunk(tOptStr, d-1)), f("schema.spec.labels.all(k, v, v != '')"), f("schema.spec.items.exists_one(x, x.name == 'a')"), f("%s == %s", I, c.thunk(tDouble, d-1)), f("%s == %s", S, I), f("%s.exists(k, k == 'a')", c.thunk(tMap, d-1)), f("has(%s)", c.thunk(tHas, d-1)), f("type(%s) == string", S), f("%s == 1", c.thunk(tDyn, d-1)), f("%s < %s", S, S),
		}
	case tList:
		cands = []func() string{
			f("%s + ['c']", c.thunk(tList, d-1)), f("%s.map(x, x.upperAscii())", c.thunk(tList, d-1)), f("%s.filter(x, x != '')", c.thunk(tList, d-1)), f("%s.split(',')", S), f("%s.findAll('[a-z]')", S), f("%s.sort()", c.thunk(tList, d-1)), f("%s.distinct()", c.thunk(tList, d-1)), f("%s.reverse()", c.thunk(tList, d-1)), f("%s.slice(0, 1)", c.thunk(tList, d-1)), f("[['a'], ['b']].flatten()"), f("lists.insertAtIndex(['a'], 0, 'b')"), f("lists.removeAtIndex(['a', 'b'], 0)"), f("schema.spec.items.map(x, x.name)"), f("schema.spec.labels.transformList(k, v, k + v)"),
		}
	case tIntLst:
		cands = []func() string{
			f("%s.map(x, x * 2)", c.thunk(tIntLst, d-1)), f("lists.range(%s)", I), f("%s.sort()", c.thunk(tIntLst, d-1)),
		}
	case tMap:
		cands = []func() string{
			f("%s.merge({'b': 'c'})", c.thunk(tMap, d-1)), f("merge(%s, {'b': 'c'})", c.thunk(tMap, d-1)), f("{%s: %s}", S, S), f("schema.spec.labels.transformMap(k, v, v + 'x')"), f("schema.spec.tags.transformMapEntry(i, v, {v: v})"),
		}
	case tOptStr:
		cands = []func() string{
			f("schema.spec.?labels[?'a']"), f("%s.or(optional.of('y'))", c.thunk(tOptStr, d-1)), f("schema.spec.?endpoint.host"),
		}
	case tOptBool:
		cands = []func() string{
			f("schema.spec.?endpoint.?host.map(h, h != '')"), f("optional.ofNonZeroValue(%s)", B),
		}
	default:
		return c.leaf(t)
	}
	return Pick(g, cands...)()
}

// thunk generates an expression of type t and depth d when called.
func (c *celGen) thunk(t celType, d int) func() string {
	return func() string { return c.expr(t, d) }
}

// place says where the generated expression goes.
type place struct {
	resource string // "" for status
	path     []string
	want     celType // the field's type
	kind     string  // "field", "template", "includeWhen", "readyWhen", "status"
}

// GenCEL is family 3's generator.
func GenCEL(g *Gen) map[string]any {
	spec, types := celSchema()
	db := primitive("db", "PostgresInstance", map[string]any{"engineVersion": "16"})
	bucket := primitive("bucket", "ObjectBucket", map[string]any{"region": "eu-west-1"})
	app := map[string]any{"id": "app", "template": map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": "${schema.metadata.name}-app", "namespace": "${schema.metadata.namespace}"},
		"spec": map[string]any{
			"project":     "default",
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "x"},
			"source":      map[string]any{"repoURL": "https://charts.example.com", "chart": "c", "targetRevision": "1.0.0", "helm": map[string]any{"valuesObject": map[string]any{"a": 1}}},
		},
	}}
	resources := []any{db, bucket}
	withApp := g.Chance(0.3)
	if withApp {
		resources = append(resources, app)
	}
	status := map[string]any{}
	for range 1 + g.IntN(3) {
		c := &celGen{Gen: g}
		p := genPlace(g, withApp)
		c.self = p.resource
		switch {
		case p.kind == "readyWhen":
			c.other = []string{p.resource}
		case p.resource == "":
			c.other = []string{"db", "bucket"}
		default:
			// A resource references resources declared before it, and
			// sometimes one after it or itself.
			for _, id := range []string{"db", "bucket", "app"} {
				if id == p.resource && !g.Chance(0.05) {
					break
				}
				if id != "app" || withApp {
					c.other = append(c.other, id)
				}
			}
		}
		want := p.want
		if g.Chance(0.15) {
			want = Pick(g, tString, tInt, tBool, tDouble, tList, tMap, tDyn, tOptBool, tOptStr, tIntLst, tBytes, tAny)
		}
		e := c.expr(want, 1+g.IntN(3))
		val := "${" + e + "}"
		switch p.kind {
		case "template":
			val = "prefix-${" + e + "}"
			if g.Chance(0.3) {
				val += "-${" + c.expr(tString, 1) + "}"
			}
		case "status":
			if g.Chance(0.2) {
				val = "v${" + e + "}"
			}
		}
		if g.Chance(0.02) {
			val = Pick(g, "${"+e, "${${"+e+"}}", "$"+e, "${}", "${ }", "${"+e+"}}")
		}
		switch p.kind {
		case "status":
			status[Pick(g, "out", "a", "b", "state", "conditions", "nested")] = val
			if g.Chance(0.1) {
				status["nested"] = map[string]any{"x": val}
			}
		case "includeWhen", "readyWhen":
			r := findResource(resources, p.resource)
			l, _ := r[p.kind].([]any)
			r[p.kind] = append(l, val)
		default:
			r := findResource(resources, p.resource)
			set(r["template"].(map[string]any), p.path, val)
		}
	}
	schema := map[string]any{"apiVersion": "v1alpha1", "kind": "Conformance", "spec": spec, "types": types}
	if len(status) > 0 {
		schema["status"] = status
	}
	return rgdObject(schema, resources)
}

func genPlace(g *Gen, withApp bool) place {
	ps := []place{
		{"db", []string{"spec", "engineVersion"}, tString, "field"},
		{"db", []string{"spec", "storageGB"}, tInt, "field"},
		{"db", []string{"spec", "databaseName"}, tString, "template"},
		{"db", []string{"metadata", "labels", "team"}, tString, "field"},
		{"bucket", []string{"spec", "versioning"}, tBool, "field"},
		{"bucket", []string{"spec", "retentionDays"}, tInt, "field"},
		{"bucket", []string{"spec", "region"}, tString, "field"},
		{"bucket", []string{"metadata", "annotations", "note"}, tString, "template"},
		{"db", nil, tBool, "includeWhen"},
		{"bucket", nil, tBool, "includeWhen"},
		{"db", nil, tBool, "readyWhen"},
		{"bucket", nil, tBool, "readyWhen"},
		{"", nil, tString, "status"},
		{"", nil, tInt, "status"},
		{"", nil, tBool, "status"},
	}
	if withApp {
		ps = append(ps,
			place{"app", []string{"spec", "source", "helm", "valuesObject", "x"}, tDyn, "field"},
			place{"app", []string{"spec", "source", "targetRevision"}, tString, "field"},
			place{"app", []string{"spec", "syncPolicy", "automated", "prune"}, tBool, "field"},
			place{"app", []string{"spec", "syncPolicy", "syncOptions"}, tList, "field"},
			place{"app", []string{"spec", "revisionHistoryLimit"}, tInt, "field"},
			place{"app", nil, tBool, "readyWhen"},
			place{"app", nil, tBool, "includeWhen"},
		)
	}
	return Pick(g, ps...)
}

func findResource(resources []any, id string) map[string]any {
	for _, r := range resources {
		if m := r.(map[string]any); m["id"] == id {
			return m
		}
	}
	panic(fmt.Sprintf("no resource %s", id))
}

// set sets the value at path in m, making maps on the way.
func set(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
