//go:build !linux

package emit

import "os"

// syncAtOnce says whether a write that stages n files syncs them at once:
// here, where there is no syncfs(2), it never does; each staged file is
// synced as it is written.
func syncAtOnce(int) bool { return false }

// syncStaged is never called here.
func syncStaged(*os.Root, string) error { return nil }

// cannotReplace reports whether the file name of r is one no rename
// replaces. Where platc cannot tell, the write's rename finds out after
// the commit point, and the write is rolled back.
func cannotReplace(r *os.Root, name string) bool { return false }
