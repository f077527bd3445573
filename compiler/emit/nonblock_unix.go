//go:build unix

package emit

import "syscall"

// OpenNonblock is the flag that opens a file in non-blocking mode: the os
// package otherwise switches a regular file it opens into that mode and,
// the file being no poller's, back (four fcntl calls per file).
const OpenNonblock = syscall.O_NONBLOCK
