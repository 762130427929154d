// Package skiphelp has a fuzz test that skips through a helper, a skip
// wafer's build does not rewrite (wafer's gofuzz tests).
package skiphelp

// Valid reports whether data is an input the fuzz test keeps.
func Valid(data []byte) bool { return string(data) != "skip" }
