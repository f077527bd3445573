package charts

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

var english = message.NewPrinter(language.English)

// validateSchemas is ValidateAgainstSchema of pkg/chart/common/util (Helm
// 4.2.1): the chart's values.schema.json against the coalesced values,
// then each subchart's against its part, recursively; msg is Helm's
// message (empty when every value fits). Helm's loaders fetch a $ref to
// a URL and read a file: here none is followed, the schema it names
// accepts every value, and note says which were not followed.
func validateSchemas(ch *chart.Chart, values map[string]any) (problems []SchemaProblem, note, msg string) {
	var sb strings.Builder
	var notes []string
	var walk func(ch *chart.Chart, values map[string]any, at []string)
	walk = func(ch *chart.Chart, values map[string]any, at []string) {
		if ch.Schema != nil {
			ps, skipped, err := validateSingle(values, ch.Schema)
			name := strings.Join(append([]string{ch.Name()}, at...), "/")
			if slices.Sort(skipped); len(skipped) > 0 {
				skipped = slices.Compact(skipped)
				notes = append(notes, fmt.Sprintf("the values.schema.json of %s refers to %s, which platc does not fetch: the values are checked against the rest of it", name, strings.Join(skipped, ", ")))
			}
			switch {
			case err != nil:
				notes = append(notes, fmt.Sprintf("the values.schema.json of %s is not checked: %v", name, err))
			case len(ps) > 0:
				fmt.Fprintf(&sb, "%s:\n", ch.Name())
				for _, p := range ps {
					fmt.Fprintf(&sb, "- at '%s': %s\n", pointer(p.Path), p.Message)
					p.Chart = at
					p.Path = append(append([]string(nil), at...), p.Path...)
					problems = append(problems, p)
				}
				sb.WriteString("\n")
			}
		}
		for _, sub := range ch.Dependencies() {
			raw, exists := values[sub.Name()]
			if !exists || raw == nil {
				continue
			}
			subValues, ok := raw.(map[string]any)
			if !ok {
				fmt.Fprintf(&sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
				problems = append(problems, SchemaProblem{Chart: at, Path: append(append([]string(nil), at...), sub.Name()), Message: fmt.Sprintf("invalid type for values: expected object (map), got %T", raw)})
				continue
			}
			walk(sub, subValues, append(append([]string(nil), at...), sub.Name()))
		}
	}
	walk(ch, values, nil)
	return problems, strings.Join(notes, "; "), sb.String()
}

// offlineLoader stands for every schema platc would have to fetch or
// read: it accepts every value, so that the values are checked against
// the rest of the schema, and records what it stood for.
type offlineLoader struct{ skipped *[]string }

func (l offlineLoader) Load(url string) (any, error) {
	*l.skipped = append(*l.skipped, url)
	return true, nil
}

// dropRemoteRefs removes from a schema every $ref to another document (a
// file, a URL), which platc does not read, recording it: the schema it
// sits in then checks the rest (a loader's stand-in cannot, where the
// reference names a part of the document).
func dropRemoteRefs(schema any, skipped *[]string) any {
	switch v := schema.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && !strings.HasPrefix(ref, "#") && !strings.HasPrefix(ref, "urn:") {
			*skipped = append(*skipped, ref)
			delete(v, "$ref")
		}
		for k, e := range v {
			v[k] = dropRemoteRefs(e, skipped)
		}
	case []any:
		for i, e := range v {
			v[i] = dropRemoteRefs(e, skipped)
		}
	}
	return schema
}

// urnLoader is Helm's for urn: references with no resolver: a permissive
// schema.
type urnLoader struct{}

func (urnLoader) Load(string) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader("true"))
}

// validateSingle is ValidateAgainstSingleSchema of Helm, returning
// each value the schema refuses (the leaves of the validation error), or
// an error when the schema cannot be compiled offline.
func validateSingle(values common.Values, schemaJSON []byte) (problems []SchemaProblem, skipped []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, nil, err
	}
	schema = dropRemoteRefs(schema, &skipped)
	c := jsonschema.NewCompiler()
	offline := offlineLoader{&skipped}
	c.UseLoader(jsonschema.SchemeURLLoader{"file": offline, "http": offline, "https": offline, "urn": urnLoader{}})
	if err := c.AddResource("file:///values.schema.json", schema); err != nil {
		return nil, nil, err
	}
	v, err := c.Compile("file:///values.schema.json")
	if err != nil {
		return nil, skipped, err
	}
	verr := v.Validate(values.AsMap())
	if verr == nil {
		return nil, skipped, nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return nil, skipped, verr
	}
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			problems = append(problems, SchemaProblem{Path: append([]string(nil), e.InstanceLocation...), Message: e.ErrorKind.LocalizedString(english)})
			return
		}
		for _, c := range e.Causes {
			leaves(c)
		}
	}
	leaves(ve)
	return problems, skipped, nil
}

// pointer is a JSON pointer.
func pointer(path []string) string {
	var sb strings.Builder
	for _, p := range path {
		sb.WriteByte('/')
		sb.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return sb.String()
}
