//go:build unix

package emit

import "syscall"

// OpenNonblock opens a file non-blocking; otherwise the os package
// switches a regular file into that mode and back with fcntl calls.
const OpenNonblock = syscall.O_NONBLOCK
