package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// widgetCRD exercises the conversion rules on a small CRD of its own,
// with what the embedded CRDs lack (int-or-string, nullable, bounds).
const widgetCRD = `
# A comment before the first document.
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1beta1
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
            properties:
              name:
                type: string
                maxLength: 10
          spec:
            type: object
            required: [size, mode]
            x-kubernetes-validations:
            - rule: self.size > 0
              message: size must be positive
            properties:
              size:
                type: integer
                format: int32
                minimum: 0
                exclusiveMinimum: true
                maximum: 10
              mode:
                type: string
                enum: [fast, slow]
                default: fast
              port:
                x-kubernetes-int-or-string: true
                nullable: true
                anyOf:
                - type: integer
                - type: string
              comment:
                type: string
                nullable: true
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known:
                    type: boolean
              labels:
                type: object
                additionalProperties:
                  type: string
              embedded:
                type: object
                x-kubernetes-embedded-resource: true
                properties:
                  spec:
                    type: object
                    properties:
                      a:
                        type: string
              choice:
                type: object
                properties:
                  a:
                    type: string
                  b:
                    type: string
                allOf:
                - properties:
                    a:
                      maxLength: 3
              tags:
                type: array
                maxItems: 2
                x-kubernetes-list-type: set
                items:
                  type: string
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: string
---
`

func widgetValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := FromCRDs(map[string][]byte{"widget.yaml": []byte(widgetCRD)})
	if err != nil {
		t.Fatalf("FromCRDs: %v", err)
	}
	return v
}

func TestWidgetKinds(t *testing.T) {
	want := []string{"example.com/v1/Widget", "example.com/v2/Widget"}
	if diff := cmp.Diff(want, widgetValidator(t).Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch (-want +got):\n%s", diff)
	}
}

