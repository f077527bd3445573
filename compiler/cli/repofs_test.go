package cli

import (
	"io/fs"
	"os"
	"testing"
)

// TestRepoFSKeepsTheRootsMethods checks that the repository's FS, and a
// folder's, answer fs.Stat and the others themselves, not through Open.
func TestRepoFSKeepsTheRootsMethods(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := root.Mkdir("sub", 0o777); err != nil {
		t.Fatal(err)
	}
	repo := newRepoFS(root)
	sub, err := repo.Sub("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.(*closingFS).Close()
	for name, fsys := range map[string]fs.FS{"repository": repo, "folder": sub} {
		if _, ok := fsys.(fs.StatFS); !ok {
			t.Errorf("the %s's FS is not an fs.StatFS", name)
		}
		if _, ok := fsys.(fs.ReadLinkFS); !ok {
			t.Errorf("the %s's FS is not an fs.ReadLinkFS", name)
		}
		if _, ok := fsys.(fs.ReadFileFS); !ok {
			t.Errorf("the %s's FS is not an fs.ReadFileFS", name)
		}
		if _, ok := fsys.(fs.ReadDirFS); !ok {
			t.Errorf("the %s's FS is not an fs.ReadDirFS", name)
		}
	}
}
