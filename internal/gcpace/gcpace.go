// Package gcpace sets the garbage collector's pace of platc's process,
// when cmd/platc's main calls Set, first: no collection until the
// process holds StartHeap bytes, then GOGC Percent. GOGC in the
// environment leaves both to it; GOMEMLIMIT, the start (the pace is still
// Percent). Nothing happens when the package is initialized: the
// packages platc links initialize at Go's own pace, and tests and other
// programs that import platc's packages keep theirs.
//
// A render is a short batch job whose memory is mostly live until it
// ends, and Go's first heap goal is small: at Go's pace, a render
// collects several times, marking what is live while the render runs on
// every core, and reuses little. The Go compiler starts its heap large
// for the same reason (cmd/compile/internal/base.AdjustStartingHeap);
// platc does it with the runtime's own knobs: collection off, and a soft
// memory limit of StartHeap, which makes the first collection. Once that
// one has run, a finalizer sets the pace to Percent and lifts the limit:
// a large render (every chart rendered, at the largest sizes) is paced
// from its live heap, never held to the limit. docs/performance.md says
// how both constants were chosen.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Percent is the pace once the heap has grown past StartHeap, where only
// large renders go: the heap may grow to three times what is live at a
// collection. A higher pace let those renders peak higher for little
// speed, since the first collection now finds more live.
const Percent = 200

// StartHeap is the memory the process may hold before its first
// collection: an everyday render collects nothing. The Go compiler starts
// at 128 MiB; platc at less, for its large renders: the later the first
// collection, the more is live at it, and Percent lets the heap grow from
// that.
const StartHeap = 96 << 20

// Set sets the process's pace, unless the environment sets GOGC (then it
// does nothing) or GOMEMLIMIT (then it sets only Percent). cmd/platc's
// main calls it before anything else.
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

// Collect collects once, if the process is still at the starting heap
// Set gave it (collection off under the memory limit): at any other pace
// the collector finds the garbage itself, and a test that loads many
// specs would otherwise collect for each. cmd/platc has load call it once
// the garbage of a spec's CUE evaluation is dead: the rest of the run
// then reuses that memory rather than taking fresh pages beside it, and,
// being the run's first collection, it ends the starting heap, Percent
// pacing the rest from what is live.
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

// generation counts the calls of start: the finalizer of an earlier
// call's sentinel, which a collection since has queued, must not set the
// pace of a later one.
var generation atomic.Int64

// start turns collection off until the process holds limit bytes, and
// sets the pace to percent after the collection that the limit makes.
func start(percent int, limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	gen := generation.Add(1)
	// The finalizer of an object nothing refers to runs after the first
	// collection; a pointer in it keeps the object out of the runtime's
	// tiny-object blocks, whose objects are finalized together.
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
