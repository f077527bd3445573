package charts

import (
	"bytes"
	"fmt"
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
// a URL and read a file: here none is followed, and a schema that needs
// one is not checked (note says which).
func validateSchemas(ch *chart.Chart, values map[string]any) (problems []SchemaProblem, note, msg string) {
	var sb strings.Builder
	var notes []string
	var walk func(ch *chart.Chart, values map[string]any, at []string)
	walk = func(ch *chart.Chart, values map[string]any, at []string) {
		if ch.Schema != nil {
			ps, err := validateSingle(values, ch.Schema)
			switch {
			case err != nil:
				notes = append(notes, fmt.Sprintf("the schema of %s is not checked offline: %v", strings.Join(append([]string{ch.Name()}, at...), "/"), err))
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

// offlineLoader refuses every schema platc would have to fetch or read.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("it refers to %s, which platc does not fetch", url)
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
func validateSingle(values common.Values, schemaJSON []byte) (problems []SchemaProblem, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{"file": offlineLoader{}, "http": offlineLoader{}, "https": offlineLoader{}, "urn": urnLoader{}})
	if err := c.AddResource("file:///values.schema.json", schema); err != nil {
		return nil, err
	}
	v, err := c.Compile("file:///values.schema.json")
	if err != nil {
		return nil, err
	}
	verr := v.Validate(values.AsMap())
	if verr == nil {
		return nil, nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return nil, verr
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
	return problems, nil
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
