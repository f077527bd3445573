//go:build unix

package cli

import "syscall"

// openDirectory is the flag that refuses to open anything but a folder.
const openDirectory = syscall.O_DIRECTORY
