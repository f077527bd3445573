package emit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func lockOf(t *testing.T, root *os.Root, opts LockOptions) *Lock {
	t.Helper()
	l, err := LockOutput(root, "out", opts)
	if err != nil {
		t.Fatalf("LockOutput: %v", err)
	}
	if l == nil {
		t.Fatal("LockOutput locked nothing")
	}
	return l
}

func TestLockFailsAtOnceWithTheHolder(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	held := lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"})
	defer held.Unlock()
	info, err := os.ReadFile(filepath.Join(dir, "out", LockName))
	if err != nil || string(info) != fmt.Sprintf("%d platc render\n", os.Getpid()) {
		t.Errorf("the lock's file holds %q, %v", info, err)
	}
	// A second platc, as another process would: its own open of the
	// folder.
	_, err = LockOutput(openRoot(t, dir), "out", LockOptions{Holder: "platc check"})
	want := fmt.Sprintf("out/ is locked by platc render (PID %d): let it finish, or end it if it is stuck, then run platc again", os.Getpid())
	var locked *LockedError
	if !errors.As(err, &locked) || err.Error() != want {
		t.Errorf("LockOutput error = %v, want %q", err, want)
	}
}

func TestLockWaitsForTheHolder(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	held := lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"})
	var waiting []string
	sleeps := 0
	second := lockOf(t, openRoot(t, dir), LockOptions{
		Holder:  "platc check",
		Wait:    time.Minute,
		Waiting: func(holder string) { waiting = append(waiting, holder) },
		Sleep: func(time.Duration) {
			// The holder finishes while the second one waits, at its
			// third try.
			if sleeps++; sleeps == 2 {
				held.Unlock()
			}
		},
	})
	defer second.Unlock()
	want := fmt.Sprintf("platc render (PID %d)", os.Getpid())
	if len(waiting) != 1 || waiting[0] != want || sleeps != 2 {
		t.Errorf("told %q, slept %d times; want told once %q, and two sleeps", waiting, sleeps, want)
	}
	if info, err := os.ReadFile(filepath.Join(dir, "out", LockName)); err != nil || string(info) != fmt.Sprintf("%d platc check\n", os.Getpid()) {
		t.Errorf("the lock's file holds %q, %v, want the second holder", info, err)
	}
}

func TestLockWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	held := lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"})
	defer held.Unlock()
	sleeps := 0
	_, err := LockOutput(openRoot(t, dir), "out", LockOptions{Wait: time.Second, Sleep: func(time.Duration) { sleeps++ }})
	want := fmt.Sprintf("out/ is locked by platc render (PID %d), still after waiting 1s: let it finish, or end it if it is stuck, then run platc again", os.Getpid())
	if err == nil || err.Error() != want {
		t.Errorf("LockOutput error = %v, want %q", err, want)
	}
	if sleeps != int(time.Second/lockPoll) {
		t.Errorf("slept %d times, want %d", sleeps, time.Second/lockPoll)
	}
}

func TestLockWaitIsInterrupted(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	held := lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"})
	defer held.Unlock()
	interrupt := make(chan struct{})
	_, err := LockOutput(openRoot(t, dir), "out", LockOptions{Wait: time.Hour, Interrupt: interrupt, Sleep: func(time.Duration) { close(interrupt) }})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("LockOutput error = %v, want ErrInterrupted", err)
	}
}

func TestLockNamesAHolderThatRecordedNothing(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	held := lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"})
	defer held.Unlock()
	if err := os.WriteFile(filepath.Join(dir, "out", LockName), []byte("garbage"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := LockOutput(openRoot(t, dir), "out", LockOptions{})
	want := "out/ is locked by another platc process: let it finish, or end it if it is stuck, then run platc again"
	if err == nil || err.Error() != want {
		t.Errorf("LockOutput error = %v, want %q", err, want)
	}
}

func TestUnlockLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"out/a.yaml": gen("a\n")})
	before := tree(t, dir)
	lockOf(t, openRoot(t, dir), LockOptions{Holder: "platc render"}).Unlock()
	assertTree(t, dir, before, "old")
	// And the lock is free again.
	lockOf(t, openRoot(t, dir), LockOptions{}).Unlock()
}

func TestLockOfAMissingOutputRoot(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	if l, err := LockOutput(root, "build/out", LockOptions{}); l != nil || err != nil {
		t.Fatalf("LockOutput of a missing folder = %v, %v, want nothing locked", l, err)
	}
	l := lockOf(t, root, LockOptions{Create: true})
	if _, err := os.Stat(filepath.Join(dir, "out")); err != nil {
		t.Fatalf("LockOutput with Create did not make the folder: %v", err)
	}
	l.Unlock()
	// Nothing was written in it: it goes.
	assertTree(t, dir, map[string]string{}, "old")

	l, err := LockOutput(root, "build/out", LockOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	makeTree(t, dir, map[string]string{"build/out/a.yaml": gen("a\n")})
	l.Unlock()
	assertTree(t, dir, map[string]string{"build/": "", "build/out/": "", "build/out/a.yaml": gen("a\n")}, "new")
}
