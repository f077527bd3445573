//go:build !linux && !darwin

package cli

import "io/fs"

// identify says nothing here: without a change time and an inode, a file
// replaced by another of the same size and modification time would not
// show, so no check memo is kept on this system.
func identify(fs.FileInfo) (fileID, bool) { return fileID{}, false }
