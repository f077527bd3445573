//go:build !unix

package cli

// openDirectory is 0 where the system has no flag for it.
const openDirectory = 0
