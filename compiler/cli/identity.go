package cli

import (
	"io/fs"
	"time"
)

// fileID is what the system says of a file that changes whenever what it
// holds may have: its size, mode, modification and change times, inode
// and device, the fields Git's index keeps for the same purpose. The
// change time cannot be set back by a program, so a file replaced by
// another of the same size and modification time (cp -p, tar, rsync -a)
// shows as another file.
type fileID struct {
	Size  int64       `json:"s"`
	Mode  fs.FileMode `json:"m"`
	Mtime int64       `json:"t"` // nanoseconds since 1970
	Ctime int64       `json:"c"`
	Ino   uint64      `json:"i"`
	Dev   uint64      `json:"d"`
}

func (a *fileID) equal(b *fileID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// recent reports whether the file changed less than settle before now.
func (a *fileID) recent(now time.Time, settle time.Duration) bool {
	limit := now.Add(-settle).UnixNano()
	return a.Mtime > limit || a.Ctime > limit
}
