package emit

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// addInodeFlags adds flags to the inode flags of the file p (chattr(1)
// +i, +a), and restores them when the test ends; it skips the test where
// the file system or the process cannot (no CAP_LINUX_IMMUTABLE, a file
// system without them).
func addInodeFlags(t *testing.T, p string, flags uint32) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	was, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		t.Skipf("cannot read the inode flags of %s here: %v", p, err)
	}
	set := func(flags uint32) error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
	}
	// Restore them even if setting them failed half way.
	t.Cleanup(func() {
		if err := set(was); err != nil {
			t.Errorf("restoring the inode flags of %s: %v", p, err)
		}
	})
	if err := set(was | flags); err != nil {
		t.Skipf("cannot set the inode flags of %s here: %v", p, err)
	}
}

// TestWriteRefusesAnImmutableFileBeforeItsCommitPoint makes a file the
// write replaces immutable, or append-only, as chattr +i or +a does: the
// write refuses it before its commit point, says how to clear it, and
// leaves every file as it was.
func TestWriteRefusesAnImmutableFileBeforeItsCommitPoint(t *testing.T) {
	for name, flags := range map[string]uint32{"immutable": fsImmutable, "append-only": fsAppend} {
		t.Run(name, func(t *testing.T) {
			s := newScenario()
			before, _ := s.want(t)
			dir := s.setUp(t)
			addInodeFlags(t, filepath.Join(dir, "out", "change.yaml"), flags)
			var committed atomic.Bool
			_, err := s.write(t, dir, Options{Fault: func(st Step) error {
				if st.Kind == StepCommit {
					committed.Store(true)
				}
				return nil
			}})
			want := "replacing out/change.yaml: it is immutable or append-only (lsattr out/change.yaml shows it; chattr -i or chattr -a clears it): the files are as they were"
			if err == nil || err.Error() != want {
				t.Fatalf("Write error = %v, want %q", err, want)
			}
			if committed.Load() {
				t.Error("the write reached its commit point")
			}
			assertTree(t, dir, before, "old")
		})
	}
}

// TestWriteBacksUpByCopyWhereItCannotLink fails the link of a backup as a
// file system without hard links does: the write copies the file instead,
// and a rename refused after the commit point still rolls back to it.
func TestWriteBacksUpByCopyWhereItCannotLink(t *testing.T) {
	s := newScenario()
	before, _ := s.want(t)
	dir := s.setUp(t)
	var links atomic.Int64
	_, err := s.write(t, dir, Options{
		link: func(*os.Root, string, string) error {
			links.Add(1)
			return errors.New("operation not supported")
		},
		Fault: func(st Step) error {
			if st.Kind == StepRename && st.Path == "out/deploy/clusters/prod/apps.yaml" {
				return errFault
			}
			return nil
		},
	})
	if links.Load() == 0 {
		t.Fatal("the write linked no backup")
	}
	if !errors.Is(err, errFault) {
		t.Fatalf("Write error = %v, want the fault", err)
	}
	assertTree(t, dir, before, "old")
}
