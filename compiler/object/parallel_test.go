package object

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestParallelCallsEach(t *testing.T) {
	const n = 1000
	var calls [n]atomic.Int32
	Parallel(n, func(i int) { calls[i].Add(1) })
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("fn(%d) was called %d times, want 1", i, c)
		}
	}
}

// TestParallelPanicsInCaller checks that a panic in one call reaches the
// caller, where a recover can see it, rather than ending the process.
func TestParallelPanicsInCaller(t *testing.T) {
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if !strings.HasPrefix(msg, "call 7 failed") {
			t.Errorf("recovered %v, want the panic of call 7", r)
		}
	}()
	Parallel(100, func(i int) {
		if i == 7 {
			panic("call 7 failed")
		}
	})
	t.Fatal("Parallel returned after a call panicked")
}
