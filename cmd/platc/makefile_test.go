package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileSources holds the Makefile's PLATC_SOURCES, the folders
// whose files make bin/platc rebuild, to what platc is built from: every
// package of this module that platc imports, and the files it embeds, are
// in one of them (outside testdata, which the Makefile leaves out).
func TestMakefileSources(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLATC_SOURCES := go\.mod go\.sum \$\(shell find ([\w /]+?) -type f `).FindSubmatch(data)
	if m == nil {
		t.Fatal("the Makefile has no line PLATC_SOURCES := go.mod go.sum $(shell find <folders> -type f ...): update this test")
	}
	folders := strings.Fields(string(m[1]))
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if and .Module (eq .Module.Path "github.com/platc/platc")}}{{.Dir}}{{range .EmbedFiles}} {{$.Dir}}/{{.}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(abs, p)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		switch {
		case !slices.Contains(folders, top):
			t.Errorf("platc is built from %s, which is in none of the Makefile's PLATC_SOURCES folders %v: add %s", rel, folders, top)
		case strings.Contains("/"+rel+"/", "/testdata/"):
			t.Errorf("platc embeds %s, in a testdata folder, which the Makefile's PLATC_SOURCES leaves out", rel)
		}
	}
}
