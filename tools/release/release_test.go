package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.0":                             true,
		"v1.3.0-rc.1":                        true,
		"v0.0.0":                             true,
		"1.2.0":                              false,
		"v1.2":                               false,
		"v1.2.0+dirty":                       false,
		"v0.0.0-snapshot.gb11441e":           false,
		"v0.0.0-20261206120000-0123456789ab": false,
		"v01.2.0":                            false,
	} {
		if got := isRelease(v); got != want {
			t.Errorf("isRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestChecksumFile(t *testing.T) {
	got := string(checksumFile(map[string]string{"b.zip": "22", "a.tar.gz": "11"}))
	if want := "11  a.tar.gz\n22  b.zip\n"; got != want {
		t.Errorf("checksumFile = %q, want %q", got, want)
	}
	if got, want := archiveName("v1.2.0", "windows", "arm64"), "platc_1.2.0_windows_arm64.zip"; got != want {
		t.Errorf("archiveName = %q, want %q", got, want)
	}
}

// TestArchivesAreReproducible requires the same files to give the same
// archive bytes, and the archives to give the files back.
func TestArchivesAreReproducible(t *testing.T) {
	files := []file{{"platc", 0o755, []byte("binary")}, {"README.md", 0o644, []byte("# platc\n")}}
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for name, archive := range map[string]func([]file, time.Time) ([]byte, error){"tar.gz": tarGzOf, "zip": zipOf} {
		a, err := archive(files, at)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := archive(files, at)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two archives of the same files differ", name)
		}
		dir := t.TempDir()
		unpack := untar
		if name == "zip" {
			unpack = unzip
		}
		if err := unpack(a, dir); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(dir, f.name))
			if err != nil || !bytes.Equal(got, f.data) {
				t.Errorf("%s: %s unpacked as %q (%v), want %q", name, f.name, got, err, f.data)
			}
			if info, err := os.Stat(filepath.Join(dir, f.name)); err == nil && runtime.GOOS != "windows" && info.Mode().Perm() != os.FileMode(f.mode) {
				t.Errorf("%s: %s has mode %v, want %v", name, f.name, info.Mode().Perm(), os.FileMode(f.mode))
			}
		}
	}
}

// TestTryArchive requires the check of an archive to run what it holds,
// and to fail on a checksum or a version that is not the release's. The
// platc in these archives is a script that prints a version line.
func TestTryArchive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in platc is a shell script")
	}
	at := time.Unix(0, 0)
	write := func(dir, says string, sum bool) {
		script := []byte("#!/bin/sh\necho 'platc " + says + " (0123456) go1.26.8'\n")
		a, err := tarGzOf([]file{{"platc", 0o755, script}}, at)
		if err != nil {
			t.Fatal(err)
		}
		name := archiveName("v1.2.0", runtime.GOOS, runtime.GOARCH)
		os.WriteFile(filepath.Join(dir, name), a, 0o644)
		sums := map[string]string{name: "0000"}
		if sum {
			sums[name] = hexSum(a)
		}
		os.WriteFile(filepath.Join(dir, checksumsName("v1.2.0")), checksumFile(sums), 0o644)
	}
	dir := t.TempDir()
	write(dir, "v1.2.0", true)
	line, err := tryArchive(dir, "v1.2.0", runtime.GOOS, runtime.GOARCH)
	if err != nil || line != "platc v1.2.0 (0123456) go1.26.8" {
		t.Errorf("tryArchive = %q, %v", line, err)
	}
	name := archiveName("v1.2.0", runtime.GOOS, runtime.GOARCH)
	for says, want := range map[string]string{
		"v1.1.0": name + `: platc version says "platc v1.1.0 (0123456) go1.26.8", not version v1.2.0`,
	} {
		write(dir, says, true)
		if _, err := tryArchive(dir, "v1.2.0", runtime.GOOS, runtime.GOARCH); err == nil || err.Error() != want {
			t.Errorf("tryArchive of a platc saying %s: %v, want %s", says, err, want)
		}
	}
	write(dir, "v1.2.0", false)
	want := name + ": its checksum is not the one platc_1.2.0_checksums.txt gives"
	if _, err := tryArchive(dir, "v1.2.0", runtime.GOOS, runtime.GOARCH); err == nil || err.Error() != want {
		t.Errorf("tryArchive with a wrong checksum: %v, want %s", err, want)
	}
}

// TestCallersAgree holds the Makefile's targets to this command's and the
// release workflow to its flags: what make release-snapshot builds is what
// a release publishes.
func TestCallersAgree(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	want := "RELEASE_TARGETS ?= " + strings.Join(defaultTargets, ",") + "\n"
	if !strings.Contains(string(makefile), want) {
		t.Errorf("the Makefile does not say %q", want)
	}
	workflow, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`run: cd tools && go run ./release -version "$GITHUB_REF_NAME"`,
		`run: gh release create "$GITHUB_REF_NAME" dist/platc_* `,
	} {
		if !strings.Contains(string(workflow), line) {
			t.Errorf(".github/workflows/release.yml does not say %q", line)
		}
	}
}
