// Package behave is checked under wafer as go test -fuzz runs it: a
// failure, a panic and a skip (wafer's gofuzz tests).
package behave

// Parse panics on "panic" (the bug under test).
func Parse(data []byte) int {
	if string(data) == "panic" {
		var m map[string]int
		m["x"] = 1 // assignment to entry in nil map
	}
	return len(data)
}
