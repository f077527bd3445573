//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platc/platc/compiler/cli"
)

// platcBounded is platc, failing the test where it has not returned
// after a minute (it waits on a file that never ends).
func platcBounded(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		c, o, e := platc(t, args...)
		done <- result{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(time.Minute):
		t.Fatalf("platc %s did not return", strings.Join(args, " "))
		return
	}
}

func mkfifo(t *testing.T, name string) {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every file platc is given must be a regular file of at most its size
// limit: a FIFO, a device or a larger file is a clear error, not a hang.
func TestInputsAreRegularAndBounded(t *testing.T) {
	dir := rendered(t)
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "fifo.json")
	mkfifo(t, fifo)
	notRegular := "not a regular file (a FIFO, a device or a socket, which may never end): name a regular file"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"rehearsal from a device", []string{"report", "-C", dir, "-rehearsal", "/dev/zero"},
			"platc: -rehearsal /dev/zero: read /dev/zero: " + notRegular + " [io]\n"},
		{"rehearsal from a FIFO", []string{"report", "-C", dir, "-rehearsal", fifo},
			"platc: -rehearsal " + fifo + ": read " + fifo + ": " + notRegular + " [io]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := platcBounded(t, c.args...)
			if code != cli.ExitUsage || stderr != c.want {
				t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, c.want)
			}
		})
	}
	t.Run("since a folder holding a FIFO", func(t *testing.T) {
		old := filepath.Join(tmp, "old")
		if err := os.MkdirAll(filepath.Join(old, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, filepath.Join(old, "out", "apps.yaml"))
		code, _, stderr := platcBounded(t, "report", "-C", dir, "-since", old)
		want := "platc report: -since " + old + ": read " + filepath.Join(old, "out", "apps.yaml") + ": " + notRegular + "\n"
		if code != cli.ExitUsage || !strings.HasSuffix(stderr, want) {
			t.Errorf("exit %d, stderr:\n%s\nwant it to end with:\n%s", code, stderr, want)
		}
	})
	t.Run("a spec file that is a FIFO", func(t *testing.T) {
		d := copyRepo(t, dir)
		mkfifo(t, filepath.Join(d, "sources", "more.cue"))
		code, _, stderr := platcBounded(t, "vet", "-C", d)
		if code == cli.ExitOK || !strings.Contains(stderr, "sources/more.cue: reading the spec: "+notRegular+" [io]") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("a rehearsal too large", func(t *testing.T) {
		cli.SetMaxInput(t, 1<<20)
		big := filepath.Join(tmp, "big.json")
		if err := os.WriteFile(big, make([]byte, 1<<20+1), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := platcBounded(t, "report", "-C", dir, "-rehearsal", big)
		want := "platc: -rehearsal " + big + ": read " + big + ": larger than 1 MiB, the most platc reads of a file: not read [io]\n"
		if code != cli.ExitUsage || stderr != want {
			t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
		}
	})
}
