package compiler_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/emit"
	"github.com/platc/platc/compiler/object"
	"github.com/platc/platc/compiler/render"
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
		st := renderStages(fsys, &diag.Log{})
		if st == nil {
			continue
		}
		rendered++
		before := snapshot(t, st.files)
		verify.Verify(verify.Input{Spec: st.spec, Stacks: st.stacks, Layers: st.clients, Files: st.files, Repo: fsys}, &diag.Log{})
		if _, err := emit.Encode(compiler.DefaultSpecDir, st.spec.Platform.OutDir, st.files, nil, nil); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if after := snapshot(t, st.files); !bytes.Equal(before, after) {
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
