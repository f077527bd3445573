package crdsubset

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// upstreamCRD is a small CRD of its own, with a node of each kind the
// comparison tells apart.
const upstreamCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [name]
            properties:
              name:
                type: string
                pattern: ^[a-z]+$
              size:
                type: integer
                minimum: 1
                default: 1
              labels:
                type: object
                additionalProperties:
                  type: string
              ports:
                type: array
                items:
                  x-kubernetes-int-or-string: true
              template:
                x-kubernetes-preserve-unknown-fields: true
  - name: v2
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
`

// edit returns doc with old replaced by new, exactly once.
func edit(t *testing.T, doc, old, new string) string {
	t.Helper()
	if n := strings.Count(doc, old); n != 1 {
		t.Fatalf("edit: %q occurs %d times, want 1", old, n)
	}
	return strings.Replace(doc, old, new, 1)
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name string
		ours func(t *testing.T) string
		want []string
	}{
		{
			name: "the same CRD",
			ours: func(*testing.T) string { return upstreamCRD },
		},
		{
			name: "fewer fields, and anything where upstream is open",
			ours: func(t *testing.T) string {
				doc := edit(t, upstreamCRD, "              labels:\n                type: object\n                additionalProperties:\n                  type: string\n", "")
				return edit(t, doc, "                x-kubernetes-preserve-unknown-fields: true\n", "                type: object\n                properties:\n                  anything:\n                    type: string\n")
			},
		},
		{
			name: "a field upstream does not declare",
			ours: func(t *testing.T) string {
				return edit(t, upstreamCRD, "              size:\n", "              colour:\n                type: string\n              size:\n")
			},
			want: []string{"example.com/Widget v1 .spec.colour: not in the upstream CRD"},
		},
		{
			name: "another type, a lost constraint, nullable",
			ours: func(t *testing.T) string {
				doc := edit(t, upstreamCRD, "                type: integer\n", "                type: number\n")
				doc = edit(t, doc, "                pattern: ^[a-z]+$\n", "                nullable: true\n")
				return edit(t, doc, "                items:\n                  x-kubernetes-int-or-string: true\n", "                items:\n                  type: string\n")
			},
			want: []string{
				"example.com/Widget v1 .spec.name: nullable here, not upstream",
				`example.com/Widget v1 .spec.name: no pattern, upstream ^[a-z]+$`,
				"example.com/Widget v1 .spec.ports[]: type string, upstream int-or-string",
				"example.com/Widget v1 .spec.size: type number, upstream integer",
			},
		},
		{
			name: "a required field optional",
			ours: func(t *testing.T) string {
				return edit(t, upstreamCRD, "            required: [name]\n", "")
			},
			want: []string{`example.com/Widget v1 .spec: upstream requires "name", optional here`},
		},
		{
			name: "names, scope and versions",
			ours: func(t *testing.T) string {
				doc := edit(t, upstreamCRD, "  scope: Namespaced\n", "  scope: Cluster\n")
				doc = edit(t, doc, "    plural: widgets\n", "    plural: widgetz\n")
				doc = edit(t, doc, "    served: false\n", "    served: true\n")
				return edit(t, doc, "  - name: v1\n", "  - name: v1beta1\n")
			},
			want: []string{
				`example.com/Widget spec.names.plural: "widgetz", upstream "widgets"`,
				`example.com/Widget spec.scope: "Cluster", upstream "Namespaced"`,
				"example.com/Widget v1beta1: version not in the upstream CRD",
				"example.com/Widget v2: version served here, not upstream",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compare(map[string][]byte{"ours.yaml": []byte(tt.ours(t))}, map[string][]byte{"up.yaml": []byte(upstreamCRD)}, "example.com/Widget")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompareMissing checks that a kind either side lacks is a difference:
// a comparison of nothing does not pass.
func TestCompareMissing(t *testing.T) {
	files := map[string][]byte{"widget.yaml": []byte("---\n" + upstreamCRD + "---\n")}
	got, err := Compare(files, map[string][]byte{}, "example.com/Widget", "example.com/Gadget")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"example.com/Widget: no upstream CRD", "example.com/Gadget: no CRD of ours"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
	if _, err := Compare(map[string][]byte{"bad.yaml": []byte("kind: [")}, nil); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml: document 1: ") {
		t.Errorf("Compare of a file that is not YAML: error %v", err)
	}
}

// TestWellformed checks that a CRD written by hand is refused for each
// rule it breaks, and that a good one passes.
func TestWellformed(t *testing.T) {
	good := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {ports: {type: array}}}}}}
`
	crds, err := Parse([]byte(good))
	if err != nil || len(crds) != 1 {
		t.Fatalf("Parse: %v", err)
	}
	got := Wellformed(crds[0], "widgets.yaml")
	want := []string{
		"file: named widgets.yaml, want example.com_widgets.yaml",
		"version v1 .spec.ports: an array without items",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Wellformed =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
