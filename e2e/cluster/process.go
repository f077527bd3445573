package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A process is one program of the control plane, running in a process
// group of its own (so that what it starts stops with it) and killed if
// the process that started it dies (Pdeathsig): a test killed with
// SIGKILL leaves nothing behind.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error // set before done is closed
}

// processes are a cluster's running programs.
type processes struct {
	mu    sync.Mutex
	list  []*process
	ended bool
	// nice is the scheduling priority they run at (Options.Nice).
	nice int
}

// start runs bin with args and env (added to this process's), its
// output in dir/<name>.log.
func (ps *processes) start(dir, name, bin string, args, env []string) (*process, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.ended {
		return nil, errors.New("the cluster is stopping")
	}
	logPath := filepath.Join(dir, name+".log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// The programs of a cluster that lives a few minutes can trade
	// memory for CPU: at Go's default pace a fifth of the API server's
	// CPU here is its collector's (measured with its pprof during a
	// delivery). GOGC set in the environment wins.
	cmd.Env = append(append([]string{"GOGC=400"}, os.Environ()...), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if ps.nice != 0 {
		// Every thread of its process group (its own), those it makes
		// later inheriting it.
		if err := syscall.Setpriority(syscall.PRIO_PGRP, cmd.Process.Pid, ps.nice); err != nil {
			fmt.Fprintf(log, "e2e: %s: nice %d: %v\n", name, ps.nice, err)
		}
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	ps.list = append(ps.list, p)
	return p, nil
}

// exited reports a process that ended, with the end of its log.
func (ps *processes) exited() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.list {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.err, p.logPath, tail(p.logPath, 15))
		default:
		}
	}
	return nil
}

// stop ends every process: SIGTERM to each group at once, SIGKILL to
// those still running after grace, and to what each left in its group.
func (ps *processes) stop(grace time.Duration) {
	ps.mu.Lock()
	ps.ended = true
	list := ps.list
	ps.mu.Unlock()
	for _, p := range list {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	expired := false
	for _, p := range list {
		if !expired {
			select {
			case <-p.done:
			case <-timer.C:
				expired = true
			}
		}
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// pids are the process ids of the programs started, for tests that
// check none is left.
func (ps *processes) pids() []int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var ids []int
	for _, p := range ps.list {
		ids = append(ids, p.cmd.Process.Pid)
	}
	return ids
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.ReplaceAll(string(bytes.Join(lines, []byte("\n"))), "\n", "\n  ")
}

// freePorts are n TCP ports free on the loopback interface now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
