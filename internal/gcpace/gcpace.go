// Package gcpace sets the garbage collector's pace of platc's process
// (GOGC 800, unless GOGC is in the environment) when it is initialized,
// while the packages platc links are: their init functions allocate tens
// of megabytes (kro's and Kubernetes' tables and schemes, a JSON Schema
// library's meta-schemas), which at Go's default pace cost several
// collections before main runs, each marking all that is live.
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
// output in memory, so collecting garbage an eighth as often costs a few
// megabytes and saves CPU (docs/performance.md: against 400, render at
// 10,000 Applications 15% faster for the same 130 MB, vet 8%; no change
// at 50,000).
const Percent = 800

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}
