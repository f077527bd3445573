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

// TestPaceSetAtInit checks that importing the package set the pace: no
// collection before StartHeap, or, once the first one has run, Percent.
func TestPaceSetAtInit(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skipf("%s is set in the environment, which wins", v)
		}
	}
	switch percent, limit := pace(); {
	case percent == -1 && limit == StartHeap:
	case percent == Percent && limit == math.MaxInt64:
	default:
		t.Errorf("after init GOGC is %d and the memory limit %d; want off and %d before the first collection, %d and none after", percent, limit, StartHeap, Percent)
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

// settled waits for what init started to end, or its finalizer might run
// after the test's, and sets the pace back as it finds it when the test
// ends.
func settled(t *testing.T) {
	t.Helper()
	if percent, limit := pace(); percent == -1 && limit == StartHeap {
		waitForPace(t, Percent)
	}
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
// earlier start's sentinel, which Collect's collection queues, does not
// set the pace of the start that Collect makes after it.
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

// TestCollectHoldsThePace checks that after Collect's collection,
// collection is off again until StartHeap, and then paced at Percent.
func TestCollectHoldsThePace(t *testing.T) {
	if !paced {
		t.Skip("the environment sets the pace")
	}
	Collect()
	if percent, limit := pace(); percent != -1 || limit != StartHeap {
		t.Fatalf("after Collect GOGC is %d and the limit %d, want off and %d", percent, limit, StartHeap)
	}
	waitForPace(t, Percent)
}
