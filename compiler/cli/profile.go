package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// CPUProfileEnv names the environment variable that, set to a file,
// makes platc write a CPU profile of its run there (for `go tool pprof`):
// to see where a real process's time goes, start, output folder and all,
// which the in-process benchmarks do not show. The package
// initialization before Main is not in it.
const CPUProfileEnv = "PLATC_CPUPROFILE"

// profiled runs fn, writing a CPU profile of it to the file file when
// file is set. A profile that cannot be started is an error, and fn does
// not run: the profile was asked for.
func profiled(file string, stderr io.Writer, fn func() int) int {
	if file == "" {
		return fn()
	}
	f, err := os.Create(file)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "platc: %s: %v: set it to a file platc can write, or unset it\n", CPUProfileEnv, err)
		return ExitUsage
	}
	code := fn()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "platc: %s: %v\n", CPUProfileEnv, err)
	}
	return code
}
