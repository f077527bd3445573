package hooks_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// platcRoot is platc's repository: the checkout GitHub would give the
// action (GITHUB_ACTION_PATH).
const platcRoot = ".."

// action runs hooks/action.sh as action.yml does, in workspace, with what
// GitHub sets (the action's checkout, the runner's temporary folder
// runnerTemp) and the inputs as env, PLATC_VERSION and the like. It
// returns stdout, stderr and the exit code.
func action(t *testing.T, workspace, runnerTemp string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	actionPath, err := filepath.Abs(platcRoot)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(actionPath, "hooks", "action.sh"))
	cmd.Dir = workspace
	// A run of these tests inside GitHub Actions must not leak the real
	// run's variables into the fake one.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "PLATC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PLATC_CACHE="+cacheDir, "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace, "RUNNER_TEMP="+runnerTemp)
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GITHUB_ACTION_PATH=") }) {
		cmd.Env = append(cmd.Env, "GITHUB_ACTION_PATH="+actionPath)
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatalf("bash: %v", err)
	}
	return out.String(), errOut.String(), 0
}

// afterBuild returns what the action printed after the group of its build.
func afterBuild(t *testing.T, stdout string) string {
	t.Helper()
	_, after, ok := strings.Cut(stdout, "::endgroup::\n")
	if !ok {
		t.Fatalf("the action's output has no build group:\n%s", stdout)
	}
	return after
}

