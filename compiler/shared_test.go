package compiler_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/check"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/layers"
	"github.com/platc/platc/compiler/load"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
	"github.com/platc/platc/compiler/rgd"
	"github.com/platc/platc/compiler/verify"
)

// TestLaterStagesLeaveRenderedObjects runs the stages one by one on the
// sample and every golden case that renders, and requires that verify
// and emit leave the rendered objects as render made them. Render shares
// parts between objects (a module's syncPolicy, the finalizers), which
// is sound only while no stage changes an object once made.
func TestLaterStagesLeaveRenderedObjects(t *testing.T) {
	rendered := 0
	for _, dir := range repos(t) {
		fsys := os.DirFS(dir)
		log := &diag.Log{}
		loaded := load.Load(fsys, compiler.DefaultSpecDir, log)
		if loaded == nil || log.HasErrors() {
			continue
		}
		spec := model.Decode(loaded)
		info := check.Check(spec, fsys, log)
		stacks := rgd.Compile(spec, info, nil, nil, log)
		clientFiles := layers.Read(spec, stacks, fsys, layers.Options{}, log)
		if log.HasErrors() {
			continue
		}
		files := render.Render(spec, info, stacks, nil)
		rendered++
		before := snapshot(t, files)
		verify.Verify(verify.Input{Spec: spec, Stacks: stacks, Layers: clientFiles, Files: files, Repo: fsys}, &diag.Log{})
		if _, err := emit.Encode(compiler.DefaultSpecDir, spec.Platform.OutDir, files, nil, nil); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if after := snapshot(t, files); !bytes.Equal(before, after) {
			t.Errorf("%s: verify or emit changed a rendered object", filepath.Base(dir))
		}
	}
	if rendered < 10 {
		t.Fatalf("%d repositories render: the test compares too little", rendered)
	}
}

// snapshot is the rendered objects as bytes, copied: their plain data
// shares Helm values' maps with the objects, which a stage could change.
func snapshot(t *testing.T, files []render.File) []byte {
	t.Helper()
	var all []any
	for _, f := range files {
		for _, obj := range f.Objects {
			all = append(all, object.Plain(obj))
		}
	}
	data, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
