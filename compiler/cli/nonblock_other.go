//go:build !unix

package cli

// openNonblock is the flag that opens a file in non-blocking mode: none
// here.
const openNonblock = 0

// openDirectory is 0 where the system has no flag for it.
const openDirectory = 0
