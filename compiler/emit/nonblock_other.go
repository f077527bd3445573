//go:build !unix

package emit

// openNonblock is no flag where there is none.
const openNonblock = 0
