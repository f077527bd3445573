package gcpace

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestPaceSetAtInit checks that importing the package set the pace.
func TestPaceSetAtInit(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment, which wins")
	}
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Errorf("GOGC is %d after init, want %d", got, Percent)
	}
}
