// Package gcpace sets the garbage collector's pace for platc's process
// when cmd/platc's main calls Set: no collection until the process holds
// StartHeap bytes, then GOGC Percent. GOGC in the environment overrides
// both; GOMEMLIMIT overrides the start. Initializing the package does
// nothing, so tests and other importers keep Go's pace.
//
// A render is a short batch job whose memory is mostly live until it
// ends, and Go's first heap goal is small: at Go's pace it collects
// several times and reuses little. The Go compiler starts its heap large
// for the same reason (cmd/compile/internal/base.AdjustStartingHeap).
// platc uses the runtime's knobs: collection off, and a soft memory limit
// of StartHeap, which triggers the first collection. After it, a
// finalizer sets the pace to Percent and lifts the limit, so a large
// render is paced from its live heap, never held to the limit.
// docs/performance.md says how both constants were chosen.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Percent is the pace once the heap has grown past StartHeap (only large
// renders do): the heap may grow to three times what is live. A higher
// pace raises their peak for little speed.
const Percent = 200

// StartHeap is the memory the process may hold before its first
// collection, so an everyday render collects nothing. It is smaller than
// the Go compiler's, for large renders: the later the first collection,
// the more is live, and Percent grows the heap from that.
const StartHeap = 96 << 20

// Set sets the process's pace, unless GOGC is set (then it does nothing)
// or GOMEMLIMIT is (then it sets only Percent). Call it first in main.
func Set() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		debug.SetGCPercent(Percent)
		return
	}
	start(Percent, StartHeap)
}

// Collect collects once, if the process is still at Set's starting heap;
// at any other pace the collector manages (and a test loading many specs
// would collect for each). load calls it once a spec's CUE evaluation
// garbage is dead, so the run reuses that memory instead of new pages, and
// as the first collection it hands pacing to Percent.
func Collect() {
	if startingHeap() {
		runtime.GC()
	}
}

// startingHeap reports whether the collector is off under a memory limit.
func startingHeap() bool {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) < 0 && s[1].Value.Uint64() != math.MaxInt64
}

// generation counts the calls of start, so a stale finalizer of an
// earlier call does not set a later call's pace.
var generation atomic.Int64

// start turns collection off until the process holds limit bytes, and
// sets the pace to percent after the collection that the limit makes.
func start(percent int, limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	gen := generation.Add(1)
	// An unreferenced object's finalizer runs after the first
	// collection; a pointer keeps it out of tiny-object blocks, which are
	// finalized together.
	type sentinel struct{ _ *int }
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { setPace(gen, percent) })
}

// setPace sets the pace to percent and lifts the limit, unless start was
// called again since the call of generation gen.
func setPace(gen int64, percent int) {
	if generation.Load() != gen {
		return
	}
	debug.SetGCPercent(percent)
	debug.SetMemoryLimit(math.MaxInt64)
}
