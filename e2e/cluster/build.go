package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/platc/platc/compiler/upstream"
)

// A program is one command the control plane runs, built from a Go
// package of the programs' module (e2e/programs, whose go.mod names each
// as a tool).
type program struct {
	// Name is the file name go build gives it (the package path's last
	// element, without a major version suffix).
	Name string
	// Package is its main package.
	Package string
}

// programs are the commands a cluster runs, built in one go build so
// that the packages they share compile once.
var programs = []program{
	{"server", "go.etcd.io/etcd/server/v3"},
	{"kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver"},
	{"kube-controller-manager", "k8s.io/kubernetes/cmd/kube-controller-manager"},
	{"kube-scheduler", "k8s.io/kubernetes/cmd/kube-scheduler"},
	{"kwok", "sigs.k8s.io/kwok/cmd/kwok"},
	// One binary for every Argo CD component, chosen by
	// ARGOCD_BINARY_NAME (its cmd/main.go).
	{"cmd", "github.com/argoproj/argo-cd/v3/cmd"},
	{"controller", "github.com/kubernetes-sigs/kro/cmd/controller"},
	// Argo CD's repo server runs these for Helm and kustomize sources,
	// at the versions its hack/tool-versions.sh names.
	{"helm", "helm.sh/helm/v4/cmd/helm"},
	{"kustomize", "sigs.k8s.io/kustomize/kustomize/v5"},
}

// ldflags set the versions the programs report, as their own release
// builds do (Kubernetes' hack/lib/version.sh, Argo CD's Makefile, Helm's
// Makefile). A -X of a symbol a program does not have is ignored.
func ldflags() string {
	return strings.Join([]string{
		"-X k8s.io/component-base/version.gitVersion=" + upstream.Kubernetes,
		"-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=" + minor(upstream.Kubernetes),
		"-X github.com/argoproj/argo-cd/v3/common.version=" + strings.TrimPrefix(upstream.ArgoCD, "v"),
		"-X helm.sh/helm/v4/internal/version.version=" + upstream.Helm,
	}, " ")
}

// goEnv is the environment of the go commands that build the programs:
// the Go that Argo CD's module needs (upstream.GoToolchain, newer than the
// Go platc's own module builds with), which the go command takes from the
// module proxy once.
func goEnv() []string {
	return append(os.Environ(), "GOTOOLCHAIN="+upstream.GoToolchain)
}

// minor is the minor version of vMAJOR.MINOR.PATCH.
func minor(v string) string {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// Binaries is a folder of built programs.
type Binaries struct {
	Dir string
}

// Path is the file of the program named name.
func (b Binaries) Path(name string) string { return filepath.Join(b.Dir, name) }

// BuildOptions say where to build and where to keep what was built.
type BuildOptions struct {
	// ProgramsDir is the folder of the programs' module (e2e/programs:
	// its go.mod lists their versions).
	ProgramsDir string
	// CacheDir keeps the built programs, one folder per key: a later
	// build of the same key reuses them.
	CacheDir string
	// Log receives go build's output and progress lines.
	Log io.Writer
}

// DefaultCacheDir is PLATC_E2E_CACHE, or the platc-e2e folder of the
// user's cache directory.
func DefaultCacheDir() (string, error) {
	if dir := os.Getenv("PLATC_E2E_CACHE"); dir != "" {
		return filepath.Abs(dir)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the control plane's programs: %w (set PLATC_E2E_CACHE)", err)
	}
	return filepath.Join(dir, "platc-e2e"), nil
}

// Build builds the control plane's programs, or finds them built. The key
// of a build is a digest of what decides the bytes: the programs' go.mod
// and go.sum (every version), the Go version, the target and the flags.
// Builds of one key are serialized by a lock on its folder, and a build
// appears complete or not at all (it is renamed into place).
func Build(ctx context.Context, opts BuildOptions) (Binaries, error) {
	key, err := buildKey(ctx, opts.ProgramsDir)
	if err != nil {
		return Binaries{}, err
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return Binaries{}, err
	}
	final := filepath.Join(opts.CacheDir, "bin-"+key)
	bins := Binaries{Dir: final}
	unlock, err := lockFile(ctx, final+".lock")
	if err != nil {
		return Binaries{}, err
	}
	defer unlock()
	if complete(bins) {
		fmt.Fprintf(opts.Log, "e2e: control plane programs built before (%s)\n", final)
		return bins, nil
	}
	tmp, err := os.MkdirTemp(opts.CacheDir, "build-")
	if err != nil {
		return Binaries{}, err
	}
	defer os.RemoveAll(tmp)
	args := []string{"build", "-o", tmp + string(filepath.Separator), "-ldflags", ldflags()}
	for _, p := range programs {
		args = append(args, p.Package)
	}
	fmt.Fprintf(opts.Log, "e2e: building the control plane (%d programs; the first build takes 8 to 13 minutes on 2 cores)\n", len(programs))
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.ProgramsDir
	cmd.Env = append(goEnv(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = opts.Log, opts.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(opts.Log, "e2e: still building the control plane (%s)\n", time.Since(start).Round(time.Minute))
			}
		}
	}()
	err = cmd.Run()
	close(done)
	if err != nil {
		return Binaries{}, fmt.Errorf("go build of the control plane in %s: %w", opts.ProgramsDir, err)
	}
	if !complete(Binaries{Dir: tmp}) {
		return Binaries{}, fmt.Errorf("go build of the control plane left out a program in %s", tmp)
	}
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		return Binaries{}, err
	}
	fmt.Fprintf(opts.Log, "e2e: control plane built in %s (%s)\n", time.Since(start).Round(time.Second), final)
	return bins, nil
}

// complete reports whether every program is in b.
func complete(b Binaries) bool {
	for _, p := range programs {
		if fi, err := os.Stat(b.Path(p.Name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// buildKey digests what decides the programs' bytes.
func buildKey(ctx context.Context, moduleDir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(moduleDir, name))
		if err != nil {
			return "", fmt.Errorf("the control plane's versions: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	goVersion := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	goVersion.Env = goEnv()
	out, err := goVersion.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	fmt.Fprintf(h, "go %s\n%s/%s\n%s\n", bytes.TrimSpace(out), runtime.GOOS, runtime.GOARCH, ldflags())
	for _, p := range programs {
		fmt.Fprintf(h, "%s %s\n", p.Name, p.Package)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// lockFile takes an exclusive flock on path, waiting for another build
// while ctx allows.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
