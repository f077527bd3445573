package upstream_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTestsReadNothingOutside fails when a test file or a testdata file of
// platc's module names the folder beside the repository that held
// upstream's CRDs (forbidden, below): make test needs nothing outside the
// repository. What compares with upstream's files is in the conformance
// modules (their own modules, skipped here), which read them from
// upstream's modules at the versions this package names.
func TestTestsReadNothingOutside(t *testing.T) {
	// Written in two parts, so that this file does not name them.
	forbidden := []string{".." + "/shared", "shared" + "/crds"}
	read := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // another module: conformance/*, e2e
			}
			return nil
		}
		parts := strings.Split(filepath.ToSlash(p), "/")
		if !d.Type().IsRegular() || !strings.HasSuffix(p, "_test.go") && !slices.Contains(parts, "testdata") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		read++
		for _, f := range forbidden {
			if bytes.Contains(data, []byte(f)) {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s names %s: platc's tests read nothing outside the repository; compare with upstream's files in conformance/argocd or conformance/kro, which read them from upstream's modules", rel, f)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < 100 {
		t.Errorf("read %d test and testdata files: the walk missed the repository's", read)
	}
}
