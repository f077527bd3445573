//go:build !unix

package cli

// platcChild is the child of the signal tests, which run on Unix only.
func platcChild() {}
