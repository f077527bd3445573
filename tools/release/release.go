package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// defaultTargets are the platforms a release has archives for.
var defaultTargets = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// versionVar is the variable of platc's that a release build stamps
// with its version (platc version prints it; platc init pins it).
const versionVar = "github.com/platc/platc/compiler/cli.stampedVersion"

// buildTags are those platc's Makefile builds with.
const buildTags = "kustomize_disable_go_plugin_support"

type options struct {
	root, out, version string
	snapshot           bool
	targets            []string
}

// file is one file of an archive.
type file struct {
	name string
	mode int64
	data []byte
}

func run(o options, w io.Writer) error {
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			if e, ok := err.(*exec.ExitError); ok {
				return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(e.Stderr))
			}
			return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	// A snapshot of a tree that is no Git checkout (a CI's copy) is
	// built all the same: its version names no commit, and its files
	// carry a fixed time.
	vcs := "-buildvcs=true"
	rev, err := git("rev-parse", "HEAD")
	if err != nil && !o.snapshot {
		return fmt.Errorf("%v: run it in a clone of platc's repository", err)
	}
	modified := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC) // zip's first day
	if err == nil {
		ct, err := git("log", "-1", "--format=%ct")
		if err != nil {
			return err
		}
		secs, err := strconv.ParseInt(ct, 10, 64)
		if err != nil {
			return fmt.Errorf("the commit's time %q: %v", ct, err)
		}
		modified = time.Unix(secs, 0).UTC()
	} else {
		rev, vcs = "", "-buildvcs=false"
	}

	version := o.version
	if o.snapshot {
		last := "v0.0.0"
		if rev != "" {
			if tag, err := git("describe", "--tags", "--abbrev=0", "--match", "v*"); err == nil && isRelease(tag) {
				last = tag
			}
		}
		version = last + "-snapshot"
		if rev != "" {
			version += ".g" + rev[:7]
		}
	} else {
		if !isRelease(version) {
			return fmt.Errorf("version %q is not a release's tag: give one such as v1.2.0, or -snapshot", version)
		}
		tags, err := git("tag", "--points-at", "HEAD")
		if err != nil {
			return err
		}
		if !slices.Contains(strings.Fields(tags), version) {
			return fmt.Errorf("HEAD (%s) is not tagged %s: tag it (git tag %s), or build a snapshot", rev[:12], version, version)
		}
		if st, err := git("status", "--porcelain"); err != nil {
			return err
		} else if st != "" {
			return fmt.Errorf("the tree has changes not committed: a release is built from its tag alone")
		}
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	build := filepath.Join(out, ".build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return err
	}

	sums := map[string]string{}
	for _, target := range o.targets {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok || goos == "" || goarch == "" {
			return fmt.Errorf("target %q: give GOOS/GOARCH, such as linux/amd64", target)
		}
		exe := "platc"
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(build, goos+"_"+goarch, exe)
		fmt.Fprintf(w, "release: building platc %s for %s\n", version, target)
		cmd := exec.Command("go", "build", "-trimpath", vcs, "-tags", buildTags,
			"-ldflags", "-s -w -X "+versionVar+"="+version, "-o", bin, "./cmd/platc")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		cmd.Stdout, cmd.Stderr = w, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building for %s: %v", target, err)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		files := []file{{exe, 0o755, data}, {"README.md", 0o644, readme}}
		name := archiveName(version, goos, goarch)
		var archive []byte
		if goos == "windows" {
			archive, err = zipOf(files, modified)
		} else {
			archive, err = tarGzOf(files, modified)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), archive, 0o644); err != nil {
			return err
		}
		sums[name] = hexSum(archive)
	}
	if err := os.RemoveAll(build); err != nil {
		return err
	}
	checksums := checksumsName(version)
	if err := os.WriteFile(filepath.Join(out, checksums), checksumFile(sums), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "release: wrote %d archives and %s into %s\n", len(sums), checksums, out)

	host := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains(o.targets, host) {
		fmt.Fprintf(w, "release: not run: no archive for this machine (%s)\n", host)
		return nil
	}
	line, err := tryArchive(out, version, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "release: %s unpacked and run: %s\n", archiveName(version, runtime.GOOS, runtime.GOARCH), line)
	return nil
}

// isRelease says whether v is a version a tag names: semantic and
// canonical, without build metadata, not a Go pseudo-version or a
// snapshot. It is the rule platc init pins by (compiler/cli's releaseOf).
func isRelease(v string) bool {
	return semver.Canonical(v) == v && v != "" && !module.IsPseudoVersion(v) && !strings.Contains(semver.Prerelease(v), "snapshot")
}

func archiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return "platc_" + strings.TrimPrefix(version, "v") + "_" + goos + "_" + goarch + ext
}

func hexSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func checksumsName(version string) string {
	return "platc_" + strings.TrimPrefix(version, "v") + "_checksums.txt"
}

// checksumFile is sha256sum's format, by name: sha256sum -c reads it.
func checksumFile(sums map[string]string) []byte {
	var b bytes.Buffer
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.Bytes()
}

// tarGzOf is a gzipped tar of files, in their order, each with the time
// modified and no owner: the same files give the same bytes.
func tarGzOf(files []file, modified time.Time) ([]byte, error) {
	var b bytes.Buffer
	gz, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: modified, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// zipOf is tarGzOf's zip, for windows.
func zipOf(files []file, modified time.Time) ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: modified}
		h.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := fw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// tryArchive checks an archive as a user gets it: its checksum against
// the checksums file, then its platc unpacked and run, which must name
// version. It returns platc version's first line.
func tryArchive(dir, version, goos, goarch string) (string, error) {
	name := archiveName(version, goos, goarch)
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	sums, err := os.ReadFile(filepath.Join(dir, checksumsName(version)))
	if err != nil {
		return "", err
	}
	if !bytes.Contains(sums, []byte(hexSum(data)+"  "+name+"\n")) {
		return "", fmt.Errorf("%s: its checksum is not the one %s gives", name, checksumsName(version))
	}
	tmp, err := os.MkdirTemp("", "platc-release-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	exe := "platc"
	if goos == "windows" {
		exe += ".exe"
		if err := unzip(data, tmp); err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
	} else if err := untar(data, tmp); err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	out, err := exec.Command(filepath.Join(tmp, exe), "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s: platc version: %v", name, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(first, "platc "+version+" ") {
		return "", fmt.Errorf("%s: platc version says %q, not version %s", name, first, version)
	}
	return first, nil
}

func untar(data []byte, dir string) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := writeOut(dir, h.Name, os.FileMode(h.Mode), tr); err != nil {
			return err
		}
	}
}

func unzip(data []byte, dir string) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return err
		}
		err = writeOut(dir, f.Name, f.Mode(), rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// writeOut writes an archive's file into dir; the archives hold plain
// names only.
func writeOut(dir, name string, mode os.FileMode, r io.Reader) error {
	if name != filepath.Base(name) || name == ".." {
		return fmt.Errorf("entry %q is not a plain name", name)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, bufio.NewReader(r)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
