// Command rehearse delivers a platform's committed render to the real Argo
// CD and kro controllers on this machine, one control plane per
// environment (package cluster), and reports what they say of every
// Application (package deliver): the evidence, before a customer handoff,
// that the cluster converges to Git.
//
//	go run ./cmd/rehearse -C ../my-platform -env customer
//
// (make rehearse DIR=../my-platform ENV=customer). The first run builds
// the control plane from Go modules (8 to 13 minutes on two cores);
// later runs reuse it. It needs git and Debian's redis-server.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/platc/platc/e2e/cluster"
	"github.com/platc/platc/e2e/deliver"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// clientRepos is -client-repo name=dir, repeated.
type clientRepos map[string]string

func (c clientRepos) String() string { return fmt.Sprint(map[string]string(c)) }
func (c clientRepos) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want -client-repo name=dir, not %q", v)
	}
	c[name] = dir
	return nil
}

func run(args []string) int {
	fs := flag.NewFlagSet("rehearse", flag.ContinueOnError)
	dir := fs.String("C", ".", "the platform's repository `folder`")
	spec := fs.String("spec", "sources", "`folder` of the spec, relative to -C")
	envs := fs.String("env", "", "comma-separated `environments` to deliver (default: every one)")
	report := fs.String("report", "", "write the report as JSON to `file`")
	keep := fs.String("keep", "", "keep the clusters' data and logs in `folder` (default: a temporary one, removed)")
	hold := fs.Bool("hold", false, "keep the clusters running once delivered, until interrupted, to look at them with kubectl")
	timeout := fs.Duration("timeout", 10*time.Minute, "how long each environment may take to settle")
	corpus := fs.String("charts", "", "a `folder` of real chart archives (index.json: name, version, repoURL, file, sha256) to lock, vendor and serve for the pins it holds, in the rig's copy")
	_, self, _, _ := runtime.Caller(0)
	programs := fs.String("programs", filepath.Join(filepath.Dir(self), "..", "..", "programs"), "`folder` of the control plane's programs module (platc's e2e/programs)")
	repos := clientRepos{}
	fs.Var(repos, "client-repo", "a client's values repository checkout, as `name=dir` (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	programsDir := *programs
	cache, err := cluster.DefaultCacheDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rehearse:", err)
		return 2
	}
	bins, err := cluster.Build(ctx, cluster.BuildOptions{ProgramsDir: programsDir, CacheDir: cache, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rehearse:", err)
		return 2
	}
	work := *keep
	if work == "" {
		if work, err = os.MkdirTemp("", "platc-rehearse-"); err != nil {
			fmt.Fprintln(os.Stderr, "rehearse:", err)
			return 2
		}
		defer os.RemoveAll(work)
	}
	rig, err := deliver.NewRig(deliver.Source{Dir: *dir, SpecDir: *spec, ClientRepos: repos, Corpus: *corpus}, filepath.Join(work, "rig"), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rehearse:", err)
		return 1
	}
	defer rig.Close()
	rep := &deliver.Report{}
	rep.AddPins(rig.Pins)
	names := rig.Environments()
	if *envs != "" {
		names = strings.Split(*envs, ",")
	}
	var running []*deliver.Env
	defer func() {
		for _, e := range running {
			e.Stop()
		}
	}()
	for _, name := range names {
		env, err := rig.Deliver(ctx, name, deliver.EnvOptions{Binaries: bins, ProgramsDir: programsDir, Dir: filepath.Join(work, name), Log: os.Stderr})
		if err != nil {
			rep.Fail("%s: %v", name, err)
			continue
		}
		running = append(running, env)
		st, err := env.Wait(ctx, *timeout)
		if st != nil {
			rep.AddState("", st)
			rep.AddCheck(env.WaveOrder(st))
		}
		if err != nil {
			rep.Fail("%s: %v", name, err)
		}
		if !*hold {
			env.Stop()
		}
	}
	fmt.Fprint(os.Stderr, "\n"+rep.Table())
	if *report != "" {
		if err := rep.WriteJSON(*report); err != nil {
			fmt.Fprintln(os.Stderr, "rehearse:", err)
			return 2
		}
	}
	fmt.Println(strings.Replace(rep.Summary(), "e2e:", "rehearse:", 1))
	if *hold && ctx.Err() == nil {
		for _, e := range running {
			fmt.Fprintf(os.Stderr, "rehearse: %s: KUBECONFIG=%s\n", e.Name, e.Cluster.Kubeconfig)
		}
		fmt.Fprintln(os.Stderr, "rehearse: the clusters run until interrupted (Ctrl-C)")
		<-ctx.Done()
	}
	if !rep.OK() {
		return 1
	}
	return 0
}