// TestActionChecksThePlatform runs the action's script as GitHub would, on
// a platform in a folder of a Git repository: it builds platc from its own
// checkout, passes on a rendered platform with GitHub's annotations, fails
// with an annotation on the drifted file named from the repository's root,
// and passes its args on to platc check.
func TestActionChecksThePlatform(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: the action runs in a Git checkout, whose root names the annotated files")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: the action's step runs it, as GitHub's runners have it")
	}
	// platc, built where the action builds it: its own go build then
	// finds it up to date (Go compares the build's inputs with those
	// recorded in the file), and takes a second, not ten.
	workspace, runnerTemp := t.TempDir(), t.TempDir()
	if out, err := run(t, workspace, "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if out, err := run(t, workspace, copyPlatc(t, filepath.Join(runnerTemp, "platc-action", "platc")), "init", "-repo", "https://git.example.com/demo.git", "platform"); err != nil {
		t.Fatalf("platc init: %v\n%s", err, out)
	}

	stdout, stderr, code := action(t, workspace, runnerTemp, "PLATC_WORKING_DIRECTORY=platform")
	actionPath, _ := filepath.Abs(platcRoot)
	if code != 0 || !strings.HasPrefix(stdout, "::group::building platc from "+actionPath+"\nplatc ") {
		t.Fatalf("the action failed on a rendered platform: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := "::notice title=platc not-checked::1 chart is not rendered, since sources has no charts.lock: podinfo; run platc charts pull (it uses the network) to lock, fetch and render them\n" +
		"platc: sources/ checked in part: 1 environment, 2 Applications, 0 AppProjects, 0 stacks; out/ is up to date; not checked: 1 chart without a lock (run platc charts pull)\n"
	if got := afterBuild(t, stdout); got != want {
		t.Errorf("the check printed:\n%s\nwant:\n%s", got, want)
	}

	apps := filepath.Join(workspace, "platform", "out", "deploy", "clusters", "local", "apps.yaml")
	data, err := os.ReadFile(apps)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "replicaCount: 1", "replicaCount: 2", 1)
	if edited == string(data) {
		t.Fatal("platc init's render changed: update this test")
	}
	if err := os.WriteFile(apps, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = action(t, workspace, runnerTemp, "PLATC_WORKING_DIRECTORY=platform")
	if code != 1 {
		t.Fatalf("the action on a drifted out/: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, line := range []string{
		"::error file=platform/out/deploy/clusters/local/apps.yaml,line=20,title=platc check::edited by hand: the file no longer matches what its inputs produce: run `platc render` and commit out/",
		"::error title=platc check::out/ is stale: 1 changed, 0 missing, 0 extra (1 edited by hand): run `platc render` and commit out/",
	} {
		if !slices.Contains(strings.Split(afterBuild(t, stdout), "\n"), line) {
			t.Errorf("the action's output lacks the line\n%s\nstdout:\n%s", line, stdout)
		}
	}

	// args reach platc check, split at spaces.
	_, stderr, code = action(t, workspace, runnerTemp, "PLATC_WORKING_DIRECTORY=platform", "PLATC_ARGS= -strict  -strct")
	if want := "platc check: flag provided but not defined: -strct (did you mean \"-strict\"?)\n"; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("the action with args -strict -strct: exit %d, stderr:\n%s\nwant exit 2 and stderr starting %q", code, stderr, want)
	}
}

// TestActionInstallsARelease runs the action's script with the input
// version of a release that has no archive: it installs that release with
// go install, and where that fails (here, offline) it says so in an
// annotation.
func TestActionInstallsARelease(t *testing.T) {
	needTools(t, "bash", "curl")
	releases := httptest.NewServer(http.NotFoundHandler())
	defer releases.Close()
	stdout, stderr, code := action(t, t.TempDir(), t.TempDir(), "PLATC_VERSION=v9.9.9", "GOPROXY=off", "PLATC_RELEASES_URL="+releases.URL, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	want := "::group::installing platc v9.9.9\n" +
		"platc v9.9.9 has no release archive platc_9.9.9_linux_amd64.tar.gz at " + releases.URL + ": building it with go install\n" +
		"::endgroup::\n" +
		"::error title=platc action::installing platc v9.9.9 failed: the log of this step says why; the input version is a platc release (v1.2.0), latest, or empty to use the action's own ref\n"
	if code != 1 || stdout != want || !strings.Contains(stderr, "github.com/platc/platc/cmd/platc@v9.9.9: module lookup disabled by GOPROXY=off") {
		t.Errorf("the action with version v9.9.9, offline: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1, stdout:\n%s", code, stdout, stderr, want)
	}
}

// TestActionDownloadsARelease runs the action's script against releases
// served here: it installs the archive for the runner after checking its
// checksum (for the input version, latest, or the action's own tag), and
// refuses an archive that is not the one its checksum names. The platc in
// the archives is a script that says what it was asked.
func TestActionDownloadsARelease(t *testing.T) {
	needTools(t, "bash", "curl", "tar")
	releases, archive, sums := serveRelease(t)

	want := "::group::installing platc v1.2.0\nplatc v1.2.0 (0123456) go1.26.8\n::endgroup::\nplatc check -C . -format github\n"
	for _, env := range [][]string{{"PLATC_VERSION=v1.2.0"}, {"PLATC_VERSION=latest"}, {"GITHUB_ACTION_REF=v1.2.0"}} {
		env = append(env, "PLATC_RELEASES_URL="+releases.URL, "RUNNER_OS=Linux", "RUNNER_ARCH=ARM64", "GOPROXY=off")
		stdout, stderr, code := action(t, t.TempDir(), t.TempDir(), env...)
		if code != 0 || stdout != want {
			t.Errorf("the action with %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 0, stdout:\n%s", env[0], code, stdout, stderr, want)
		}
	}

	*sums = strings.Repeat("0", 64) + "  platc_1.2.0_linux_arm64.tar.gz\n"
	stdout, stderr, code := action(t, t.TempDir(), t.TempDir(), "PLATC_VERSION=v1.2.0", "PLATC_RELEASES_URL="+releases.URL, "RUNNER_OS=Linux", "RUNNER_ARCH=ARM64")
	wantErr := fmt.Sprintf("::group::installing platc v1.2.0\n::endgroup::\n::error title=platc action::platc_1.2.0_linux_arm64.tar.gz of %s/download/v1.2.0 is not the archive its checksums file names (sha256 %x, want %s): download it again, or report it to platc\n", releases.URL, sha256.Sum256(archive), strings.Repeat("0", 64))
	if code != 1 || stdout != wantErr {
		t.Errorf("the action with a wrong checksum: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1, stdout:\n%s", code, stdout, stderr, wantErr)
	}
}

// serveRelease serves the releases of platc v1.2.0 for linux on arm64,
// whose platc is a script that says what it was asked; it returns the
// server, the archive, and its checksums file, which a test may change.
func serveRelease(t *testing.T) (*httptest.Server, []byte, *string) {
	t.Helper()
	platc := "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'platc v1.2.0 (0123456) go1.26.8'; else echo \"platc $*\"; fi\n"
	archive := tarGz(t, "platc", platc)
	sums := fmt.Sprintf("%x  platc_1.2.0_linux_arm64.tar.gz\n", sha256.Sum256(archive))
	mux := http.NewServeMux()
	mux.HandleFunc("/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/tag/v1.2.0", http.StatusFound)
	})
	mux.HandleFunc("/tag/v1.2.0", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/download/v1.2.0/platc_1.2.0_linux_arm64.tar.gz", func(w http.ResponseWriter, _ *http.Request) { w.Write(archive) })
	mux.HandleFunc("/download/v1.2.0/platc_1.2.0_checksums.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, sums) })
	releases := httptest.NewServer(mux)
	t.Cleanup(releases.Close)
	return releases, archive, &sums
}

// TestActionInputs feeds the action's inputs what a workflow may hold:
// args over several lines (the form args: | gives) reach platc check
// word by word, every line; a word the action cannot pass as written (a
// quote, an escape, a variable) is refused, and so is a version that is
// no release, before anything is installed; and no input, line breaks
// and :: in it, starts a workflow command of its own.
func TestActionInputs(t *testing.T) {
	needTools(t, "bash", "curl", "tar")
	releases, _, _ := serveRelease(t)
	env := []string{"PLATC_RELEASES_URL=" + releases.URL, "RUNNER_OS=Linux", "RUNNER_ARCH=ARM64", "GOPROXY=off", "PLATC_VERSION=v1.2.0"}
	for _, c := range []struct {
		name, input, value string
		code               int
		stdout             string
	}{
		{"args over lines", "PLATC_ARGS", "-strict\n  -spec platform/sources \r\n\n-out\tdeploy/\n", 0,
			"::group::installing platc v1.2.0\nplatc v1.2.0 (0123456) go1.26.8\n::endgroup::\nplatc check -C . -format github -strict -spec platform/sources -out deploy/\n"},
		{"args with a quote", "PLATC_ARGS", "-strict\n-spec 'my platform/sources'", 1,
			"::error title=platc action::the input args holds the word 'my, which the action cannot pass as written: it splits args at spaces and line breaks and passes each word as it is, with no quotes, escapes or variables; write each argument without them (a folder whose name holds a space goes in working-directory)\n"},
		{"args with a variable", "PLATC_ARGS", "-spec $HOME/x", 1,
			"::error title=platc action::the input args holds the word $HOME/x, which the action cannot pass as written: it splits args at spaces and line breaks and passes each word as it is, with no quotes, escapes or variables; write each argument without them (a folder whose name holds a space goes in working-directory)\n"},
		{"args with a command", "PLATC_ARGS", "-strict\n::warning::x%\\", 1,
			"::error title=platc action::the input args holds the word ::warning::x%25\\, which the action cannot pass as written: it splits args at spaces and line breaks and passes each word as it is, with no quotes, escapes or variables; write each argument without them (a folder whose name holds a space goes in working-directory)\n"},
		{"version over lines", "PLATC_VERSION", "v1.2.0\n::warning::injected\r", 1,
			"::error title=platc action::the input version v1.2.0%0A::warning::injected%0D is not a release of platc: write a release's tag (v1.2.0), latest, or nothing to use the action's own ref\n"},
	} {
		stdout, stderr, code := action(t, t.TempDir(), t.TempDir(), append(env, c.input+"="+c.value)...)
		if code != c.code || stdout != c.stdout {
			t.Errorf("the action with %s (%s=%q): exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s", c.name, c.input, c.value, code, stdout, stderr, c.code, c.stdout)
		}
	}
}

// needTools skips a test without the programs the action's step runs,
// as GitHub's runners have them.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s not found: the action's step runs it, as GitHub's runners have it", name)
		}
	}
}

