// Package ext is tested from an external test package (ext_test).
package ext

// Double doubles n, but for 1234.
func Double(n int) int {
	if n == 1234 {
		return 0
	}
	return 2 * n
}
