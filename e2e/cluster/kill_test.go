package cluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoProcessOutlivesItsHarness starts a control plane in a child
// process (this test binary, as helperCluster), kills the child with
// SIGKILL, and with SIGINT, once it has said which processes it started,
// and requires every one of them to be gone: nothing the harness starts
// outlives it, however it ends.
func TestNoProcessOutlivesItsHarness(t *testing.T) {
	if os.Getenv("E2E_HELPER_CLUSTER") != "" {
		helperCluster()
		return
	}
	bins := buildForTest(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestNoProcessOutlivesItsHarness$")
			cmd.Env = append(os.Environ(), "E2E_HELPER_CLUSTER="+bins.Dir, "E2E_HELPER_DIR="+t.TempDir())
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var pids []int
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(sc.Text(), "pids "); ok {
					for _, f := range strings.Fields(rest) {
						pid, _ := strconv.Atoi(f)
						pids = append(pids, pid)
					}
					break
				}
			}
			if len(pids) < 6 {
				t.Fatalf("the helper started %d processes, want 6 or more (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, ...)", len(pids))
			}
			for _, pid := range pids {
				if !alive(pid) {
					t.Fatalf("process %d is not running before the kill", pid)
				}
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			// The kernel ends each child as its parent dies; wait for
			// them to be reaped, not for a time.
			deadline := time.Now().Add(30 * time.Second)
			for _, pid := range pids {
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d outlived the harness killed with %s", pid, sig)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// helperCluster starts a control plane and prints its processes, then
// waits to be killed.
func helperCluster() {
	wd, _ := os.Getwd()
	c, err := Start(context.Background(), Options{
		Name: "helper", Dir: os.Getenv("E2E_HELPER_DIR"), Binaries: Binaries{Dir: os.Getenv("E2E_HELPER_CLUSTER")},
		ProgramsDir: filepath.Join(filepath.Dir(wd), "programs"), Log: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := c.StartKro(context.Background(), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var ids []string
	for _, pid := range c.PIDs() {
		ids = append(ids, strconv.Itoa(pid))
	}
	fmt.Println("pids " + strings.Join(ids, " "))
	select {}
}