// tarGz is a gzipped tar of one executable file.
func tarGz(t *testing.T, name, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(text))}); err != nil {
		t.Fatal(err)
	}
	io.WriteString(tw, text)
	tw.Close()
	gz.Close()
	return b.Bytes()
}

// TestActionOutsideGitHub: the script run by hand says what it is.
func TestActionOutsideGitHub(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: the action's step runs it, as GitHub's runners have it")
	}
	stdout, stderr, code := action(t, t.TempDir(), t.TempDir(), "GITHUB_ACTION_PATH=")
	want := "platc action: GITHUB_ACTION_PATH is not set: this script is platc's GitHub Action; use it in a workflow as uses: platc/platc@<ref>\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q, want exit 2 and stderr %q", code, stdout, stderr, want)
	}
}

// TestActionYAML holds action.yml to its script: a composite action whose
// last step runs hooks/action.sh and hands it each input as the variable
// the script reads.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(platcRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// Every field an action of this kind may have: strict, a misspelled
	// one fails.
	var a struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Inputs      map[string]struct {
			Description string  `json:"description"`
			Required    bool    `json:"required"`
			Default     *string `json:"default"`
		} `json:"inputs"`
		Runs struct {
			Using string `json:"using"`
			Steps []struct {
				Uses  string            `json:"uses"`
				With  map[string]string `json:"with"`
				Shell string            `json:"shell"`
				Run   string            `json:"run"`
				Env   map[string]string `json:"env"`
			} `json:"steps"`
		} `json:"runs"`
	}
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q with %d steps, want a composite action", a.Runs.Using, len(a.Runs.Steps))
	}
	step := a.Runs.Steps[len(a.Runs.Steps)-1]
	if step.Shell != "bash" || step.Run != `"$GITHUB_ACTION_PATH/hooks/action.sh"` {
		t.Errorf("action.yml: the last step runs %q with shell %q, want \"$GITHUB_ACTION_PATH/hooks/action.sh\" with bash", step.Run, step.Shell)
	}
	script, err := os.ReadFile("action.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range a.Inputs {
		if in.Default == nil {
			t.Errorf("action.yml: input %s has no default: every input of the action is optional", name)
		}
		v := "PLATC_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if got, want := step.Env[v], "${{ inputs."+name+" }}"; got != want {
			t.Errorf("action.yml: the step sets %s to %q, want %q", v, got, want)
		}
		if !strings.Contains(string(script), "${"+v+":-") {
			t.Errorf("hooks/action.sh does not read %s, the input %s", v, name)
		}
	}
	if len(step.Env) != len(a.Inputs) {
		t.Errorf("action.yml: the step sets %d variables for %d inputs", len(step.Env), len(a.Inputs))
	}
}

// TestActionBuildsAsMakeDoes holds the build tags of the action's script
// to those the Makefile gives every go command: the action's platc is the
// one make builds.
func TestActionBuildsAsMakeDoes(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(platcRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(platcRoot, "hooks", "action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	made := regexp.MustCompile(`(?m)^export GOFLAGS \+= (-tags=\S+)$`).FindSubmatch(makefile)
	built := regexp.MustCompile(`(?m)^tags=(-tags=\S+)$`).FindSubmatch(script)
	if made == nil || built == nil || string(made[1]) != string(built[1]) {
		t.Errorf("the Makefile's GOFLAGS line gives %q, hooks/action.sh's tags line %q: want one line each, the same tags", made, built)
	}
}
