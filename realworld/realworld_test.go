// Package realworld imports the Argo CD objects of real, public
// repositories (../shared/realworld, read-only, beside the repository)
// with platc import, renders each spec in memory and compares it with the
// originals object by object. It lives in a module of its own because it
// reads outside the repository; .ci/run runs it (make realworld).
//
// Each repository's expectation, testdata/<repository>.txt, is the
// command and what it prints; go test -update rewrites them. Its lines
// starting with "# " are kept: they give the reason of every object that
// differs ("# ENV/KIND/NAME: reason"), which the test requires.
package realworld

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/platc/platc/compiler/cli"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt, keeping their # lines")

// corpus is where ../shared/realworld is, from this folder.
var corpus = filepath.Join("..", "..", "shared", "realworld")

// platform is the repository the corpus is imported into. The corpus
// holds the repositories' Argo CD objects and not the folders they sync,
// so each is imported as into a new platform repository, the original's
// folders read as another repository's.
const platform = "https://git.example.com/platform.git"

// repos are the corpus' repositories, each imported as a new user would:
// the folders that hold its Applications and AppProjects (a kustomize
// overlay is built as Argo CD builds it), and the environment each is;
// where ApplicationSets read cluster Secrets, a file of them that this
// suite writes (testdata/clusters), as a user gives their Argo CD's.
var repos = []struct {
	dir  string
	args []string
}{
	{"ricsanfre-pi-cluster", overlays("kubernetes/bootstrap", []string{"infra", "apps", "root-app", "argocd"}, "dev", "prod")},
	{"cybozu-go-neco-apps", []string{
		"stage0=argocd-config/overlays/stage0", "tokyo0=argocd-config/overlays/tokyo0", "osaka0=argocd-config/overlays/osaka0",
		"gcp=argocd-config/overlays/gcp", "neco-dev=argocd-config/overlays/neco-dev",
	}},
	{"Medical-Informatics-Platform-mip-infra", []string{
		"mip=base", "mip=common", "mip=projects",
		"federation-a=deployments/local/federations/federation-A",
		"federation-z=deployments/hybrid/federations/federation-Z/mip-infrastructure",
	}},
	{"aws-samples-appmod-blueprints", []string{"hub=gitops", "hub=platform", "dev=applications/node/deployment/dev-statestore", "solutions=solutions"}},
	{"Azure-Samples-aks-platform-engineering", []string{"-clusters", "testdata/clusters/azure.yaml", "control-plane=gitops", "control-plane=terraform"}},
	{"gitops-bridge-dev-gitops-bridge-argocd-control-plane-template", []string{"-clusters", "testdata/clusters/gitops-bridge.yaml", "hub=bootstrap", "hub=hack"}},
	{"kubernetes-sigs-kro", []string{"examples=examples"}},
}

// ownFile makes an argument naming a file of testdata/ (the cluster
// Secrets this suite writes for a repository's clusters generators)
// absolute, since import runs in the repository's folder.
func ownFile(arg string) string {
	if strings.HasPrefix(arg, "testdata/") {
		if abs, err := filepath.Abs(arg); err == nil {
			return abs
		}
	}
	return arg
}

// overlays are ENV=base/<folder>/overlays/<env> for each folder and
// environment.
func overlays(base string, folders []string, envs ...string) []string {
	var args []string
	for _, env := range envs {
		for _, f := range folders {
			args = append(args, env+"="+base+"/"+f+"/overlays/"+env)
		}
	}
	return args
}

// summary is the last line of platc import.
var summary = regexp.MustCompile(`(?m)^import: (\d+) objects, (\d+) equal, (\d+) differ, (\d+) not imported;`)

// row is a line of the table: environment, kind, name, result.
var row = regexp.MustCompile(`(?m)^(\S+) +(\S+) +(\S+) +(equal|differs: .*|not imported: .*)$`)

var (
	mu     sync.Mutex
	totals [4]int
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if totals[0] > 0 {
		fmt.Printf("import: %d objects, %d equal, %d differ, %d not imported\n", totals[0], totals[1], totals[2], totals[3])
	}
	os.Exit(code)
}

func TestImport(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Fatalf("the corpus of real repositories is not at %s (../shared/realworld beside the repository): %v", corpus, err)
	}
	for _, r := range repos {
		t.Run(r.dir, func(t *testing.T) {
			dir := filepath.Join(corpus, r.dir, "original")
			args := append([]string{"import", "-n", "-repo", platform}, r.args...)
			var stdout, stderr bytes.Buffer
			run := []string{args[0], "-C", dir}
			for _, a := range args[1:] {
				run = append(run, ownFile(a))
			}
			code := cli.Main(run, &stdout, &stderr)
			got := "$ platc " + strings.Join(args, " ") + "\n" + stdout.String()
			if stderr.Len() > 0 {
				got += "-- stderr --\n" + stderr.String()
			}
			got += fmt.Sprintf("-- exit %d --\n", code)

			m := summary.FindStringSubmatch(stdout.String())
			if m == nil {
				t.Fatalf("platc import printed no summary:\n%s", got)
			}
			mu.Lock()
			for i := range totals {
				n, _ := strconv.Atoi(m[i+1])
				totals[i] += n
			}
			mu.Unlock()

			file := filepath.Join("testdata", r.dir+".txt")
			old, _ := os.ReadFile(file)
			var reasons []string
			for _, line := range strings.SplitAfter(string(old), "\n") {
				if strings.HasPrefix(line, "# ") {
					reasons = append(reasons, line)
				}
			}
			want := strings.Join(reasons, "") + got
			if *update {
				if err := os.WriteFile(file, []byte(want), 0o666); err != nil {
					t.Fatal(err)
				}
			} else if string(old) != want {
				t.Errorf("platc import of %s is not what %s expects; go test -update rewrites it:\n%s", r.dir, file, got)
			}
			// Every difference has its reason.
			for _, x := range row.FindAllStringSubmatch(stdout.String(), -1) {
				if !strings.HasPrefix(x[4], "differs") {
					continue
				}
				key := "# " + x[1] + "/" + x[2] + "/" + x[3] + ": "
				if !strings.Contains(string(old), "\n"+key) && !strings.HasPrefix(string(old), key) {
					t.Errorf("%s: %s/%s/%s differs (%s) and %s gives no reason: add a line %q", r.dir, x[1], x[2], x[3], x[4], file, key+"...")
				}
			}
		})
	}
}
