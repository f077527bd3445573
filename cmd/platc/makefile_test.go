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

// TestMakeRehearseQuotes runs make rehearse with a go that prints its
// arguments, one a line: DIR and ENV reach the rehearsal as one argument
// each, whatever they hold (a space, a quote, a command of the shell).
func TestMakeRehearseQuotes(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "my platform's $(touch pwned)")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	goArgs := filepath.Join(tmp, "go")
	if err := os.WriteFile(goArgs, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := "it's; touch pwned; echo \"$HOME\" `touch pwned`"
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "rehearse", "GO="+goArgs, "DIR="+dir, "ENV="+env)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make rehearse: %v\n%s", err, out)
	}
	want := strings.Join([]string{"run", "./cmd/rehearse", "-programs", root + "/e2e/programs", "-C", dir, "-env", env}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("make rehearse ran go with:\n%s\nwant:\n%s", out, want)
	}
	for _, d := range []string{tmp, root, filepath.Join(root, "e2e")} {
		if _, err := os.Lstat(filepath.Join(d, "pwned")); err == nil {
			os.Remove(filepath.Join(d, "pwned"))
			t.Errorf("make rehearse ran a command of ENV or DIR: %s/pwned exists", d)
		}
	}
}
