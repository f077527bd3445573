//go:build unix

package emit

import "syscall"

// openNonblock is the flag that opens a file in non-blocking mode.
const openNonblock = syscall.O_NONBLOCK
