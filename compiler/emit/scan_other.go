//go:build !linux

package emit

import "os"

// scanFolder is Linux's; elsewhere scanDir reads the folder.
func scanFolder(f *os.File, outDir, dir string, st *State) (ok bool, err error) {
	return false, nil
}
