//go:build unix

package cli

import "syscall"

// openNonblock is the flag that opens a file in non-blocking mode.
const openNonblock = syscall.O_NONBLOCK

// openDirectory is the flag that refuses to open anything but a folder.
const openDirectory = syscall.O_DIRECTORY
