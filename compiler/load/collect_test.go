package load

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// cycles is the number of collections the process has completed.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCollectEvaluationOnlyAtStartingHeap checks that the garbage of a
// CUE evaluation is collected while the collector is off under a memory
// limit (platc's starting heap), and not otherwise: with the collector
// off and no limit, nothing else collects, so a collection there would
// be collectEvaluation's.
func TestCollectEvaluationOnlyAtStartingHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	before := cycles()
	collectEvaluation()
	if n := cycles() - before; n != 0 {
		t.Errorf("with the collector off and no memory limit, collectEvaluation collected %d times, want none", n)
	}

	debug.SetMemoryLimit(1 << 40) // far above what the test holds
	before = cycles()
	collectEvaluation()
	if cycles() == before {
		t.Errorf("at the starting heap (collector off, memory limit set), collectEvaluation did not collect")
	}
}