func TestConversionRules(t *testing.T) {
	v := widgetValidator(t)
	const head = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
	tests := []struct {
		name string
		doc  string
		want []Problem
	}{
		{
			name: "required field with a default may be left out",
			doc:  head + "spec:\n  size: 5\n",
		},
		{
			name: "everything valid",
			doc: head + `spec:
  size: 10
  mode: slow
  port: http
  comment: null
  extra: {known: true, other: {deep: [1]}}
  labels: {a: b}
  embedded:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: x, uid: anything-goes-here}
    spec: {a: b}
  choice: {a: abc, b: anything}
  tags: [x, z]
`,
		},
		{
			name: "int-or-string nullable",
			doc:  head + "spec:\n  size: 1\n  port: null\n",
		},
		{
			name: "int-or-string integer",
			doc:  head + "spec:\n  size: 1\n  port: 8080\n",
		},
		{
			name: "int-or-string refuses a boolean",
			doc:  head + "spec:\n  size: 1\n  port: true\n",
			want: []Problem{{"/spec/port", "got boolean, want integer or string or null", false}},
		},
		{
			name: "required field without default",
			doc:  head + "spec:\n  mode: fast\n",
			want: []Problem{{"/spec", `missing required field "size"`, false}},
		},
		{
			name: "exclusive minimum and enum",
			doc:  head + "spec:\n  size: 0\n  mode: medium\n",
			want: []Problem{
				{"/spec/mode", `got "medium", want one of "fast", "slow"`, false},
				{"/spec/size", "got 0, want more than 0", false},
			},
		},
		{
			name: "maximum, maxItems, type with null",
			doc:  head + "spec:\n  size: 11\n  tags: [a, b, c]\n  port: 1.5\n  comment: 3\n",
			want: []Problem{
				{"/spec/comment", "got number, want string or null", false},
				{"/spec/port", "got number, want integer or string or null", false},
				{"/spec/size", "got 11, want at most 10", false},
				{"/spec/tags", "got 3 items, want at most 2", false},
			},
		},
		{
			name: "preserve-unknown-fields still checks declared properties",
			doc:  head + "spec:\n  size: 1\n  extra: {known: maybe, unknown: 1}\n",
			want: []Problem{{"/spec/extra/known", "got string, want boolean", false}},
		},
		{
			name: "map values",
			doc:  head + "spec:\n  size: 1\n  labels: {a: 1}\n",
			want: []Problem{{"/spec/labels/a", "got number, want string", false}},
		},
		{
			name: "embedded resource is strict below its declared fields",
			doc:  head + "spec:\n  size: 1\n  embedded: {kind: X, spec: {b: c}, status: {}}\n",
			want: []Problem{
				{"/spec/embedded/spec/b", `unknown field "b"`, true},
				{"/spec/embedded/status", `unknown field "status"`, true},
			},
		},
		{
			name: "allOf checks values, not unknown fields",
			doc:  head + "spec:\n  size: 1\n  choice: {a: abcd, b: x}\n",
			want: []Problem{{"/spec/choice/a", "got 4 characters, want at most 3", false}},
		},
		{
			name: "CRD metadata constraints add to the built-in schema",
			doc:  "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a-very-long-name\n  generation: 2\nspec:\n  size: 1\n",
			want: []Problem{
				{"/metadata/generation", `unknown field "generation"`, true},
				{"/metadata/name", "got 16 characters, want at most 10", false},
			},
		},
		{
			name: "field names with / and ~ are escaped in pointers",
			doc:  head + "spec:\n  size: 1\n  a/b~c: 1\n",
			want: []Problem{{"/spec/a~1b~0c", `unknown field "a/b~c"`, true}},
		},
		{
			name: "other served version has its own schema",
			doc:  "apiVersion: example.com/v2\nkind: Widget\nspec:\n  size: 1\n",
			want: []Problem{{"/spec/size", "got number, want string", false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Validate(decode(t, tt.doc))
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateGoValues(t *testing.T) {
	v := widgetValidator(t)
	obj := map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"spec":       map[string]any{"size": int64(3), "port": 8080, "tags": []string{"a"}},
	}
	got, err := v.Validate(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{"/spec/tags", "got Go value of type []string, want a JSON value", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}

func TestFromCRDsErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{
			name:  "same kind twice",
			files: map[string][]byte{"a.yaml": []byte(widgetCRD), "b.yaml": []byte(widgetCRD)},
			want:  "b.yaml: document 2: example.com/v1/Widget is already defined in a.yaml: document 2",
		},
		{
			name:  "not a CRD",
			files: map[string][]byte{"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\n")},
			want:  "cm.yaml: document 1: not an apiextensions.k8s.io/v1 CustomResourceDefinition: apiVersion v1, kind ConfigMap",
		},
		{
			name:  "list instead of a mapping",
			files: map[string][]byte{"list.yaml": []byte("- a\n")},
			want:  "list.yaml: document 1: not a CustomResourceDefinition: want a mapping, got []interface {}",
		},
		{
			name: "unsupported keyword",
			files: map[string][]byte{"w.yaml": []byte(strings.Replace(widgetCRD,
				"              labels:\n                type: object\n",
				"              labels:\n                type: object\n                patternProperties: {}\n", 1))},
			want: `w.yaml: document 2: example.com/v1/Widget: openAPIV3Schema/properties/spec/properties/labels: unsupported schema keyword "patternProperties"`,
		},
		{
			name: "no served version",
			files: map[string][]byte{"w.yaml": []byte(strings.ReplaceAll(widgetCRD,
				"    served: true\n", "    served: false\n"))},
			want: "w.yaml: document 2: Widget.example.com: no served version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := FromCRDs(tt.files)
			if err == nil {
				t.Fatalf("FromCRDs: got kinds %v and no error, want error %q", v.Kinds(), tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("FromCRDs error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// widgetObjects are the documents of widgetCRD, decoded, as FromObjects
// takes them: the empty first document is nil.
func widgetObjects(t *testing.T) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, doc := range splitDocuments([]byte(widgetCRD)) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, m)
	}
	return docs
}

// TestFromObjects checks that decoded CRDs make the validator their YAML
// makes, errors included.
func TestFromObjects(t *testing.T) {
	v, err := FromObjects(map[string][]map[string]any{"widget.yaml": widgetObjects(t)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(widgetValidator(t).Kinds(), v.Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch (-FromCRDs +FromObjects):\n%s", diff)
	}
	obj := decode(t, "apiVersion: example.com/v1\nkind: Widget\nspec: {size: 11, mode: medium, colour: red}\n")
	want, _ := widgetValidator(t).Validate(obj)
	got, err := v.Validate(obj)
	if err != nil || len(want) == 0 {
		t.Fatalf("Validate: %v, %d problems from FromCRDs' validator", err, len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-FromCRDs +FromObjects):\n%s", diff)
	}

	_, err = FromObjects(map[string][]map[string]any{"a.yaml": widgetObjects(t), "b.yaml": widgetObjects(t)})
	if want := "b.yaml: document 2: example.com/v1/Widget is already defined in a.yaml: document 2"; fmt.Sprint(err) != want {
		t.Errorf("FromObjects error:\n got %v\nwant %s", err, want)
	}
}

// TestWith checks that the extra validator's kinds win, and that an
// unknown kind's error lists the base validator's kinds only.
func TestWith(t *testing.T) {
	base := widgetValidator(t)
	extraCRD := strings.Replace(widgetCRD, "                maximum: 10\n", "                maximum: 20\n", 1)
	extraCRD = strings.ReplaceAll(extraCRD, "  - name: v2\n", "  - name: v3\n")
	extra, err := FromCRDs(map[string][]byte{"extra.yaml": []byte(extraCRD)})
	if err != nil {
		t.Fatal(err)
	}
	v := base.With(extra)
	want := []string{"example.com/v1/Widget", "example.com/v2/Widget", "example.com/v3/Widget"}
	if diff := cmp.Diff(want, v.Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch (-want +got):\n%s", diff)
	}
	obj := decode(t, "apiVersion: example.com/v1\nkind: Widget\nspec: {size: 15, mode: fast}\n")
	if got, err := v.Validate(obj); err != nil || len(got) != 0 {
		t.Errorf("Validate with extra's schema (maximum 20): %v, %v; want no problem", got, err)
	}
	if got, _ := base.Validate(obj); len(got) != 1 {
		t.Errorf("Validate with base's schema (maximum 10): %v; want one problem, base must not change", got)
	}
	_, err = v.Validate(map[string]any{"apiVersion": "v1", "kind": "ConfigMap"})
	if want := `no schema for apiVersion "v1", kind "ConfigMap" (known: example.com/v1/Widget, example.com/v2/Widget)`; fmt.Sprint(err) != want {
		t.Errorf("Validate error:\n got %v\nwant %s", err, want)
	}
}
