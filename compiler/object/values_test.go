package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name       string
		base, over map[string]any
		want       map[string]any
	}{
		{"both nil", nil, nil, nil},
		{"nil base", nil, map[string]any{"a": 1}, map[string]any{"a": 1}},
		{"nil over", map[string]any{"a": 1}, nil, map[string]any{"a": 1}},
		{"empty over of nil base", nil, map[string]any{}, map[string]any{}},
		{
			"disjoint keys are kept",
			map[string]any{"a": 1},
			map[string]any{"b": 2},
			map[string]any{"a": 1, "b": 2},
		},
		{
			"scalar replaces scalar",
			map[string]any{"replicas": int64(1), "tag": "v1"},
			map[string]any{"replicas": int64(3)},
			map[string]any{"replicas": int64(3), "tag": "v1"},
		},
		{
			"maps merge recursively",
			map[string]any{"image": map[string]any{"repo": "nginx", "tag": "v1", "pull": map[string]any{"policy": "Always", "secret": "s"}}},
			map[string]any{"image": map[string]any{"tag": "v2", "pull": map[string]any{"policy": "IfNotPresent"}}},
			map[string]any{"image": map[string]any{"repo": "nginx", "tag": "v2", "pull": map[string]any{"policy": "IfNotPresent", "secret": "s"}}},
		},
		{
			"lists replace, never append",
			map[string]any{"args": []any{"--a", "--b"}},
			map[string]any{"args": []any{"--c"}},
			map[string]any{"args": []any{"--c"}},
		},
		{
			"scalar replaces map",
			map[string]any{"resources": map[string]any{"cpu": "1"}},
			map[string]any{"resources": "none"},
			map[string]any{"resources": "none"},
		},
		{
			"map replaces scalar",
			map[string]any{"resources": "none"},
			map[string]any{"resources": map[string]any{"cpu": "1"}},
			map[string]any{"resources": map[string]any{"cpu": "1"}},
		},
		{
			"list replaces map",
			map[string]any{"x": map[string]any{"a": 1}},
			map[string]any{"x": []any{1}},
			map[string]any{"x": []any{1}},
		},
		{
			"null replaces a map",
			map[string]any{"x": map[string]any{"a": 1}},
			map[string]any{"x": nil},
			map[string]any{"x": nil},
		},
		{
			"a map over a null",
			map[string]any{"x": nil},
			map[string]any{"x": map[string]any{"a": 1}},
			map[string]any{"x": map[string]any{"a": 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(tt.base, tt.over)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeDoesNotModifyItsInputs(t *testing.T) {
	base := map[string]any{
		"image": map[string]any{"tag": "v1", "pull": map[string]any{"policy": "Always"}},
		"args":  []any{"--a"},
		"keep":  1,
	}
	over := map[string]any{
		"image": map[string]any{"tag": "v2", "pull": map[string]any{"secret": "s"}},
		"args":  []any{"--b"},
		"new":   2,
	}
	baseBefore := map[string]any{
		"image": map[string]any{"tag": "v1", "pull": map[string]any{"policy": "Always"}},
		"args":  []any{"--a"},
		"keep":  1,
	}
	overBefore := map[string]any{
		"image": map[string]any{"tag": "v2", "pull": map[string]any{"secret": "s"}},
		"args":  []any{"--b"},
		"new":   2,
	}

	got := Merge(base, over)
	if diff := cmp.Diff(baseBefore, base); diff != "" {
		t.Errorf("Merge modified base (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(overBefore, over); diff != "" {
		t.Errorf("Merge modified over (-before +after):\n%s", diff)
	}

	// Nor is the result tied to them: changing it leaves them alone.
	got["keep"] = "changed"
	got["image"].(map[string]any)["tag"] = "changed"
	got["image"].(map[string]any)["pull"].(map[string]any)["policy"] = "changed"
	if diff := cmp.Diff(baseBefore, base); diff != "" {
		t.Errorf("changing the result modified base (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(overBefore, over); diff != "" {
		t.Errorf("changing the result modified over (-before +after):\n%s", diff)
	}
}

func TestSetPath(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		path   []string
		v      any
		want   map[string]any
	}{
		{"top-level key in nil values", nil, []string{"host"}, "db:5432", map[string]any{"host": "db:5432"}},
		{
			"creates the maps on the way",
			nil,
			[]string{"config", "redis", "host"},
			"redis",
			map[string]any{"config": map[string]any{"redis": map[string]any{"host": "redis"}}},
		},
		{
			"keeps the siblings on the way",
			map[string]any{"config": map[string]any{"redis": map[string]any{"port": int64(6379)}, "debug": true}, "replicas": int64(2)},
			[]string{"config", "redis", "host"},
			"redis",
			map[string]any{"config": map[string]any{"redis": map[string]any{"port": int64(6379), "host": "redis"}, "debug": true}, "replicas": int64(2)},
		},
		{
			"replaces the value there",
			map[string]any{"config": map[string]any{"host": "old"}},
			[]string{"config", "host"},
			"new",
			map[string]any{"config": map[string]any{"host": "new"}},
		},
		{
			"replaces a map at the end of the path",
			map[string]any{"config": map[string]any{"db": map[string]any{"host": "x"}}},
			[]string{"config", "db"},
			"db:5432",
			map[string]any{"config": map[string]any{"db": "db:5432"}},
		},
		{
			"replaces a scalar in the way",
			map[string]any{"config": "inline"},
			[]string{"config", "db", "port"},
			int64(5432),
			map[string]any{"config": map[string]any{"db": map[string]any{"port": int64(5432)}}},
		},
		{
			"replaces a list in the way",
			map[string]any{"config": []any{"a"}},
			[]string{"config", "host"},
			"h",
			map[string]any{"config": map[string]any{"host": "h"}},
		},
		{
			"a key with a dot is one key",
			nil,
			[]string{"annotations", "example.com/host"},
			"h",
			map[string]any{"annotations": map[string]any{"example.com/host": "h"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SetPath(tt.values, tt.path, tt.v)); diff != "" {
				t.Errorf("SetPath(%v, %q) (-want +got):\n%s", tt.values, tt.path, diff)
			}
		})
	}
}

func TestSetPathDoesNotModifyItsInput(t *testing.T) {
	values := map[string]any{"config": map[string]any{"redis": map[string]any{"port": int64(6379)}}, "other": "x"}
	before := map[string]any{"config": map[string]any{"redis": map[string]any{"port": int64(6379)}}, "other": "x"}
	SetPath(values, []string{"config", "redis", "host"}, "redis")
	SetPath(values, []string{"other"}, "y")
	SetPath(values, []string{"config", "new"}, 1)
	if diff := cmp.Diff(before, values); diff != "" {
		t.Errorf("setPath modified its input (-before +after):\n%s", diff)
	}
}
