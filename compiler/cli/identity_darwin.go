package cli

import (
	"io/fs"
	"syscall"
)

// identify returns fi's identity; ok is false where the system does not
// say it.
func identify(fi fs.FileInfo) (id fileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		Size:  fi.Size(),
		Mode:  fi.Mode(),
		Mtime: st.Mtimespec.Nano(),
		Ctime: st.Ctimespec.Nano(),
		Ino:   st.Ino,
		Dev:   uint64(st.Dev),
	}, true
}
