// Package args has a fuzz test of every argument type go test -fuzz
// accepts (wafer's gofuzz tests).
package args

import "fmt"

// Format prints the values as the tests expect them.
func Format(vals ...any) string { return fmt.Sprintf("%#v", vals) }
