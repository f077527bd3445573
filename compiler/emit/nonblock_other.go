//go:build !unix

package emit

// OpenNonblock is no flag where there is none.
const OpenNonblock = 0
