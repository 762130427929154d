// Package dep is a dependency of the replace and vendored fixtures,
// required through a replace directive to this directory.
package dep

// Origin names the copy of this package a build used.
const Origin = "dep directory"

// Long reports whether s is longer than 8 bytes.
func Long(s string) bool { return len(s) > 8 }
