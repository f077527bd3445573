package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/cli"
)

// TestSymbolicLinks runs vet on a repository on disk, read through an
// os.Root, whose repo-path folders hold symbolic links: followed inside the
// repository, refused with their target outside it.
func TestSymbolicLinks(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n")
	writeFile(t, outside, "folder/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n")
	dir := t.TempDir()
	writeFile(t, dir, "sources/platform.cue", `package platform

platform: {name: "p", repoURL: "https://git.example.com/p.git"}
modules: {
	web: {path: "sources/manifests/web", namespace: "web"}
	away: {path: "sources/manifests/away", namespace: "away"}
	kust: {path: "sources/manifests/kust", namespace: "kust"}
}
environments: dev: revision: "HEAD"
`)
	writeFile(t, dir, "sources/shared/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n")
	writeFile(t, dir, "sources/manifests/web/own.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n")
	writeFile(t, dir, "sources/manifests/kust/own.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n")
	writeFile(t, dir, "sources/manifests/kust/kustomization.yaml", "resources:\n  - own.yaml\n  - stolen.yaml\n")
	symlink(t, "../../shared/cm.yaml", filepath.Join(dir, "sources/manifests/web/shared.yaml"))
	symlink(t, filepath.Join(outside, "cm.yaml"), filepath.Join(dir, "sources/manifests/web/stolen.yaml"))
	symlink(t, filepath.Join(outside, "folder"), filepath.Join(dir, "sources/manifests/away"))
	symlink(t, "../../../../"+filepath.Base(outside)+"/cm.yaml", filepath.Join(dir, "sources/manifests/kust/stolen.yaml"))

	code, _, stderr := platc(t, "vet", "-C", dir)
	msg := "outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it"
	want := []string{
		`sources/platform.cue:6:15: modules.away.path: "sources/manifests/away" is a symbolic link to "` + filepath.Join(outside, "folder") + `", ` + msg,
	}
	if code != cli.ExitProblems || stderr != strings.Join(want, "\n")+"\n" {
		t.Errorf("vet: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, strings.Join(want, "\n"))
	}

	// Without the folder that is a link, the links in the folders.
	writeFile(t, dir, "sources/platform.cue", strings.Replace(mustRead(t, filepath.Join(dir, "sources/platform.cue")), "\taway: {path: \"sources/manifests/away\", namespace: \"away\"}\n", "", 1))
	code, _, stderr = platc(t, "vet", "-C", dir)
	want = []string{
		`sources/manifests/kust/stolen.yaml: modules.kust: is a symbolic link to "../../../../` + filepath.Base(outside) + `/cm.yaml", ` + msg,
		`sources/manifests/web/stolen.yaml: modules.web: is a symbolic link to "` + filepath.Join(outside, "cm.yaml") + `", ` + msg,
	}
	if code != cli.ExitProblems || stderr != strings.Join(want, "\n")+"\n" {
		t.Errorf("vet: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, strings.Join(want, "\n"))
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestClientRepoOfAnUnknownClient checks that -client-repo for a client the
// spec does not declare is a usage error, not a checkout ignored.
func TestClientRepoOfAnUnknownClient(t *testing.T) {
	checkout := t.TempDir()
	code, _, stderr := platc(t, "vet", "-C", "../../golden/stacks", "-client-repo", "gren="+checkout, "-client-repo", "green="+checkout)
	want := "platc: -client-repo gren=" + checkout + `: the spec has no client "gren" (did you mean "green"?) (its clients: blue, green): name one of them` + "\n"
	if code != cli.ExitUsage || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d:\n%s", code, stderr, cli.ExitUsage, want)
	}
}

// TestTeamFolderLinkedOutside checks that a team's values folder that is a
// symbolic link out of the repository is refused, not read as empty.
func TestTeamFolderLinkedOutside(t *testing.T) {
	dir := t.TempDir()
	spec := mustRead(t, "../../golden/error-client-folders/sources/platform.cue")
	writeFile(t, dir, "sources/platform.cue", spec)
	outside := t.TempDir()
	writeFile(t, outside, "site/web.yaml", "replicas: 2\n")
	if err := os.MkdirAll(filepath.Join(dir, "clients"), 0o777); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(dir, "clients/blue"))
	code, _, stderr := platc(t, "vet", "-C", dir)
	want := `clients/blue: the values folder of client blue is a symbolic link to "` + outside + `", outside the repository: Argo CD refuses a repository with a link that leaves it, and platc reads nothing outside it; copy what it points to into the repository, or link to a path inside it` + "\n"
	if code != cli.ExitProblems || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}
