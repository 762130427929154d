//go:build !wasip1

// Package nowasi does not build for wasip1.
package nowasi

func F() {}
