// Package gcpace sets the garbage collector's pace of platc's process when
// it is initialized, before most of the packages platc links are: no
// collection until the process holds StartHeap bytes, then GOGC Percent.
// GOGC in the environment leaves both to it; GOMEMLIMIT, the start (the
// pace is still Percent).
//
// A render is a short batch job whose memory is mostly live until it
// ends, and Go's first heap goal is 4 MB: at GOGC 400 from the start, as
// platc ran before, a render of 10,000 Applications (about 60 MB
// allocated, 30 MB of it live at the end) collected twice after the
// packages' init, the second time marking all that was live while the
// render ran on both cores. The Go compiler starts its heap large for the
// same reason (cmd/compile/internal/base.AdjustStartingHeap); platc does
// it with the runtime's own knobs: collection off, and a soft memory
// limit of StartHeap, which makes the first collection. Once that one has
// run, a finalizer sets the pace to Percent and lifts the limit: a large
// render (a cold render of every chart at 50,000 Applications holds 1.4 GB)
// is paced from its live heap as before, never held to the limit.
//
// It does nothing else, but for Collect, which cmd/platc's main calls
// first: one collection of what the packages' initialization left. Its
// place in the order of initialization is Go's: packages are initialized
// in the order of their import paths, each once the packages it imports
// are, so this one comes after those of the modules whose paths sort
// before github.com/platc and before the rest (k8s.io, sigs.k8s.io,
// google.golang.org...). That is about 12 ms into the process, after the
// first two collections (the runtime's first goal, 4 MB, is met by then):
// only GOGC in the environment avoids those.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// Percent is the pace once the heap has grown past StartHeap, where only
// large renders go (50,000 Applications, or every chart rendered): the
// heap may grow to three times what is live at a collection. 400 was
// chosen while the spec's load left more garbage before the first
// collection; once readPlain left less, more was live at it (66 MB at
// 50,000 Applications against 41) and 400 let a first render there peak
// at 302 to 314 MB. At 200: 244 to 260 MB fresh, a cold render of every
// chart at 50,000 Applications 838 MB against 1,278 in the same 8.3 s,
// up to date 4% slower (1.145 against 1.102 s, medians of 15); a render
// of 10,000 Applications collects nothing either way
// (docs/performance.md). 800 was faster at 10,000 when they collected,
// and took 2.1 GB and 5.4 s where 400 took 1.4 GB and 4.2 s.
const Percent = 200

// StartHeap is the memory the process may hold before its first
// collection: a render of 10,000 Applications (about 60 MB allocated)
// collects none. The Go compiler starts at 128 MiB; platc at less, for its
// large renders: the later the first collection, the more is live at it,
// and Percent lets the heap grow from that. At GOGC 400, a first render of
// 50,000 Applications peaked at 321 MB with 128 MiB, 270 to 302 MB with
// 96 MiB, 278 to 297 MB at 400 from the start (docs/performance.md).
const StartHeap = 96 << 20

// paced says whether init set the pace (the environment sets neither
// GOGC nor GOMEMLIMIT): Collect then collects.
var paced bool

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		debug.SetGCPercent(Percent)
		return
	}
	paced = true
	start(Percent, StartHeap)
}

// Collect collects what the packages' initialization left, once, and
// holds collection off again until the process holds StartHeap bytes;
// main calls it first. The packages initialized after this one allocate
// while collection is off: when main starts, the heap holds 8 MB, 4.7 MB
// of it garbage, which the run would otherwise never reuse, taking fresh
// pages instead, each at the cost of a page fault (12 µs on the
// benchmark's virtual machine). Collecting it costs a collection of the
// 3.6 MB that is live: at 10,000 Applications up to date 1,000 to 1,100
// fewer page faults and 16 ms less (0.304 to 0.288 s with a first
// version of it, 0.334 to 0.318 s with this one; medians of 31 and 21),
// and platc version the same. It does nothing where the environment sets
// the pace.
func Collect() {
	if !paced {
		return
	}
	runtime.GC()
	start(Percent, StartHeap)
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
