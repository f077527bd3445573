package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// pace reads the collector's settings without changing them.
func pace() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	// GOGC off reads as -1.
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// TestImportLeavesThePace checks that importing the package changes
// nothing: the test binary runs at the pace the environment gives it.
func TestImportLeavesThePace(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment")
	}
	if percent, limit := pace(); percent == -1 || limit != math.MaxInt64 {
		t.Errorf("before Set GOGC is %d and the memory limit %d; want Go's own pace and no limit", percent, limit)
	}
}

// TestSetThenPace checks that Set holds collection off until StartHeap,
// and then paces at Percent, unless the environment sets the pace.
func TestSetThenPace(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skipf("%s is set in the environment, which wins", v)
		}
	}
	settled(t)
	Set()
	if percent, limit := pace(); percent != -1 || limit != StartHeap {
		t.Fatalf("after Set GOGC is %d and the limit %d, want off and %d", percent, limit, StartHeap)
	}
	waitForPace(t, Percent)
}

// TestSetLeavesGOGC checks that GOGC in the environment wins over Set.
func TestSetLeavesGOGC(t *testing.T) {
	settled(t)
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	Set()
	if percent, limit := pace(); percent != 150 || limit != math.MaxInt64 {
		t.Errorf("with GOGC=150, after Set GOGC is %d and the limit %d, want 150 and none", percent, limit)
	}
}

// TestStartThenPace checks that start holds collection off, with the
// limit set, until a collection has run, and then sets the pace and lifts
// the limit.
func TestStartThenPace(t *testing.T) {
	settled(t)
	start(250, 64<<20)
	if percent, limit := pace(); percent != -1 || limit != 64<<20 {
		t.Fatalf("after start GOGC is %d and the limit %d, want off and %d", percent, limit, 64<<20)
	}
	waitForPace(t, 250)
}

// settled sets the pace back as it finds it when the test ends.
func settled(t *testing.T) {
	t.Helper()
	percent, limit := pace()
	t.Cleanup(func() {
		debug.SetGCPercent(int(percent))
		debug.SetMemoryLimit(limit)
	})
}

// waitForPace makes collections until the pace is percent and the memory
// limit is lifted: the finalizer that sets them runs on the runtime's
// finalizer goroutine once a collection has swept its object. It waits for
// that, not for a time; the deadline only ends a test that would never
// pass.
func waitForPace(t *testing.T, percent int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		p, limit := pace()
		if p == percent && limit == math.MaxInt64 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a collection GOGC is %d and the limit %d, want %d and none", p, limit, percent)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEarlierSentinelLeavesThePace checks that the finalizer of an
// earlier start's sentinel, which a collection since may queue, does not
// set the pace of a later start.
func TestEarlierSentinelLeavesThePace(t *testing.T) {
	settled(t)
	start(250, 64<<20)
	earlier := generation.Load()
	start(300, 32<<20)
	setPace(earlier, 250)
	if percent, limit := pace(); percent != -1 || limit != 32<<20 {
		t.Fatalf("after an earlier sentinel's finalizer GOGC is %d and the limit %d, want off and %d", percent, limit, 32<<20)
	}
	waitForPace(t, 300)
}

// cycles is the number of collections the process has completed.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCollectOnlyAtStartingHeap checks that Collect collects while the
// collector is off under a memory limit (the starting heap Set gives), and
// not otherwise: with the collector off and no limit, nothing else
// collects, so a collection there would be Collect's.
func TestCollectOnlyAtStartingHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	before := cycles()
	Collect()
	if n := cycles() - before; n != 0 {
		t.Errorf("with the collector off and no memory limit, Collect collected %d times, want none", n)
	}

	debug.SetMemoryLimit(1 << 40) // far above what the test holds
	before = cycles()
	Collect()
	if cycles() == before {
		t.Errorf("at the starting heap (collector off, memory limit set), Collect did not collect")
	}
}
