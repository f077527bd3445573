package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProfiledWritesCPUProfile: with a file, the run's code is returned
// and the file holds a profile (gzipped, as pprof writes it); without one,
// nothing is written.
func TestProfiledWritesCPUProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	var stderr bytes.Buffer
	if code := profiled(file, &stderr, func() int { return 7 }); code != 7 || stderr.Len() != 0 {
		t.Fatalf("profiled = %d, stderr %q; want 7 and nothing", code, stderr.String())
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped as pprof writes it: %v", err)
	}
	if data, err := io.ReadAll(z); err != nil || len(data) == 0 {
		t.Fatalf("the profile reads as %d bytes, %v", len(data), err)
	}

	ran := false
	if code := profiled("", &stderr, func() int { ran = true; return 0 }); code != 0 || !ran {
		t.Errorf("profiled without a file = %d, ran %v", code, ran)
	}
}

// TestProfiledRefusesUnwritableFile: a profile asked for and not written
// is an error, said before anything runs.
func TestProfiledRefusesUnwritableFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	var stderr bytes.Buffer
	ran := false
	code := profiled(file, &stderr, func() int { ran = true; return 0 })
	want := "platc: PLATC_CPUPROFILE: open " + file + ": no such file or directory: set it to a file platc can write, or unset it\n"
	if code != ExitUsage || ran || stderr.String() != want {
		t.Errorf("profiled = %d, ran %v, stderr %q; want %d, not run, %q", code, ran, stderr.String(), ExitUsage, want)
	}
}
