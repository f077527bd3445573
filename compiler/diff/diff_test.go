package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFields(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want []Change
	}{
		{"equal", map[string]any{"a": 1.0}, map[string]any{"a": 1.0}, nil},
		{"scalar", map[string]any{"a": "x"}, map[string]any{"a": "y"}, []Change{{Path: "a", Old: "x", New: "y", HasOld: true, HasNew: true}}},
		{"added and removed keys", map[string]any{"a": 1.0}, map[string]any{"b": 2.0},
			[]Change{{Path: "a", Old: 1.0, HasOld: true}, {Path: "b", New: 2.0, HasNew: true}}},
		{"named items in another order are no change",
			[]any{map[string]any{"name": "x", "v": 1.0}, map[string]any{"name": "y", "v": 2.0}},
			[]any{map[string]any{"name": "y", "v": 2.0}, map[string]any{"name": "x", "v": 1.0}}, nil},
		{"named items matched by name",
			[]any{map[string]any{"id": "a", "v": 1.0}, map[string]any{"id": "b"}},
			[]any{map[string]any{"id": "a", "v": 2.0}, map[string]any{"id": "c"}},
			[]Change{
				{Path: "[id=a].v", Old: 1.0, New: 2.0, HasOld: true, HasNew: true},
				{Path: "[id=b]", Old: map[string]any{"id": "b"}, HasOld: true},
				{Path: "[id=c]", New: map[string]any{"id": "c"}, HasNew: true},
			}},
		{"other lists by index", []any{"a", "b"}, []any{"a", "c", "d"},
			[]Change{{Path: "[1]", Old: "b", New: "c", HasOld: true, HasNew: true}, {Path: "[2]", New: "d", HasNew: true}}},
		{"a key with a dot is quoted", map[string]any{"example.com/x": "1"}, map[string]any{"example.com/x": "2"},
			[]Change{{Path: `"example.com/x"`, Old: "1", New: "2", HasOld: true, HasNew: true}}},
		{"a type change", map[string]any{"a": []any{1.0}}, map[string]any{"a": "x"},
			[]Change{{Path: "a", Old: []any{1.0}, New: "x", HasOld: true, HasNew: true}}},
		// The extended Argo CD fields diff as any field: roles and
		// parameters are matched by name, sync windows by index.
		{"a project role's policy",
			map[string]any{"roles": []any{map[string]any{"name": "ops", "policies": []any{"p, proj:c:ops, applications, get, c/*, allow"}}, map[string]any{"name": "release"}}},
			map[string]any{"roles": []any{map[string]any{"name": "release"}, map[string]any{"name": "ops", "policies": []any{"p, proj:c:ops, applications, sync, c/*, allow"}}}},
			[]Change{{Path: "roles[name=ops].policies[0]", Old: "p, proj:c:ops, applications, get, c/*, allow", New: "p, proj:c:ops, applications, sync, c/*, allow", HasOld: true, HasNew: true}}},
		{"a sync window and a parameter",
			map[string]any{"syncWindows": []any{map[string]any{"kind": "allow", "schedule": "0 22 * * *"}}, "parameters": []any{map[string]any{"name": "image.tag", "value": "1"}}},
			map[string]any{"syncWindows": []any{map[string]any{"kind": "allow", "schedule": "0 23 * * *"}}, "parameters": []any{map[string]any{"name": "image.tag", "value": "2"}}},
			[]Change{
				{Path: "parameters[name=image.tag].value", Old: "1", New: "2", HasOld: true, HasNew: true},
				{Path: "syncWindows[0].schedule", Old: "0 22 * * *", New: "0 23 * * *", HasOld: true, HasNew: true},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fields("", tt.a, tt.b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestObjectsPlaceEachObject(t *testing.T) {
	files := map[string][]byte{
		"out/deploy/clusters/dev/apps.yaml":         []byte("# header\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\n---\nkind: Application\nmetadata:\n  name: db\n"),
		"out/deploy/gitops/argocd/root-app.yaml":    []byte("kind: Application\nmetadata:\n  name: root-dev\nspec:\n  source:\n    path: out/deploy/clusters/dev\n"),
		"out/deploy/clusters/dev/obs/stack.yaml":    []byte("kind: ObservabilityStack\nmetadata:\n  name: payments\n"),
		"out/stacks/stack.yaml":                     []byte("kind: ResourceGraphDefinition\nmetadata:\n  name: stack\n"),
		"out/deploy/direct-apply/dev/values/x.yaml": []byte("replicas: 1\n"),
		"sources/platform.cue":                      []byte("not a render"),
	}
	objs, err := Objects(files, "out")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Env+"/"+o.Kind+"/"+o.Name+"/"+o.Client)
	}
	want := []string{"dev/Application/web/", "dev/Application/db/", "dev/ObservabilityStack/payments/payments", "dev/Application/root-dev/", "/ResourceGraphDefinition/stack/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
