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
// It does nothing else; cmd/platc imports it for that effect alone. Its
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
)

// Percent is the pace once the heap has grown past StartHeap: platc runs
// for well under a second and holds its output in memory, so collecting
// garbage a quarter as often costs a few megabytes and saves a tenth of
// the CPU of a large render (docs/performance.md). 800 made warm runs at
// 10,000 Applications faster still, but a cold render of every chart at
// 50,000 took 2.1 GB and 5.4 s against 1.4 GB and 4.2 s.
const Percent = 400

// StartHeap is the memory the process may hold before its first
// collection: a render of 10,000 Applications (about 60 MB allocated)
// collects none. The Go compiler starts at 128 MiB; platc at less, for its
// large renders: the later the first collection, the more is live at it,
// and GOGC 400 lets the heap grow to five times that. A first render of
// 50,000 Applications peaked at 321 MB with 128 MiB, 270 to 302 MB with
// 96 MiB, 278 to 297 MB at GOGC 400 from the start (docs/performance.md).
const StartHeap = 96 << 20

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		debug.SetGCPercent(Percent)
		return
	}
	start(Percent, StartHeap)
}

// start turns collection off until the process holds limit bytes, and
// sets the pace to percent after the collection that the limit makes.
func start(percent int, limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	// The finalizer of an object nothing refers to runs after the first
	// collection; a pointer in it keeps the object out of the runtime's
	// tiny-object blocks, whose objects are finalized together.
	type sentinel struct{ _ *int }
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
