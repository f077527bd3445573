//go:build !linux

package emit

import "os"

// stageSynced says whether each staged file is synced as it is written:
// here, where there is no syncfs(2), it is, and syncStaged has nothing
// left to do.
const stageSynced = true

// syncStaged does nothing: each staged file was synced as it was written.
func syncStaged(*os.Root, string) error { return nil }

// cannotReplace reports whether the file name of r is one no rename
// replaces. Where platc cannot tell, the write's rename finds out after
// the commit point, and the write is rolled back.
func cannotReplace(r *os.Root, name string) bool { return false }
