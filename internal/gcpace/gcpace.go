// Package gcpace sets the garbage collector's pace of platc's process
// (GOGC 400, unless GOGC is in the environment) when it is initialized,
// before most of the packages platc links are: their init functions
// allocate tens of megabytes (kro's and Kubernetes' tables and schemes, a
// JSON Schema library's meta-schemas), which at Go's default pace cost
// several collections before main runs, each marking all that is live.
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
	"os"
	"runtime/debug"
)

// Percent is the pace: platc runs for well under a second and holds its
// output in memory, so collecting garbage a quarter as often costs a few
// megabytes and saves a tenth of the CPU of a large render
// (docs/performance.md). 800 made warm runs at 10,000 Applications faster
// still, but a cold render of every chart at 50,000 took 2.1 GB and 5.4 s
// against 1.4 GB and 4.2 s.
const Percent = 400

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}
