package object

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Parallel calls fn for each of 0..n-1, on as many goroutines as there are
// processors, and returns when all calls have. The callers' results go to
// their own slots, so the output does not depend on the order of the calls.
// A call that panics makes Parallel panic, in the caller's goroutine, once
// all other calls have returned.
func Parallel(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[string]
	for range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					msg := fmt.Sprintf("%v\n\n%s", r, debug.Stack())
					failed.CompareAndSwap(nil, &msg)
				}
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	if msg := failed.Load(); msg != nil {
		panic(*msg)
	}
}
